import Dispatch
import Foundation
import SketchwiseNN

/// Inference latency of one model file on one thread (build with `-c release`): one session run
/// over and over on a fixed pseudo-random input of the model's input shape (values in -1…1), so
/// that any model times alike, photo classifiers included.
public struct ModelFileBenchmark: Sendable, Codable {
    public var model: String
    public var inputShape: [Int]
    public var runs: Int
    /// Milliseconds per inference.
    public var p50Inference: Double
    public var p99Inference: Double
    public var minInference: Double
    /// The instruction set the runtime's kernels ran with.
    public var kernels = KernelVariant.current
    /// How its products computed, and whether int8 ones used VNNI.
    public var densePrecision: DensePrecision
    public var int8UsesVNNI = KernelVariant.int8UsesVNNI

    /// Times `runs` inferences of `model` after 3 untimed ones.
    public static func run(model: Model, runs: Int) throws -> ModelFileBenchmark {
        var state: UInt64 = 20
        let input = (0..<model.inputShape.count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        }
        let session = model.makeSession()
        var times: [Double] = []
        try input.withUnsafeBufferPointer { input in
            for _ in 0..<3 { try session.run(input: input) { _ in } }
            for _ in 0..<max(runs, 1) {
                let start = DispatchTime.now().uptimeNanoseconds
                try session.run(input: input) { _ in }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        return ModelFileBenchmark(
            model: model.spec.name, inputShape: model.inputShape.dims, runs: times.count,
            p50Inference: ModelBenchmark.percentile(times, 0.5), p99Inference: ModelBenchmark.percentile(times, 0.99),
            minInference: times.min() ?? 0, densePrecision: model.densePrecision)
    }
}
