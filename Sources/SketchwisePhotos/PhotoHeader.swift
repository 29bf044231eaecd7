/// The format and declared size of a photo file, read from its first bytes without decoding it,
/// so that a huge image is refused before a decoder allocates its pixels.
public struct PhotoHeader: Sendable, Equatable {
    public enum Format: String, Sendable {
        case png, jpeg
    }

    public let format: Format
    public let width, height: Int

    /// Reads the header of a PNG (its IHDR chunk) or a JPEG (its first start-of-frame marker).
    /// - Throws: ``PhotoError`` `.unsupportedFormat` for anything else, `.unreadable` when the
    ///   header is cut off or declares no pixels.
    public init(_ bytes: [UInt8]) throws(PhotoError) {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // Signature, then the IHDR chunk: length (4), "IHDR", width (4), height (4).
            guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
                throw PhotoError(.unreadable, "the PNG file has no image header")
            }
            (format, width, height) = (.png, Self.bigEndian(bytes, at: 16, count: 4), Self.bigEndian(bytes, at: 20, count: 4))
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            (width, height) = try Self.jpegSize(bytes)
            format = .jpeg
        } else {
            throw PhotoError(.unsupportedFormat, "not a PNG or JPEG image")
        }
        guard width > 0, height > 0 else { throw PhotoError(.unreadable, "the \(format.rawValue.uppercased()) file declares no pixels") }
    }

    /// Walks the JPEG's marker segments up to the first start of frame (SOF0…SOF15 but DHT,
    /// JPG and DAC), whose payload holds precision (1), height (2) and width (2).
    private static func jpegSize(_ bytes: [UInt8]) throws(PhotoError) -> (width: Int, height: Int) {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { throw PhotoError(.unreadable, "the JPEG file is corrupt (no marker at byte \(offset))") }
            let marker = bytes[offset + 1]
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // markers without a length
                offset += 2
                continue
            }
            let length = bigEndian(bytes, at: offset + 2, count: 2)
            guard length >= 2 else { throw PhotoError(.unreadable, "the JPEG file is corrupt (segment length \(length))") }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= bytes.count else { break }
                return (bigEndian(bytes, at: offset + 7, count: 2), bigEndian(bytes, at: offset + 5, count: 2))
            }
            if marker == 0xDA || marker == 0xD9 { break }  // image data or end before any frame header
            offset += 2 + length
        }
        throw PhotoError(.unreadable, "the JPEG file is cut off before its frame header")
    }

    /// The unsigned big-endian number of `count` (at most 4) bytes at `offset`.
    static func bigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }
}
