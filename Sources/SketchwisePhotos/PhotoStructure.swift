/// The layout of a PNG or JPEG file past its header, walked without decoding: where the image
/// ends, and a JPEG's scans and colour components. It tells a cut-off file (a chunk or segment
/// that runs past the end, no end marker) and a scan bomb (a progressive JPEG of thousands of
/// scans) before the decoder pays for them.
struct PhotoStructure: Sendable, Equatable {
    /// The bytes up to the end of the image: its `IEND` chunk or `EOI` marker. What follows (a
    /// phone's trailer, padding) is never decoded.
    let end: Int
    /// Where each of a JPEG's scans starts (its start-of-scan marker), at most `maximumScans + 1`
    /// of them (the walk stops there); none for a PNG. The decoder is fed up to each in turn, so
    /// that it finishes about one scan between two looks at the stop signal.
    let scanStarts: [Int]
    /// Colour components of a JPEG's frame (1 to 4); 4 for a PNG (RGBA at most).
    let components: Int

    /// Walks the chunks of a PNG, or the segments and scans of a JPEG.
    /// - Throws: ``PhotoError`` `.unreadable` for a cut-off or corrupt layout.
    init(_ bytes: [UInt8], format: PhotoHeader.Format, maximumScans: Int) throws(PhotoError) {
        switch format {
        case .png: (end, scanStarts, components) = (try Self.pngEnd(bytes), [], 4)
        case .jpeg: (end, scanStarts, components) = try Self.jpegLayout(bytes, maximumScans: maximumScans)
        }
    }

    /// A JPEG's scans; 1 for a PNG.
    var scans: Int { max(1, scanStarts.count) }

    /// The end of the `IEND` chunk, each chunk before it whole: `length (4), type (4), data, CRC (4)`.
    private static func pngEnd(_ bytes: [UInt8]) throws(PhotoError) -> Int {
        var offset = 8
        var chunks = 0
        while offset + 12 <= bytes.count {
            let length = PhotoHeader.bigEndian(bytes, at: offset, count: 4)
            // PNG lengths are below 2³¹, so the sum cannot overflow.
            guard length < 1 << 31 else { throw PhotoError(.unreadable, "the PNG file is corrupt (chunk length \(length))") }
            let next = offset + 12 + length
            let type = bytes[(offset + 4)..<(offset + 8)]
            guard next <= bytes.count else {
                let name = String(decoding: type.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
                throw PhotoError(.unreadable, "the PNG file is cut off (its \(name) chunk at byte \(offset) runs past the end of the file)")
            }
            guard chunks > 0 || type.elementsEqual("IHDR".utf8) else { throw PhotoError(.unreadable, "the PNG file has no image header") }
            if type.elementsEqual("IEND".utf8) { return next }
            (offset, chunks) = (next, chunks + 1)
        }
        throw PhotoError(.unreadable, "the PNG file is cut off (it ends at byte \(bytes.count) without an IEND chunk)")
    }

    /// The end of the `EOI` marker, the scans before it and the frame's components. Entropy-coded
    /// data runs to the next marker: `0xFF` followed by anything but `0x00` (a stuffed byte), a
    /// restart marker or another `0xFF`.
    private static func jpegLayout(
        _ bytes: [UInt8], maximumScans: Int
    ) throws(PhotoError) -> (end: Int, scanStarts: [Int], components: Int) {
        var (offset, scanStarts, components) = (2, [Int](), 0)
        while offset + 2 <= bytes.count {
            guard bytes[offset] == 0xFF else {  // stray bytes between segments, as libjpeg skips them
                offset += 1
                continue
            }
            let marker = bytes[offset + 1]
            switch marker {
            case 0xFF:  // fill byte
                offset += 1
                continue
            case 0xD9:
                guard !scanStarts.isEmpty else { throw PhotoError(.unreadable, "the JPEG file ends before any image data") }
                return (offset + 2, scanStarts, max(1, components))
            case 0x01, 0xD0...0xD8:  // markers without a length
                offset += 2
                continue
            default: break
            }
            guard offset + 4 <= bytes.count else { break }
            let length = PhotoHeader.bigEndian(bytes, at: offset + 2, count: 2)
            guard length >= 2 else { throw PhotoError(.unreadable, "the JPEG file is corrupt (segment length \(length))") }
            let next = offset + 2 + length
            guard next <= bytes.count else { break }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), components == 0 {
                // Photos are baseline, extended or progressive, Huffman-coded. Arithmetic coding
                // (which libjpeg, fed a slice at a time, can loop forever on), lossless and
                // hierarchical JPEGs are refused, as browsers refuse them.
                guard [0xC0, 0xC1, 0xC2].contains(marker) else {
                    throw PhotoError(
                        .unsupportedFormat,
                        "the JPEG is arithmetic-coded, lossless or hierarchical (frame marker \(hex(marker))): only baseline and progressive JPEGs are read"
                    )
                }
                guard offset + 10 <= next else {
                    throw PhotoError(.unreadable, "the JPEG file is corrupt (a frame header of \(length) bytes)")
                }
                components = Int(bytes[offset + 9])
            }
            if marker == 0xDA {
                scanStarts.append(offset)
                guard scanStarts.count <= maximumScans else { return (next, scanStarts, max(1, components)) }
                offset = entropyEnd(bytes, from: next)
            } else {
                offset = next
            }
        }
        throw PhotoError(.unreadable, "the JPEG file is cut off (no end of image marker)")
    }

    private static func hex(_ marker: UInt8) -> String {
        "0xFF" + String(marker, radix: 16, uppercase: true)
    }

    /// Where the entropy-coded data that starts at `start` ends: at the next marker, or at the end.
    private static func entropyEnd(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { data in
            var i = start
            while i + 1 < data.count {
                if data[i] != 0xFF {
                    i += 1
                    continue
                }
                let next = data[i + 1]
                if next == 0xFF {
                    i += 1
                } else if next == 0x00 || (0xD0...0xD7).contains(next) {
                    i += 2
                } else {
                    return i
                }
            }
            return data.count
        }
    }
}
