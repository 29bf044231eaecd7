/// How big a photo may be, and how much its decoding may cost. Every limit is checked from the
/// file's header and its marker layout, before a decoder allocates a pixel.
///
/// The defaults take every usual photo (a 50-megapixel camera's, a phone's panorama of 12,000 ×
/// 2,000) and refuse what only costs: a side longer than 20,000 pixels, a shape more elongated than
/// 20:1 (a 10,000 × 1 PNG of 89 bytes), a progressive JPEG of more than 100 scans, or of more
/// scans than its size makes cheap (each scan is a pass over every pixel).
public struct PhotoLimits: Sendable, Equatable {
    /// Bytes of the file.
    public var maximumBytes: Int
    /// Width × height as the file's header declares them.
    public var maximumPixels: Int
    /// The longer side, in pixels.
    public var maximumSide: Int
    /// The longer side over the shorter one: 20 takes a 20:1 strip, not a 21:1 one.
    public var maximumAspectRatio: Int
    /// Scans of a JPEG (start-of-scan markers): a baseline JPEG has one, a progressive one about 10.
    public var maximumScans: Int
    /// Scans × pixels of a JPEG: what its scans cost together (each reads every pixel's
    /// coefficients). 2·10⁹ takes 40 scans of 50 megapixels, about a second.
    public var maximumScanPixels: Int
    /// The decode's memory as ``PhotoDecodePlan`` estimates it from the header: the decoder's
    /// pixels, a multi-scan JPEG's coefficients and every copy made after.
    public var maximumDecodeBytes: Int

    public init(
        maximumBytes: Int = 12 << 20, maximumPixels: Int = 50_000_000, maximumSide: Int = 20_000, maximumAspectRatio: Int = 20,
        maximumScans: Int = 100, maximumScanPixels: Int = 2_000_000_000, maximumDecodeBytes: Int = 512 << 20
    ) {
        (self.maximumBytes, self.maximumPixels, self.maximumSide) = (maximumBytes, maximumPixels, maximumSide)
        (self.maximumAspectRatio, self.maximumScans) = (maximumAspectRatio, maximumScans)
        (self.maximumScanPixels, self.maximumDecodeBytes) = (maximumScanPixels, maximumDecodeBytes)
    }

    /// Checks the size a header declares: each side, the aspect ratio, then the pixels.
    /// - Throws: ``PhotoError`` `.tooLarge`, naming the size and the limit.
    public func check(width: Int, height: Int) throws(PhotoError) {
        let size = "the photo is \(width)×\(height) pixels"
        guard width > 0, height > 0 else { throw PhotoError(.unreadable, "\(size): it has no pixels") }
        let (longer, shorter) = (max(width, height), min(width, height))
        guard longer <= maximumSide else { throw PhotoError(.tooLarge, "\(size): a side may be at most \(maximumSide) pixels") }
        let (elongation, overflow) = shorter.multipliedReportingOverflow(by: maximumAspectRatio)
        guard overflow || longer <= elongation else {
            throw PhotoError(.tooLarge, "\(size): more elongated than the \(maximumAspectRatio):1 allowed")
        }
        guard width <= maximumPixels / height else { throw PhotoError(.tooLarge, "\(size), more than the \(maximumPixels) allowed") }
    }

    /// Checks a JPEG's scans: their count, and scans × pixels. `pixels` is within
    /// ``maximumPixels`` already.
    /// - Throws: ``PhotoError`` `.tooLarge`.
    public func check(scans: Int, pixels: Int) throws(PhotoError) {
        guard scans <= maximumScans else {
            throw PhotoError(.tooLarge, "the JPEG has more than \(maximumScans) scans (a usual one has 1 to 20)")
        }
        let (work, overflow) = scans.multipliedReportingOverflow(by: pixels)
        guard !overflow, work <= maximumScanPixels else {
            throw PhotoError(
                .tooLarge, "the JPEG has \(scans) scans of \(pixels) pixels, more than the \(maximumScanPixels) scan × pixels allowed")
        }
    }
}
