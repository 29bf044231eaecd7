/// Reductions over the time axis of a `[T, C]` sequence → `[C]` (sumtime, meantime, maxtime).
enum TimeReduction: Sendable {
    case sum, mean, max

    func apply(input: UnsafePointer<Float>, length: Int, channels: Int, output: UnsafeMutablePointer<Float>) {
        output.update(from: input, count: channels)
        for t in 1..<Swift.max(length, 1) {
            let row = input + t * channels
            switch self {
            case .sum, .mean: for c in 0..<channels { output[c] += row[c] }
            case .max: for c in 0..<channels { output[c] = Swift.max(output[c], row[c]) }
            }
        }
        if self == .mean {
            let scale = 1 / Float(length)
            for c in 0..<channels { output[c] *= scale }
        }
    }
}
