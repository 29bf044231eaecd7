/// A decoded photo: 8-bit RGB triples, row by row, upright.
public struct RGBImage: Sendable, Equatable {
    public let width, height: Int
    /// `width × height × 3` bytes.
    public var pixels: [UInt8]

    /// A programming error, not bad input, when `pixels` does not hold `width × height × 3` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        let consistent = width >= 0 && height >= 0 && !overflow && area <= Int.max / 3 && pixels.count == area * 3
        precondition(consistent, "an RGB image needs 3 bytes per pixel")
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }
}
