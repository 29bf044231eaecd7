import Foundation

/// Softmax, for turning logits into probabilities.
public enum Softmax {
    /// `exp(x − max x) / Σ exp(x − max x)`.
    public static func probabilities(_ logits: [Float]) -> [Float] {
        [Float](unsafeUninitializedCapacity: logits.count) { buffer, initialized in
            logits.withUnsafeBufferPointer { apply($0, into: buffer) }
            initialized = logits.count
        }
    }

    /// Writes the softmax of `input` into `output` (same count; may be the same memory).
    public static func apply(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        let count = min(input.count, output.count)
        guard count > 0 else { return }
        var largest = -Float.infinity
        for i in 0..<count { largest = max(largest, input[i]) }
        var sum: Float = 0
        for i in 0..<count {
            let e = Foundation.exp(input[i] - largest)
            output[i] = e
            sum += e
        }
        let scale = 1 / sum
        for i in 0..<count { output[i] *= scale }
    }
}
