import ArgumentParser
import Foundation
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseNN
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseShortcuts

struct FewShotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fewshot",
        abstract: "Measure how well the shortcut embedding learns new drawings from a few examples.",
        discussion: """
            Embeds up to --per-label drawings of every label in DIR (--data DIR, or DIR alone; any \
            drawing format: Quick, Draw! files or folders, Omniglot stroke files or zips, whose labels \
            are alphabet/character), then runs --episodes N-way K-shot episodes: each draws --ways labels, --shots examples of each \
            and one query, and classifies the queries by their nearest prototype (the mean of a \
            label's examples). Prints the accuracy; --json gives accuracy, episodes, ways, shots.

            --runs PATH runs one-shot episodes stored in the Omniglot layout instead: a folder or zip \
            of runNN/ folders with training/*.png, test/*.png and class_labels.txt (lines \
            "test/<file>.png training/<file>.png"). Each image is drawn as a picture outline, like \
            library pictures, and each test image classified by its nearest training image.

            --open-set calibrates the shortcut classifier's unknown threshold instead: each episode \
            teaches it --ways labels and asks one more drawing of each and one of each of --ways \
            other labels. It prints, per cosine-distance threshold, the share of known drawings \
            answered rightly and of others wrongly accepted, and the threshold with the best balance.
            """
    )

    @Argument(help: "A drawing file or a folder of drawing files (or give --data).", completion: .file())
    var input: String?

    @Option(help: "The drawings (the same as the argument).", completion: .file())
    var data: String?

    @Option(help: "Omniglot-layout one-shot runs: a folder or .zip of runNN/ folders (see above).", completion: .file())
    var runs: String?

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "Labels per episode (N).")
    var ways = 5

    @Option(help: "Examples per label (K).")
    var shots = 3

    @Option(help: "Episodes to run.")
    var episodes = 1000

    @Option(help: "Seed of the episodes' draws.")
    var seed: UInt64 = 1

    @Option(help: "Drawings embedded per label at most.")
    var perLabel = 20

    @Option(help: "The embedding model: a model of the models folder (default: sketch-embedding, else raster-cnn).")
    var embedding: String?

    @Flag(help: "Leave out the labels the embedding model was trained on (its spec's training.labels).")
    var unseen = false

    @Flag(help: "Calibrate the unknown threshold on open-set episodes (see above).")
    var openSet = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard [input, data, runs].compactMap({ $0 }).count == 1 else { throw ValidationError("give one of DIR, --data DIR or --runs PATH") }
        guard ways >= 2, shots >= 1, (1...1_000_000).contains(episodes), perLabel > shots else {
            throw ValidationError("--ways must be at least 2, --shots at least 1, --episodes within 1…1000000, --per-label above --shots")
        }
    }

    func run() throws {
        let recognizers = try modelOptions.load()
        let raster = try embedding.map { try recognizers.model(named: $0) } ?? recognizers.shortcutEmbedding
        if let runs { return try evaluate(runs: runs, embedder: raster) }
        let trained = unseen ? raster.model.spec.trainedLabels : []
        if unseen, trained.isEmpty { throw ValidationError("--unseen: model \(raster.name) lists no training.labels") }
        var items: [(label: String, embedding: [Float])] = []
        var counts: [String: Int] = [:]
        let report = try forEachDrawing(
            in: try DrawingSource(path: (input ?? data)!), policy: BadInputPolicy(skipBad: false) { _ in },
            progress: { StandardError.progress("embedded \($0) drawings") }
        ) { drawing in
            guard counts[drawing.label, default: 0] < perLabel, !trained.contains(drawing.label) else { return }
            let embedding: [Float]
            switch drawing.content {
            case let .strokes(record): embedding = try raster.embedding(record.drawing)
            case let .bitmap(image): embedding = try raster.embedding(image)
            }
            counts[drawing.label, default: 0] += 1
            items.append((drawing.label, embedding))
        }
        StandardError.summary("embedded", report)
        guard !items.isEmpty else {
            throw ValidationError(
                unseen ? "no drawings left: \(raster.name) was trained on every label of the input (--unseen)" : "no drawings in the input")
        }
        if openSet { return try calibrate(items) }
        let result = try FewShotEvaluation.run(items: items, ways: ways, shots: shots, episodes: episodes, seed: seed)
        if json {
            try printJSON(result)
        } else {
            print(
                String(
                    format: "%d-way %d-shot: %.1f %% of %d queries (%d episodes, %d labels with %d+ drawings)",
                    ways, shots, result.accuracy * 100, episodes * ways, episodes, result.eligibleLabels, shots + 1))
        }
    }

    struct RunsResult: Encodable { let accuracy: Double, episodes: Int, ways: Int, shots: Int, queries: Int }

    /// Accuracy on Omniglot-layout runs of PNG images.
    func evaluate(runs path: String, embedder: ModelRecognizer) throws {
        guard case let .raster(raster) = embedder.model.spec.input.kind else {
            throw ValidationError("\(embedder.name) does not read images")
        }
        let rasterizer = try BitmapRasterizer(size: raster.size)
        let runs = try OneShotRuns(path: path)
        let (accuracy, queries) = try runs.accuracy { bytes in try embedder.embedding(try rasterizer.render(bytes).raster) }
        let ways = runs.runs.map { run in run.images.keys.count { $0.hasPrefix("training/") } }.max() ?? 0
        if json {
            try printJSON(RunsResult(accuracy: accuracy, episodes: runs.runs.count, ways: ways, shots: 1, queries: queries))
        } else {
            print(String(format: "%d runs, %d-way 1-shot: %.1f %% of %d test images", runs.runs.count, ways, accuracy * 100, queries))
        }
    }

    /// The open-set table and the threshold with the best balanced accuracy.
    func calibrate(_ items: [(label: String, embedding: [Float])]) throws {
        struct Calibration: Encodable {
            let points: [FewShotEvaluation.OpenSetPoint]
            let recommended: Float
            let ways: Int, shots: Int, episodes: Int
        }
        let thresholds = stride(from: Float(0.025), through: 0.8, by: 0.025).map { ($0 * 1000).rounded() / 1000 }
        let points = try FewShotEvaluation.openSet(
            items: items, ways: ways, shots: shots, episodes: episodes, seed: seed,
            configuration: NearestNeighborClassifier.Configuration(), thresholds: thresholds)
        let best = points.max { ($0.knownCorrect - $0.unknownAccepted) < ($1.knownCorrect - $1.unknownAccepted) }!
        if json {
            try printJSON(Calibration(points: points, recommended: best.threshold, ways: ways, shots: shots, episodes: episodes))
            return
        }
        print("threshold  known answered rightly  others accepted")
        for point in points {
            print(String(format: "%9.3f  %22.1f %%  %13.1f %%", point.threshold, point.knownCorrect * 100, point.unknownAccepted * 100))
        }
        print(
            String(
                format: "best balance at %.3f: %.1f %% of known drawings right, %.1f %% of others accepted",
                best.threshold, best.knownCorrect * 100, best.unknownAccepted * 100))
    }
}
