import Dispatch
import Foundation
import SketchwiseCore
import SketchwiseNN
import SketchwiseRecognition

/// Latency and throughput of the recognisers on real sketches (build with `-c release`).
public struct ModelBenchmark: Sendable, Codable {
    public struct Figures: Sendable, Codable {
        public var model: String
        /// The model files timed, so that a comparison can check it timed the same weights.
        public var files: [TimedModel]
        /// Milliseconds per sketch on one thread, from strokes to guesses (simplify, render or
        /// encode, infer once per view of each model, softmax).
        public var p50WithPreprocessing: Double
        public var p99WithPreprocessing: Double
        /// Milliseconds per prepared input tensor on one thread (inference alone: one run of
        /// each model, whatever its views).
        public var p50Inference: Double
        public var p99Inference: Double
        /// Sketches per second, strokes to guesses, with `threads` threads in parallel.
        public var throughput: Double
        public var threads: Int
        /// Sequence models only: milliseconds per inference on one fixed input of the model's
        /// maximum length (`fixedLength` rows: the prepared sketches' rows concatenated in order,
        /// cut there), for comparisons at a known T.
        public var fixedLength: Int? = nil
        public var p50InferenceFixedLength: Double? = nil
        public var p99InferenceFixedLength: Double? = nil
    }

    public var sketches: Int
    public var figures: [Figures]
    /// The instruction set the runtime's kernels ran with, and the widest this CPU runs.
    public var kernels = KernelVariant.current
    public var widestKernels = KernelVariant.bestSupported
    /// How the models' products computed, and whether int8 ones used VNNI.
    public var densePrecision = DensePrecision.float32
    public var int8UsesVNNI = KernelVariant.int8UsesVNNI

    /// Times each recogniser of `kinds` over `sketches` (each timed `rounds` times).
    public static func run(
        recognizers: RecognizerSet, kinds: [RecognizerKind] = RecognizerKind.roles, sketches: [StrokeSketch], rounds: Int = 3,
        threads: Int = 2
    ) throws -> ModelBenchmark {
        var figures: [Figures] = []
        for kind in kinds {
            let recognizer = try recognizers.recognizer(kind)
            for sketch in sketches.prefix(20) { _ = try recognizer.logProbabilities(sketch) }  // warm up
            var endToEnd: [Double] = []
            for _ in 0..<rounds {
                for sketch in sketches {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try recognizer.classify(sketch, top: 5)
                    endToEnd.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
            }
            let inference = try inferenceTimes(recognizer.members, sketches: sketches, rounds: rounds)
            let throughput = try parallelThroughput(recognizer, sketches: sketches, threads: threads)
            var entry = Figures(
                model: kind.rawValue, files: try recognizer.members.map(TimedModel.init), p50WithPreprocessing: percentile(endToEnd, 0.5),
                p99WithPreprocessing: percentile(endToEnd, 0.99), p50Inference: percentile(inference, 0.5),
                p99Inference: percentile(inference, 0.99), throughput: throughput, threads: threads)
            if recognizer.members.count == 1, let fixed = try fixedLengthTimes(recognizer.members[0], sketches: sketches, rounds: rounds) {
                entry.fixedLength = fixed.length
                entry.p50InferenceFixedLength = percentile(fixed.times, 0.5)
                entry.p99InferenceFixedLength = percentile(fixed.times, 0.99)
            }
            figures.append(entry)
        }
        return ModelBenchmark(sketches: sketches.count, figures: figures, densePrecision: recognizers.densePrecision)
    }

    /// Inference alone: the members' sessions run on inputs prepared beforehand.
    private static func inferenceTimes(_ members: [ModelRecognizer], sketches: [StrokeSketch], rounds: Int) throws -> [Double] {
        let prepared = try members.map { member in try sketches.map { try member.modelInput(for: $0) } }
        let sessions = members.map { $0.model.makeSession() }
        var times: [Double] = []
        for _ in 0..<rounds {
            for i in sketches.indices {
                let start = DispatchTime.now().uptimeNanoseconds
                for (m, session) in sessions.enumerated() {
                    try prepared[m][i].values.withUnsafeBufferPointer { input in
                        try session.run(input: input, shape: prepared[m][i].shape) { _ in }
                    }
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        return times
    }

    /// Inference alone on one input of the model's maximum length: the rows of the prepared
    /// sketches concatenated in order and cut at `maxLength` (nil when they are fewer).
    private static func fixedLengthTimes(_ member: ModelRecognizer, sketches: [StrokeSketch], rounds: Int) throws -> (
        length: Int, times: [Double]
    )? {
        guard let length = member.model.maxLength else { return nil }
        let channels = member.model.inputShape[1]
        var rows: [Float] = []
        for sketch in sketches where rows.count < length * channels {
            rows += try member.modelInput(for: sketch).values
        }
        guard rows.count >= length * channels else { return nil }
        rows.removeLast(rows.count - length * channels)
        let session = member.model.makeSession()
        let shape = Shape.sequence(length: length, channels: channels)
        var times: [Double] = []
        try rows.withUnsafeBufferPointer { input in
            for _ in 0..<10 { try session.run(input: input, shape: shape) { _ in } }  // warm up
            for _ in 0..<rounds * max(100, sketches.count / 2) {
                let start = DispatchTime.now().uptimeNanoseconds
                try session.run(input: input, shape: shape) { _ in }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        return (length, times)
    }

    private static func parallelThroughput(_ recognizer: SketchRecognizer, sketches: [StrokeSketch], threads: Int) throws -> Double {
        let failures = ResultSlots<Bool>(count: threads)
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            var ok = true
            for i in stride(from: worker, to: sketches.count, by: threads) {
                if (try? recognizer.classify(sketches[i], top: 5)) == nil { ok = false }
            }
            failures[worker] = !ok
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if failures.values.contains(true) { throw RecognitionError("a sketch failed during the throughput run") }
        return Double(sketches.count) / seconds
    }

    /// The `p` quantile (0…1) of `values`, nearest rank; 0 for no values.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
    }
}
