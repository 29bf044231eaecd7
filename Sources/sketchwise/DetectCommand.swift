import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseScenes

extension SceneDetectorOptions.Mode: ExpressibleByArgument {}

/// The options of a scene detector, shared by `detect` and `scenes-eval`.
struct SceneOptions: ParsableArguments {
    @Option(
        help: "stream: each scene is replayed stroke by stroke and objects keep tracking IDs; single: the whole canvas at once, no IDs.")
    var mode: SceneDetectorOptions.Mode = .stream

    @Option(help: "Most objects per scene (the largest are kept).")
    var maxObjects = 5

    @Flag(help: "Only the most prominent (largest) object.")
    var singleObject = false

    @Option(help: "Labels below this confidence (0…1) are left out.")
    var threshold: Float = 0

    @Option(help: "Most labels per object.")
    var maxLabels = 10

    func validate() throws {
        guard maxObjects >= 1, maxLabels >= 1 else { throw ValidationError("--max-objects and --max-labels must be at least 1") }
        guard (0...1).contains(threshold) else { throw ValidationError("--threshold must be within 0…1") }
    }

    var detectorOptions: SceneDetectorOptions {
        SceneDetectorOptions(
            mode: mode, multipleObjects: !singleObject, maxObjects: maxObjects,
            classificationConfidenceThreshold: threshold, maxLabelsPerObject: maxLabels)
    }
}

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find the objects of each scene: frame, tracking ID and labels.",
        discussion: """
            Each drawing of the input is one scene: all the strokes of a canvas, in drawing order, in \
            any coordinate range. Strokes are grouped into objects by space and drawing order \
            (docs/scenes.md); each object is boxed and classified. In stream mode the scene is \
            replayed stroke by stroke, as it was drawn, and the objects of its final state are printed \
            with their tracking IDs. An image (PNG, JPEG, GIF, WebP, BMP: a photo or scan of a \
            drawing) is binarised, its connected marks found and nearby ones merged; frames are in pixels.
            """
    )

    @OptionGroup var input: InputOptions
    @OptionGroup var scene: SceneOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var language: LanguageOptions

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp) (default: ensemble)."))
    var model: RecognizerKind?

    @Flag(
        help:
            "One JSON line per scene: {\"objects\": [{\"frame\": {\"x\", \"y\", \"width\", \"height\"}, \"trackingID\", \"labels\": [{\"text\", \"confidence\", \"index\", \"display\"}]}]}."
    )
    var json = false

    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp", "bmp"]

    func run() throws {
        let recognizers = try modelOptions.load()
        let recognizer = try recognizers.recognizer(model ?? .ensemble)
        let embedder = try recognizers.raster
        let names = language.namer()
        if Self.imageExtensions.contains((input.input as NSString).pathExtension.lowercased()) {
            guard let data = FileManager.default.contents(atPath: input.input) else {
                throw ValidationError("\(input.input): cannot read it")
            }
            let image = try BitmapRasterizer.inkImage([UInt8](data))
            let detector = try SceneDetector(options: scene.detectorOptions, recognizer: recognizer, embedder: embedder)
            return try report(try detector.detect(image), origin: input.input, names: names)
        }
        let policy = input.policy
        try input.source().forEach(onError: policy.skip) { drawing in
            guard case let .strokes(record) = drawing.content else {
                throw ValidationError("\(drawing.origin): a bitmap; detect reads stroke scenes")
            }
            let detector = try SceneDetector(options: scene.detectorOptions, recognizer: recognizer, embedder: embedder)
            try report(try detector.detectReplaying(record.drawing), origin: drawing.origin, names: names)
        }
    }

    /// Prints one scene's objects, their labels named in the chosen language: a JSON line, or a
    /// line per object.
    func report(_ objects: [DetectedObject], origin: String, names: Namer) throws {
        let objects = objects.map { $0.named(by: names.name(of:)) }
        if json { return try printJSON(SceneObjects(objects: objects)) }
        print("\(origin): \(objects.count) object\(objects.count == 1 ? "" : "s")")
        for object in objects {
            let id = object.trackingID.map { "#\($0) " } ?? ""
            let labels = object.labels.prefix(3).map { label in
                "\(NamedGuess.shown(label.text, as: label.display ?? label.text)) \(String(format: "%.2f", label.confidence))"
            }.joined(separator: ", ")
            let f = object.frame
            print("  \(id)[\(Int(f.minX)), \(Int(f.minY)), \(Int(f.width))×\(Int(f.height))] \(labels)")
        }
    }
}

struct ScenesEvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes-eval",
        abstract: "Measure scene detection on scenes composed from real drawings.",
        discussion: """
            Each scene holds 1–5 validation drawings of different classes, scaled to 150–300 units on \
            a 1000 × 1000 canvas, placed apart at random, drawn stroke by stroke (sometimes one object \
            interrupted by another, sometimes one moved at the end). A stream-mode detector follows \
            every stroke; the final canvas is labelled. Prints detection precision and recall at \
            IoU ≥ 0.5, the top-1 accuracy of matched objects' labels and ID switches per 100 frames.
            """
    )

    @Option(help: "A drawing file or folder (Quick, Draw! ndjson); its validation drawings are used.")
    var data: String

    @Option(help: "How many scenes.")
    var scenes = 200

    @Option(help: "The random seed of the scenes.")
    var seed: UInt64 = 1

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp) (default: ensemble)."))
    var model: RecognizerKind?

    @Flag(help: "Print one JSON object: {\"precision\", \"recall\", \"label_top1\", \"id_switches_per_100\", \"scenes\", …}.")
    var json = false

    func validate() throws {
        guard (1...100_000).contains(scenes) else { throw ValidationError("--scenes must be within 1…100000") }
    }

    func run() throws {
        let recognizers = try modelOptions.load()
        let pool = try SceneEvaluation.validationDrawings(data)
        guard !pool.isEmpty else { throw ValidationError("\(data) holds no validation stroke drawings") }
        let report = try SceneEvaluation.run(
            pool: pool, scenes: scenes, seed: seed, recognizer: try recognizers.recognizer(model ?? .ensemble),
            embedder: try recognizers.raster
        ) { done in StandardError.progress("scene \(done)/\(scenes)") }
        StandardError.progress("")
        if json { return try printJSON(report) }
        print(
            """
            \(report.scenes) scenes, \(report.objects) objects, \(report.frames) frames (\(pool.count) validation drawings of \(data))
            detection: precision \(String(format: "%.3f", report.precision)), recall \(String(format: "%.3f", report.recall)) (IoU ≥ 0.5)
            labels: top-1 \(String(format: "%.3f", report.labelTop1)) of matched objects
            tracking: \(report.idSwitches) ID switches, \(String(format: "%.2f", report.idSwitchesPer100)) per 100 frames
            """)
    }
}
