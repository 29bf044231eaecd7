import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseNN
import SketchwisePersonal
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
            "test/<file>.png training/<file>.png"). Each image's ink is thinned to lines one pixel wide \
            and traced into strokes, embedded like a drawing, and each test image classified by its \
            nearest training image.

            --open-set measures when the shortcut classifier answers, as the server sets it up (unknown \
            as the embedding's calibration says, when it carries one): each episode teaches it \
            --ways labels and asks one more drawing of each and one of each of --ways other labels. \
            It prints, for 1, 3 and 5 examples (and --shots), the share of taught drawings answered \
            rightly and of untaught ones answered unknown. --misfires N: before those questions the \
            person draws N other drawings of the untaught labels and undoes every shortcut that fires \
            on one, which keeps it as a misfire (as Undo does in the app).

            --unseen leaves out the labels the embedding was trained on and those its calibration \
            was chosen on (training.labels and training.validationLabels of its spec).
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

    @Flag(help: "Leave out the labels the embedding model was trained or calibrated on (see above).")
    var unseen = false

    @Flag(help: "Measure taught drawings answered rightly and untaught ones answered unknown (see above).")
    var openSet = false

    @Option(help: "With --open-set: earlier drawings of the untaught labels per episode, undone when a shortcut fires (see above).")
    var misfires = 0

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        guard [input, data, runs].compactMap({ $0 }).count == 1 else { throw ValidationError("give one of DIR, --data DIR or --runs PATH") }
        guard ways >= 2, shots >= 1, (1...1_000_000).contains(episodes), perLabel > shots else {
            throw ValidationError("--ways must be at least 2, --shots at least 1, --episodes within 1…1000000, --per-label above --shots")
        }
        guard (0...1000).contains(misfires), misfires == 0 || openSet else {
            throw ValidationError("--misfires takes 0…1000, with --open-set")
        }
    }

    func run() throws {
        let recognizers = try modelOptions.load()
        let raster = try embedding.map { try recognizers.model(named: $0) } ?? recognizers.shortcutEmbedding
        if let runs { return try evaluate(runs: runs, embedder: raster) }
        let trained = unseen ? raster.model.spec.trainedLabels.union(raster.model.spec.validationLabels) : []
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
        if openSet { return try measureOpenSet(items, embedder: raster) }
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
        guard case .raster = embedder.model.spec.input.kind else { throw ValidationError("\(embedder.name) does not read images") }
        let runs = try OneShotRuns(path: path)
        let (accuracy, queries) = try runs.accuracy { bytes in
            try embedder.embedding(StrokeSketch(strokes: InkTracer.strokes(in: try BitmapRasterizer.inkImage(bytes))))
        }
        let ways = runs.runs.map { run in run.images.keys.count { $0.hasPrefix("training/") } }.max() ?? 0
        if json {
            try printJSON(RunsResult(accuracy: accuracy, episodes: runs.runs.count, ways: ways, shots: 1, queries: queries))
        } else {
            print(String(format: "%d runs, %d-way 1-shot: %.1f %% of %d test images", runs.runs.count, ways, accuracy * 100, queries))
        }
    }

    /// The open-set table at 1, 3 and 5 examples (and --shots).
    func measureOpenSet(_ items: [(label: String, embedding: [Float])], embedder: ModelRecognizer) throws {
        struct OpenSetTable: Encodable {
            let calibrated: Bool
            let rows: [FewShotEvaluation.OpenSetResult]
        }
        let configuration = try NearestNeighborClassifier.Configuration().calibrated(for: embedder.model)
        let rows = try Set([1, 3, 5, shots]).sorted().map { examples in
            try FewShotEvaluation.openSet(
                items: items, ways: ways, shots: examples, episodes: episodes, seed: seed, configuration: configuration,
                misfireDrawings: misfires)
        }
        if json { return try printJSON(OpenSetTable(calibrated: !configuration.unknownDistances.isEmpty, rows: rows)) }
        print(
            configuration.unknownDistances.isEmpty
                ? "unknown past cosine distance \(configuration.unknownDistance) (\(embedder.name) carries no calibration)"
                : "unknown past cosine distances \(configuration.unknownDistances) for 1, 2, … examples (\(embedder.name)'s calibration)")
        print("examples  taught answered rightly  untaught answered unknown")
        for row in rows {
            print(String(format: "%8d  %21.1f %%  %23.1f %%", row.shots, row.knownCorrect * 100, row.unknownRejected * 100))
        }
        print("(\(ways)-way episodes, \(episodes) of each)")
        if misfires > 0 {
            let undone = rows.map { String(format: "%.2f", $0.misfiresUndone) }.joined(separator: " / ")
            print("(before the questions, \(misfires) other drawings of the untaught labels; misfires undone per episode: \(undone))")
        }
    }
}
