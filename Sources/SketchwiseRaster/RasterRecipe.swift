/// How strokes become pixels. ``quickDraw`` is Google's recipe for the Quick, Draw!
/// `numpy_bitmap` files, so models trained on Google's bitmaps read Sketchwise renders alike.
///
/// All lengths are in a square *frame* of ``frame`` units that is scaled to the output size:
/// the drawing, aspect kept, is fitted so its longer side spans ``extent`` units, its bounding
/// box centred in the frame; ``padding`` units of margin plus half a line width surround the frame.
public struct RasterRecipe: Hashable, Sendable, Codable {
    public var frame: Double
    public var extent: Double
    public var lineWidth: Double
    public var padding: Double

    public init(frame: Double, extent: Double, lineWidth: Double, padding: Double) {
        self.frame = frame
        self.extent = extent
        self.lineWidth = lineWidth
        self.padding = padding
    }

    /// Google's recipe: a 256-unit frame, drawings 255 units on the long side, 16-unit round
    /// lines, 16 units of padding — rendered directly at the output size with Cairo's default
    /// anti-aliasing (at 28×28: 1.47 px lines, the drawing 23.5 px across).
    public static let quickDraw = RasterRecipe(frame: 256, extent: 255, lineWidth: 16, padding: 16)

    /// The side of the square Cairo's user space spans: frame plus margins on both sides.
    var view: Double { frame + 2 * padding + lineWidth }
}
