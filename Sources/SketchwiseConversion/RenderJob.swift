import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwisePreprocess
import SketchwiseRaster

/// Renders every drawing of a source to N×N grayscale with Google's bitmap recipe: stroke
/// drawings are Google-simplified first (as Google's bitmaps were made from simplified
/// drawings) unless they already are; bitmaps pass through when they have the requested size.
public enum RenderJob {
    public enum Output: Sendable {
        /// One `(n, N·N)` uint8 `.npy` file, like Google's `numpy_bitmap`, plus
        /// `<name>.labels.txt` with each row's class.
        case npy(String)
        /// PNG files `<folder>/<class>/<index>.png`.
        case pngFolder(String)
    }

    public static func run(
        source: DrawingSource, size: Int, output: Output, invert: Bool = false,
        policy: BadInputPolicy, progress: (Int) -> Void = { _ in }
    ) throws -> BatchReport {
        let renderer = try DrawingRenderer(size: size)
        var npy: NPYRowWriter?
        var labels = ""
        var perClassIndex: [String: Int] = [:]
        if case let .npy(path) = output { npy = try NPYRowWriter(path: path, rowLength: size * size) }
        let report = try forEachDrawing(in: source, policy: policy, progress: progress) { drawing in
            var image = try renderer.render(drawing)
            if invert { image = image.inverted }
            switch output {
            case .npy:
                try npy?.append(image.pixels)
                labels += drawing.label + "\n"
            case let .pngFolder(folder):
                let classFolder = (folder as NSString).appendingPathComponent(drawing.label.replacingOccurrences(of: "/", with: "_"))
                try? FileManager.default.createDirectory(atPath: classFolder, withIntermediateDirectories: true)
                let index = perClassIndex[drawing.label, default: 0]
                perClassIndex[drawing.label] = index + 1
                let path = (classFolder as NSString).appendingPathComponent(String(format: "%05d.png", index))
                do { try image.writePNG(to: path) } catch { throw FormatError(file: path, reason: "\(error)") }
            }
        }
        if case let .npy(path) = output, let npy {
            try npy.finish()
            let labelsPath = (path as NSString).deletingPathExtension + ".labels.txt"
            do { try labels.write(toFile: labelsPath, atomically: true, encoding: .utf8) } catch {
                throw FormatError(file: labelsPath, reason: "cannot write labels: \(error.localizedDescription)")
            }
        }
        return report
    }
}

/// One drawing of any kind to an N×N image by Google's recipe (see ``RenderJob``).
public final class DrawingRenderer {
    private let rasterizer: SketchRasterizer
    private let simplifier = GoogleSimplifier()

    public init(size: Int) throws(FormatError) {
        do { rasterizer = try SketchRasterizer(size: size) } catch {
            throw FormatError(file: "--size", reason: "\(error)")
        }
    }

    public func render(_ drawing: LabeledDrawing) throws(FormatError) -> GrayImage {
        switch drawing.content {
        case let .bitmap(image):
            guard image.width == rasterizer.size, image.height == rasterizer.size else {
                throw FormatError(
                    file: drawing.origin,
                    reason: "a \(image.width)×\(image.height) bitmap cannot be rendered at \(rasterizer.size)×\(rasterizer.size)")
            }
            return image
        case let .strokes(record):
            do {
                let sketch = try simplifier.simplifiedIfNeeded(record.drawing)
                return rasterizer.render(sketch)
            } catch {
                throw FormatError(file: drawing.origin, reason: "\(error)")
            }
        }
    }
}
