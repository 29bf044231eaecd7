import Foundation
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseTestSupport
import Testing

/// The bundled models on the validation split of the shared data (drawings they never trained
/// on). The floors sit a little below the measured figures in Models/MODEL_CARD.md, so a
/// regression in preprocessing, runtime or export shows here.
@Suite(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
struct BundledAccuracyTests {
    let models = try! RecognizerSet.load(from: SharedData.packageRoot.appendingPathComponent("Models"))

    @Test func ensembleOnValidationRawStrokes() throws {
        let (report, counts) = try Evaluation.run(
            source: DrawingSource(path: SharedData.quickDraw("raw").path), recognizers: models, kind: nil,
            subset: .validation, policy: BadInputPolicy(skipBad: false), prefixes: [0.5, 0.75])
        print("ensemble, validation raw strokes: n=\(report.n) top-1 \(report.top1) top-3 \(report.top3) top-5 \(report.top5)")
        #expect(report.model == "ensemble")
        #expect(report.n > 1000)
        #expect(report.top1 >= 0.69 && report.top3 >= 0.85 && report.top5 >= 0.895)
        // The app guesses after every stroke: top-1 after half and three quarters of each drawing's strokes.
        let prefixTop1 = Dictionary(uniqueKeysWithValues: (report.prefixes ?? []).map { ($0.prefix, $0.top1) })
        print("ensemble, validation raw strokes cut to a share of their strokes, top-1: \(prefixTop1)")
        #expect(try #require(prefixTop1[0.5]) >= 0.445 && (try #require(prefixTop1[0.75])) >= 0.64)
        #expect(counts.counts.joined().reduce(0, +) == report.n)
    }

    /// One model alone: the stroke model, and the raster model that the fast mode (`--model raster`) runs.
    @Test(arguments: [
        (RecognizerKind.strokes, [0.51, 0.70, 0.76]),
        (RecognizerKind.raster, [0.64, 0.80, 0.86]),
    ])
    func modelAloneOnValidationRawStrokes(kind: RecognizerKind, floors: [Double]) throws {
        let (report, _) = try Evaluation.run(
            source: DrawingSource(path: SharedData.quickDraw("raw").path), recognizers: models, kind: kind,
            subset: .validation, policy: BadInputPolicy(skipBad: false))
        print("\(kind), validation raw strokes: n=\(report.n) top-1 \(report.top1) top-3 \(report.top3) top-5 \(report.top5)")
        #expect(report.model == "\(kind)")
        #expect(report.top1 >= floors[0] && report.top3 >= floors[1] && report.top5 >= floors[2])
    }

    @Test func ensembleOnValidationBitmaps() throws {
        let folder = TemporaryFolder()
        let (report, counts) = try Evaluation.run(
            source: DrawingSource(path: SharedData.quickDraw("bitmap").path), recognizers: models, kind: nil,
            subset: .validation, policy: BadInputPolicy(skipBad: false))
        print("ensemble (its members that read bitmaps), validation bitmaps: n=\(report.n) top-1 \(report.top1)")
        #expect(report.model == "ensemble")
        #expect(report.perClass.count == 42)
        #expect(report.top1 >= 0.85)
        try counts.picture(title: "test").writePNG(to: folder.path("confusion.png"))
        #expect(FileManager.default.fileExists(atPath: folder.path("confusion.png")))
    }
}
