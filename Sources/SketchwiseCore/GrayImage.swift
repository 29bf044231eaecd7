/// An 8-bit grayscale image, row-major. Sketchwise uses Google's convention: 0 is background,
/// 255 is ink.
public struct GrayImage: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    /// An image of the given size; `pixels` must hold `width * height` values (or is all zero).
    public init(width: Int, height: Int, pixels: [UInt8]? = nil) {
        self.width = width
        self.height = height
        self.pixels = pixels ?? [UInt8](repeating: 0, count: width * height)
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// The same image with ink and background swapped (black ink on white).
    public var inverted: GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }
}
