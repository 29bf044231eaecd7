import CCairo

/// Vectors drawn as bar charts, one strip per vector, one bar per component, on a shared scale —
/// for comparing the embedding activations of several drawings.
public struct ActivationsPicture: Sendable {
    public var title: String
    /// One name per vector, printed at the left of its strip.
    public var names: [String]
    public var vectors: [[Float]]

    public init(title: String, names: [String], vectors: [[Float]]) {
        self.title = title
        self.names = names
        self.vectors = vectors
    }

    /// Writes the picture as PNG.
    public func writePNG(to path: String) throws(RasterError) {
        guard !vectors.isEmpty, names.count == vectors.count, let length = vectors.first?.count, length > 0,
              vectors.allSatisfy({ $0.count == length })
        else { throw RasterError("an activations picture needs one name per vector and vectors of one non-zero length") }
        let barWidth = max(1.0, min(6.0, 1200.0 / Double(length)))
        let stripHeight = 80.0, nameSpace = 180.0, top = 50.0
        let width = Int(nameSpace + barWidth * Double(length) + 20), height = Int(top + stripHeight * Double(vectors.count) + 20)
        let largest = vectors.joined().filter(\.isFinite).map(abs).max() ?? 0
        let scale = largest > 0 ? Double(stripHeight - 16) / Double(largest) : 0
        let title = "\(title) (\(length) components, largest |value| \(largest))"
        try ChartSurface.draw(width: width, height: height, title: title, to: path) { cr in
            for (index, vector) in vectors.enumerated() {
                let baseline = top + stripHeight * Double(index + 1) - 8
                cairo_set_source_rgb(cr, 0, 0, 0)
                cairo_move_to(cr, 8, baseline - stripHeight / 2 + 8)
                cairo_show_text(cr, String(names[index].suffix(26)))
                cairo_set_source_rgb(cr, 0.8, 0.8, 0.8)
                cairo_rectangle(cr, nameSpace, baseline, barWidth * Double(length), 1)
                cairo_fill(cr)
                cairo_set_source_rgb(cr, 0.15, 0.35, 0.7)
                for (i, value) in vector.enumerated() where value.isFinite {
                    let h = Double(value) * scale
                    cairo_rectangle(cr, nameSpace + Double(i) * barWidth, baseline - max(h, 0), max(1, barWidth - 0.5), abs(h))
                }
                cairo_fill(cr)
            }
        }
    }
}
