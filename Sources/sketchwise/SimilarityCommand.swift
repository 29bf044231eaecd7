import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwisePreprocess
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseSuggestions

struct SimilarityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similarity",
        abstract: "Compare drawings and pictures by the raster model's embedding.",
        discussion: """
        Each INPUT is a picture (SVG, PNG, JPEG, GIF, WebP), reduced to its outline like the \
        library's pictures, or a drawing file in any supported format (its first --per-file \
        drawings). Prints the pairwise cosine distances (1 − cosine similarity); --heatmap draws \
        them with each item's 28×28 model input on both axes, --histogram draws every item's \
        embedding activations.
        """
    )

    @Argument(help: "Pictures and drawing files.", completion: .file())
    var inputs: [String]

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Drawings taken from each drawing file.")
    var perFile = 4

    @Option(help: "Write the distance heat map here (PNG).")
    var heatmap: String?

    @Option(help: "Write the embedding activations here (PNG).")
    var histogram: String?

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one picture or drawing file") }
        guard (1...100).contains(perFile) else { throw ValidationError("--per-file must be within 1…100") }
    }

    func run() throws {
        let raster = try modelOptions.load().raster
        var items: [(name: String, image: GrayImage)] = []
        for path in inputs {
            items += try Self.images(of: path, perFile: perFile, rasterizer: SketchRasterizer(size: 28))
        }
        guard items.count <= 200 else { throw ValidationError("\(items.count) items; compare at most 200") }
        let embeddings = try items.map { try raster.embedding($0.image) }
        let distances = embeddings.map { a in embeddings.map { b in 1 - (SuggestionRanker.cosine(a, b) ?? 0) } }
        for (item, row) in zip(items, distances) {
            print(row.map { String(format: "%.3f", $0) }.joined(separator: " ") + "  " + item.name)
        }
        let names = items.map(\.name)
        if let heatmap {
            try HeatmapPicture(
                title: "Cosine distance of raster-CNN embeddings (dark = different)", values: distances,
                rowLabels: names, columnLabels: names, thumbnails: items.map(\.image)
            ).writePNG(to: heatmap, cellSize: max(28, min(64, 900 / max(1, items.count))))
            StandardError.print("wrote \(heatmap)")
        }
        if let histogram {
            try ActivationsPicture(title: "Embedding activations", names: names, vectors: embeddings).writePNG(to: histogram)
            StandardError.print("wrote \(histogram)")
        }
    }

    /// The 28×28 model inputs of one input path: a picture's outline or the renders of drawings.
    static func images(of path: String, perFile: Int, rasterizer: SketchRasterizer) throws -> [(name: String, image: GrayImage)] {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let lower = path.lowercased()
        if [".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp"].contains(where: lower.hasSuffix) {
            guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("\(path): cannot be read") }
            let bytes = [UInt8](data)
            let picture = BitmapRasterizer.looksLikeImage(bytes)
                ? try BitmapRasterizer(size: rasterizer.size).render(bytes) : try SVGRasterizer(size: rasterizer.size).render(bytes)
            return [(name, picture.raster)]
        }
        var found: [(String, GrayImage)] = []
        try DrawingSource(path: path).forEach(onError: { throw $0 }) { drawing in
            guard found.count < perFile else { return }
            switch drawing.content {
            case let .bitmap(image): found.append(("\(drawing.label) \(found.count + 1)", image))
            case let .strokes(record):
                let simplified = try GoogleSimplifier().simplifiedIfNeeded(record.drawing)
                found.append(("\(drawing.label) \(found.count + 1)", rasterizer.render(simplified)))
            }
        }
        return found
    }
}
