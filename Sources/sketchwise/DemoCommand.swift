import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseCore
import SketchwiseFormats
import SketchwisePreprocess
import SketchwiseRaster

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show the pipeline on a sample drawing: read, simplify, render 28×28, export SVG and PNG."
    )

    @Argument(help: "A drawing file (the first drawing is used).", completion: .file())
    var input = "Examples/sample-house.ndjson"

    @Option(help: "Folder for the exported files.")
    var out = "out/demo"

    func run() async throws {
        var first: LabeledDrawing?
        try DrawingSource(path: input).forEach(onError: { throw $0 }) { drawing in
            if first == nil { first = drawing }
        }
        guard let drawing = first, case let .strokes(record) = drawing.content else {
            throw ValidationError("\(input) holds no stroke drawing")
        }
        let simplified = try GoogleSimplifier().simplify(record.drawing)
        let image = try DrawingRenderer(size: 28).render(drawing)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let paths = ["svg": "\(out)/sketch.svg", "png": "\(out)/sketch.png", "raster": "\(out)/raster-28.png"]
        try record.drawing.svgDocument().write(toFile: paths["svg"]!, atomically: true, encoding: .utf8)
        try record.drawing.writeDisplayPNG(to: paths["png"]!)
        try image.inverted.writePNG(to: paths["raster"]!)
        print(
            "\(drawing.label): \(record.drawing.strokes.count) strokes, \(record.drawing.pointCount) points raw → \(simplified.pointCount) simplified"
        )
        print(image.asciiArt)
        print("wrote \(paths["svg"]!), \(paths["png"]!), \(paths["raster"]!)")
    }
}

extension GrayImage {
    /// The image as text, two characters per pixel, darker characters for more ink.
    var asciiArt: String {
        let ramp = Array(" .:-=+*#%@")
        return (0..<height).map { y in
            String(
                (0..<width).flatMap { x -> [Character] in
                    let c = ramp[Int(self[x, y]) * (ramp.count - 1) / 255]
                    return [c, c]
                })
        }.joined(separator: "\n")
    }
}
