/// Hostile and odd photo files, built byte by byte (no encoder writes them): PNGs of any declared
/// size, cut-off files and progressive JPEGs of many scans.
enum TestPhotos {
    /// A PNG of `width × height` grey pixels of `bitDepth` bits, all zero, its image data stored
    /// (deflate without compression): about `height × width × bitDepth / 8` bytes.
    static func png(width: Int, height: Int, bitDepth: UInt8 = 8) -> [UInt8] {
        let row = 1 + (width * Int(bitDepth) + 7) / 8
        return png(
            width: width, height: height, bitDepth: bitDepth, colorType: 0,
            imageData: zlibStored([UInt8](repeating: 0, count: row * height)))
    }

    /// A PNG that declares `width × height` pixels and holds one empty image data chunk.
    static func pngHeaderOnly(width: Int, height: Int) -> [UInt8] {
        png(width: width, height: height, bitDepth: 8, colorType: 0, imageData: zlibStored([]))
    }

    /// The chunks of a PNG: IHDR, one IDAT holding `imageData`, IEND.
    static func png(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, imageData: [UInt8]) -> [UInt8] {
        let header = bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", imageData) + chunk("IEND", [])
    }

    /// `png` cut in the middle of its image data, an IEND chunk put back after the cut.
    static func cutOffWithEnd(_ png: [UInt8]) -> [UInt8] {
        Array(png.prefix(png.count / 2)) + chunk("IEND", [])
    }

    /// A grey progressive JPEG of `side × side` pixels: its DC scan, then `emptyScans` scans of
    /// no data at all (libjpeg warns, and makes a pass over the whole image for each). 7,000 pixels
    /// and 100,000 scans make the 1.1 MB file that once kept a server busy for half an hour.
    static func jpegScanBomb(side: Int, emptyScans: Int) -> [UInt8] {
        let blocks = ((side + 7) / 8) * ((side + 7) / 8)
        // The DC table's one code is the bit 0: every block's difference is 0.
        var dcBits = [UInt8](repeating: 0, count: blocks / 8)
        if blocks % 8 != 0 { dcBits.append(0xFF >> (blocks % 8)) }
        let side16 = [UInt8(side >> 8 & 0xFF), UInt8(side & 0xFF)]
        let quantization = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let frame = segment(0xC2, [8] + side16 + side16 + [1, 1, 0x11, 0])
        let huffman =
            segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
            + segment(0xC4, [0x10, 0, 1] + [UInt8](repeating: 0, count: 14) + [0])
        let dcScan = segment(0xDA, [1, 1, 0, 0, 0, 0]) + dcBits
        let emptyScan = segment(0xDA, [1, 1, 0, 1, 63, 0])
        var bytes: [UInt8] = [0xFF, 0xD8] + quantization + frame + huffman + dcScan
        bytes.reserveCapacity(bytes.count + emptyScan.count * emptyScans + 2)
        for _ in 0..<emptyScans { bytes += emptyScan }
        return bytes + [0xFF, 0xD9]
    }

    /// `jpeg` with an APP1 segment after its start: EXIF, of one entry, the orientation (1…8).
    static func withOrientation(_ jpeg: [UInt8], _ orientation: UInt8) -> [UInt8] {
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        return [0xFF, 0xD8] + segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff) + jpeg.dropFirst(2)
    }

    /// `jpeg` with an APP1 segment after its start holding `payload` (a thumbnail, say).
    static func withApplicationSegment(_ jpeg: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        [0xFF, 0xD8] + segment(0xE1, payload) + jpeg.dropFirst(2)
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// A zlib stream of stored deflate blocks (at most 65,535 bytes each).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian32(Int(b << 16 | a))
    }

    private static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}
