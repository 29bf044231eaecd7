import SketchwiseCore

/// How a picture (an SVG drawing or an emoji glyph) becomes a grayscale raster that a model
/// trained on sketches can compare with a sketch.
///
/// Sketches are outlines drawn with a pen of one width, so a picture is reduced to its outline
/// drawn with that same pen:
/// 1. The picture is drawn, in colour, over white at `probeSize` pixels to find its *ink* box:
///    the pixels that differ from white by more than `inkContrast` in some channel (white or
///    transparent backgrounds are not ink).
/// 2. It is drawn again at `supersampling` × the output size with the ink box fitted into the
///    frame exactly like a sketch's bounding box (``RasterRecipe``: aspect kept, longer side at
///    `extent` units, centred, `padding` units of margin plus half a line width).
/// 3. Outline: where two pixels `edgeSpan` apart (across or down) differ in colour (over white)
///    by more than the edge threshold in some channel, the point midway is on an edge. The
///    threshold is `edgeContrast`, or half the picture's darkest channel value if that is lower,
///    so that pale pictures (a white heart with grey shading) keep their outlines. Comparing
///    pixels a little apart rather than neighbours finds the soft edges of enlarged emoji
///    bitmaps too. Filled areas, gradients and white shapes on white leave no edges. The edges
///    are drawn with a pen as wide as the sketch pen (`lineWidth` frame units, the marks'
///    own width included), so thin lines and the borders of filled shapes alike become pen
///    strokes.
/// 4. The outline is averaged down to the output size in `supersampling` × `supersampling`
///    blocks (anti-aliasing). Ink is 255 on 0, as for sketches.
///
/// The colour drawing of step 2 scaled to the thumbnail size is the picture's thumbnail.
public struct PictureRecipe: Hashable, Sendable, Codable {
    /// The frame, margins and pen width shared with sketches.
    public var geometry: RasterRecipe
    /// The working resolution is this many times the output size.
    public var supersampling: Int
    /// The colour difference (0…1, per channel, over white) that makes an edge.
    public var edgeContrast: Double
    /// How far apart, in working pixels, the compared pixels are.
    public var edgeSpan: Int
    /// The difference from white (0…1, per channel) that counts as ink when finding the ink box.
    public var inkContrast: Double
    /// The side of the first drawing, which only finds the ink box.
    public var probeSize: Int

    public init(geometry: RasterRecipe, supersampling: Int, edgeContrast: Double, edgeSpan: Int, inkContrast: Double, probeSize: Int) {
        self.geometry = geometry
        self.supersampling = supersampling
        self.edgeContrast = edgeContrast
        self.edgeSpan = edgeSpan
        self.inkContrast = inkContrast
        self.probeSize = probeSize
    }

    /// The recipe of the library index: Google's sketch geometry, 8× supersampling, edges
    /// compared half an output pixel apart.
    public static let outline = PictureRecipe(
        geometry: .quickDraw, supersampling: 8, edgeContrast: 0.25, edgeSpan: 4, inkContrast: 0.1, probeSize: 64
    )

    /// Names the algorithm and every value: indexes made with another identity are re-rendered.
    public var identity: String {
        let g = geometry
        return "outline-1 frame \(g.frame) extent \(g.extent) pen \(g.lineWidth) padding \(g.padding) "
            + "×\(supersampling) edge \(edgeContrast) span \(edgeSpan) ink \(inkContrast) probe \(probeSize)"
    }
}

/// A picture rendered by a ``PictureRecipe``: the model-ready outline and a colour thumbnail.
public struct RenderedPicture: Sendable {
    /// The outline, ink 255 on 0, at the rasteriser's size.
    public var raster: GrayImage
    /// The colour picture as a PNG with transparency, fitted like the raster.
    public var thumbnailPNG: [UInt8]
    /// The width of the picture's ink box over its height.
    public var aspect: Double
}

/// A picture drawn in colour, cropped to its ink box, for placing on a canvas.
public struct PicturePNG: Sendable {
    /// PNG bytes with transparency.
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
}

/// Where a picture's ink lies on its page, in the page's own units (an SVG's pixels or viewBox).
public struct PictureExtent: Sendable, Equatable {
    public var pageWidth: Double
    public var pageHeight: Double
    /// The box of the pixels that differ from white.
    public var ink: Rect
}

/// Why a picture cannot be rendered.
public struct PictureError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Reason: String, Sendable, CaseIterable, Codable {
        /// Not a file the renderer can read (broken XML, not SVG, not an image, empty file).
        case unreadable = "unreadable"
        /// No usable width, height or viewBox.
        case noSize = "no usable size"
        /// Nothing visible: no pixel differs from white.
        case blank = "nothing visible"
        /// The renderer failed while drawing.
        case renderFailed = "render failed"
    }

    public var reason: Reason
    public var detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}
