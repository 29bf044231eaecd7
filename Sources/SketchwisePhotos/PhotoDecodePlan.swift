/// How a photo is decoded, worked out from its header and its layout before any pixel is: the
/// size the decoder is asked for (never larger than the photo: a small or narrow photo is
/// decoded at its own size, and only its centre square is scaled up), the centre square the
/// result is cut to, and the memory all of it takes.
///
/// Every size here is checked against ``PhotoLimits`` first, so the arithmetic on them cannot
/// overflow: sides are at most ``PhotoLimits/maximumSide`` and the square at most as long.
public struct PhotoDecodePlan: Sendable, Equatable {
    public let header: PhotoHeader
    /// The size asked of the decoder: the photo's own, or smaller so that its shorter side is
    /// ``square``'s (the longer one rounded down, as torchvision's `Resize` does).
    public let decodedWidth, decodedHeight: Int
    /// The side of the centre square the photo is cut to and scaled to; nil: the whole photo.
    public let square: Int?
    /// A JPEG's scans (1 for a PNG).
    public let scans: Int
    /// An upper bound of the bytes the decode takes: see ``estimatedBytes(header:structure:decoded:square:)``.
    public let estimatedBytes: Int
    /// The bytes given to the decoder: the file up to its `IEND` chunk or `EOI` marker.
    let end: Int
    /// Where a JPEG's scans start (none for a PNG).
    let scanStarts: [Int]

    /// Checks the file against `limits` and plans its decoding.
    /// - Parameter square: the side of the centre square wanted (a model's input), or nil for
    ///   the whole photo at its own size.
    /// - Throws: ``PhotoError``: `.unsupportedFormat`, `.tooLarge` (bytes, a side, the aspect
    ///   ratio, pixels, scans, memory) or `.unreadable` (a cut-off or corrupt layout).
    public init(_ bytes: [UInt8], square: Int? = nil, limits: PhotoLimits = PhotoLimits()) throws(PhotoError) {
        guard bytes.count <= limits.maximumBytes else {
            throw PhotoError(.tooLarge, "the photo has \(bytes.count) bytes, more than the \(limits.maximumBytes) allowed")
        }
        header = try PhotoHeader(bytes)
        let (width, height) = (header.width, header.height)
        try limits.check(width: width, height: height)
        if let square, !(1...limits.maximumSide).contains(square) {
            throw PhotoError(.wrongModel, "a square of \(square) pixels cannot be cut from a photo (1…\(limits.maximumSide))")
        }
        let structure = try PhotoStructure(bytes, format: header.format, maximumScans: limits.maximumScans)
        if header.format == .jpeg { try limits.check(scans: structure.scans, pixels: width * height) }
        (self.square, scans, end, scanStarts) = (square, structure.scans, structure.end, structure.scanStarts)
        let shorter = min(width, height)
        if let square, square < shorter {
            (decodedWidth, decodedHeight) = (width * square / shorter, height * square / shorter)
        } else {
            (decodedWidth, decodedHeight) = (width, height)
        }
        estimatedBytes = Self.estimatedBytes(header: header, structure: structure, decoded: (decodedWidth, decodedHeight), square: square)
        guard estimatedBytes <= limits.maximumDecodeBytes else {
            let (needed, allowed) = (estimatedBytes >> 20, limits.maximumDecodeBytes >> 20)
            throw PhotoError(
                .tooLarge, "decoding the \(width)×\(height) photo would take \(needed) MiB, more than the \(allowed) MiB allowed")
        }
    }

    /// Whether the decoder is asked for a smaller size than the photo's.
    var shrinks: Bool { decodedWidth != header.width || decodedHeight != header.height }

    /// An upper bound of the bytes decoding takes, from the header: the decoder's pixels (gdk-pixbuf
    /// decodes a PNG at its own size; libjpeg scales a JPEG down by 2, 4 or 8 while it decodes, as
    /// far as it stays at least the size asked for), its scaled copy, the coefficients libjpeg keeps
    /// for a JPEG of several scans (2 bytes a pixel and component, in 16-pixel blocks), a few rows of
    /// 16-bit RGBA, and the result: the square (scaled, turned upright, as RGB) or the whole photo.
    static func estimatedBytes(header: PhotoHeader, structure: PhotoStructure, decoded: (width: Int, height: Int), square: Int?) -> Int {
        let (width, height) = (header.width, header.height)
        var output = (width: width, height: height)
        if header.format == .jpeg {
            for denominator in [2, 4, 8] {
                let scaled = ((width + denominator - 1) / denominator, (height + denominator - 1) / denominator)
                guard scaled.0 >= decoded.width, scaled.1 >= decoded.height else { break }
                output = scaled
            }
        }
        var bytes = (output.width + 1) * output.height * 4
        if output != decoded { bytes += (decoded.width + 1) * decoded.height * 4 }
        if header.format == .jpeg, structure.scans > 1 {
            bytes += (width + 15) / 16 * 16 * ((height + 15) / 16 * 16) * structure.components * 2
        }
        bytes += 4 * width * 8
        if let square {
            bytes += square * square * (4 + 4 + 3)
        } else {
            bytes += decoded.width * decoded.height * (4 + 3)
        }
        return bytes
    }
}
