import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseNN
import SketchwiseRecognition

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (build with -c release): preprocessing throughput and recogniser latency.",
        discussion: """
            Times Google simplification and 28×28 rendering of real drawings held in memory (one core, \
            medians over rounds), then, when models are found, each recogniser's (or --model's) single-sketch latency \
            (p50/p99 at 1 thread, with and without preprocessing) and its throughput on 2 threads. With --model-file, \
            times only that model's inference on a fixed input (any model, photo classifiers too).
            """
    )

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: ArgumentHelp("\(ModelOptions.modelHelp) (default: raster, strokes and ensemble in turn)."))
    var model: RecognizerKind?

    @Flag(help: "Only the preprocessing benchmark.")
    var preprocessingOnly = false

    @Option(help: "How many sketches to time the recognisers on.")
    var modelSketches = 300

    @Option(help: "Drawings to time: a file or folder (raw Quick, Draw! strokes are the realistic input).")
    var data: String?

    @Option(
        help: "Time only this model (NAME.json beside NAME.safetensors): p50/p99 of --rounds × 10 inferences at 1 thread on a fixed input.")
    var modelFile: String?

    @Option(help: "How many drawings to load at most.")
    var limit = 2000

    @Option(help: "Timed passes; the median is reported.")
    var rounds = 5

    @Option(
        help:
            "Run the runtime's kernels for this instruction set (\(KernelVariant.allCases.map(\.rawValue).joined(separator: ", "))) instead of the widest this CPU runs."
    )
    var kernels: KernelVariant?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard data != nil || modelFile != nil else { throw ValidationError("--data is needed (or --model-file)") }
        if let kernels, !kernels.isSupported {
            throw ValidationError(
                "this CPU cannot run the \(kernels.rawValue) kernels (the widest it runs: \(KernelVariant.bestSupported.rawValue))")
        }
    }

    func run() async throws {
        #if DEBUG
            StandardError.print("warning: this is a debug build; speed figures are meaningless (use swift run -c release)")
        #endif
        kernels?.force()
        if let modelFile {
            return try benchmark(Model(contentsOf: URL(fileURLWithPath: modelFile), densePrecision: modelOptions.densePrecision))
        }
        guard let data else { return }
        let source = try DrawingSource(path: data)
        let result = try PreprocessBenchmark.run(source: source, limit: limit, rounds: rounds)
        var models: ModelBenchmark?
        if !preprocessingOnly {
            var sketches: [StrokeSketch] = []
            try source.forEach(onError: { _ in }) { drawing in
                if sketches.count < modelSketches, case let .strokes(record) = drawing.content, !record.drawing.isEmpty {
                    sketches.append(record.drawing)
                }
            }
            models = try ModelBenchmark.run(
                recognizers: try modelOptions.load(), kinds: model.map { [$0] } ?? RecognizerKind.roles, sketches: sketches)
        }
        if json {
            struct Report: Encodable { var preprocessing: PreprocessBenchmark; var models: ModelBenchmark? }
            print(String(decoding: try JSONEncoder().encode(Report(preprocessing: result, models: models)), as: UTF8.self))
        } else {
            print("preprocessing, 1 thread, \(result.drawings) drawings, median of \(result.rounds) rounds:")
            print("  simplify           \(Int(result.simplifyPerSecond)) drawings/s")
            print("  render 28×28       \(Int(result.renderPerSecond)) drawings/s")
            print("  simplify + render  \(Int(result.simplifyAndRenderPerSecond)) drawings/s")
            if let models {
                print(
                    "recognisers, \(models.sketches) sketches, \(models.kernels.rawValue) kernels (the widest this CPU runs: \(models.widestKernels.rawValue)), \(Self.products(models.densePrecision, vnni: models.int8UsesVNNI)); latency in ms at 1 thread (p50 / p99):"
                )
                for f in models.figures {
                    print(
                        "  \(f.model.padding(toLength: max(9, f.model.count), withPad: " ", startingAt: 0)) with preprocessing \(String(format: "%.3f / %.3f", f.p50WithPreprocessing, f.p99WithPreprocessing))   inference only \(String(format: "%.3f / %.3f", f.p50Inference, f.p99Inference))   throughput \(Int(f.throughput)) sketches/s on \(f.threads) threads"
                    )
                }
                for file in Dictionary(models.figures.flatMap(\.files).map { ($0.spec, $0) }, uniquingKeysWith: { a, _ in a }).values
                    .sorted(by: { $0.spec < $1.spec })
                {
                    print("  timed \(file.name): \(file.spec), weights SHA-256 \(file.sha256)")
                }
            }
        }
    }

    /// "float32 products", "int8 products (VNNI)", or what auto chose on this CPU.
    private static func products(_ precision: DensePrecision, vnni: Bool) -> String {
        switch precision {
        case .auto: "auto products (" + (vnni ? "int8 with VNNI; raster-cnn and sketch-embedding float32)" : "float32: no VNNI)")
        case .int8: "int8 products" + (vnni ? " (VNNI)" : "")
        case .float32: "float32 products"
        }
    }

    private func benchmark(_ model: Model) throws {
        let result = try ModelFileBenchmark.run(model: model, runs: rounds * 10)
        if json {
            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        } else {
            print(
                "\(result.model) \(model.inputShape), \(result.runs) inferences at 1 thread, \(result.kernels.rawValue) kernels, "
                    + "\(Self.products(result.densePrecision, vnni: result.int8UsesVNNI)): "
                    + String(format: "p50 %.2f ms, p99 %.2f ms, min %.2f ms", result.p50Inference, result.p99Inference, result.minInference)
            )
        }
    }
}
