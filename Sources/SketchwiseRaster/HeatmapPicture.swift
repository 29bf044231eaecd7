import CCairo
import SketchwiseCore

/// A matrix drawn as a heat map (white 0 … dark blue 1) with a title, axis labels when there are
/// few enough rows to read them, and lines of notes beside it — for confusion matrices and
/// similarity maps.
public struct HeatmapPicture: Sendable {
    public var title: String
    /// Rows of values in 0…1 (values outside are clamped).
    public var values: [[Double]]
    public var rowLabels: [String]
    public var columnLabels: [String]
    /// Text lines printed to the right of the map (for example the largest confusions).
    public var notes: [String]
    /// Pictures (ink 255 on 0) of the rows of a square map, shown on both axes, such as the
    /// drawings of a similarity map; used when there is one per row.
    public var thumbnails: [GrayImage]

    public init(
        title: String, values: [[Double]], rowLabels: [String] = [], columnLabels: [String] = [], notes: [String] = [],
        thumbnails: [GrayImage] = []
    ) {
        self.title = title
        self.values = values
        self.rowLabels = rowLabels
        self.columnLabels = columnLabels
        self.notes = notes
        self.thumbnails = thumbnails
    }

    /// Writes the picture as PNG; cells are `cellSize` pixels square.
    public func writePNG(to path: String, cellSize: Int? = nil) throws(RasterError) {
        let rows = values.count, columns = values.first?.count ?? 0
        guard rows > 0, columns > 0, values.allSatisfy({ $0.count == columns }) else {
            throw RasterError("a heat map needs a non-empty rectangular matrix")
        }
        let cell = Double(cellSize ?? max(2, min(24, 900 / max(rows, columns))))
        let showLabels = cell >= 10 && rowLabels.count == rows && columnLabels.count == columns
        let showThumbnails = cell >= 16 && rows == columns && thumbnails.count == rows
        let labelSpace = (showLabels ? 140.0 : 20.0) + (showThumbnails ? cell + 4 : 0)
        let mapWidth = cell * Double(columns), mapHeight = cell * Double(rows)
        let notesWidth = notes.isEmpty ? 0.0 : 420.0
        let width = Int(labelSpace + mapWidth + 20 + notesWidth), height = Int(60 + labelSpace + mapHeight + 20)
        try ChartSurface.draw(width: width, height: height, title: title, to: path) { cr in
            let left = labelSpace, top = 60 + labelSpace
            for (r, row) in values.enumerated() {
                for (c, raw) in row.enumerated() {
                    let v = min(1, max(0, raw.isFinite ? raw : 0))
                    cairo_set_source_rgb(cr, 1 - 0.9 * v, 1 - 0.75 * v, 1 - 0.45 * v)
                    cairo_rectangle(cr, left + Double(c) * cell, top + Double(r) * cell, cell, cell)
                    cairo_fill(cr)
                }
            }
            cairo_set_source_rgb(cr, 0.6, 0.6, 0.6)
            cairo_set_line_width(cr, 1)
            cairo_rectangle(cr, left, top, mapWidth, mapHeight)
            cairo_stroke(cr)
            cairo_set_source_rgb(cr, 0, 0, 0)
            if showLabels {
                cairo_set_font_size(cr, min(12, cell * 0.8))
                for (r, label) in rowLabels.enumerated() {
                    cairo_move_to(cr, 4, top + (Double(r) + 0.75) * cell)
                    cairo_show_text(cr, String(label.prefix(20)))
                }
                for (c, label) in columnLabels.enumerated() {
                    cairo_save(cr)
                    cairo_move_to(cr, left + (Double(c) + 0.75) * cell, top - 4 - (showThumbnails ? cell + 4 : 0))
                    cairo_rotate(cr, -Double.pi / 2)
                    cairo_show_text(cr, String(label.prefix(20)))
                    cairo_restore(cr)
                }
            }
            if showThumbnails {
                for (i, image) in thumbnails.enumerated() {
                    let along = Double(i) * cell
                    Self.draw(image, on: cr, x: left - cell - 2, y: top + along, side: cell)
                    Self.draw(image, on: cr, x: left + along, y: top - cell - 2, side: cell)
                }
            }
            cairo_set_font_size(cr, 12)
            for (i, line) in notes.enumerated() {
                cairo_move_to(cr, left + mapWidth + 20, top + 14 + Double(i) * 16)
                cairo_show_text(cr, line)
            }
        }
    }

    /// Draws a grayscale picture (ink 255 on 0) as dark ink on white into a square.
    private static func draw(_ image: GrayImage, on cr: OpaquePointer, x: Double, y: Double, side: Double) {
        guard image.width > 0, image.height > 0,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(image.width), Int32(image.height))
        else { return }
        defer { cairo_surface_destroy(surface) }
        let stride = Int(cairo_image_surface_get_stride(surface)) / 4
        let pixels = UnsafeMutableRawPointer(cairo_image_surface_get_data(surface)!).assumingMemoryBound(to: UInt32.self)
        for row in 0..<image.height {
            for column in 0..<image.width {
                let v = UInt32(255 - image.pixels[row * image.width + column])
                pixels[row * stride + column] = v << 16 | v << 8 | v
            }
        }
        cairo_surface_mark_dirty(surface)
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, side / Double(image.width), side / Double(image.height))
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }
}
