/// A sliding window along one axis (used on both axes of 2-D layers): no dilation, zero padding
/// before the first position and after the last (different for TensorFlow's "same" padding).
struct Window: Sendable, Equatable {
    let kernel: Int
    let stride: Int
    /// Zeros before the first position.
    let padding: Int
    /// Zeros after the last position.
    let paddingEnd: Int

    init(kernel: Int, stride: Int, padding: Int, paddingEnd: Int? = nil) {
        (self.kernel, self.stride, self.padding, self.paddingEnd) = (kernel, stride, padding, paddingEnd ?? padding)
    }

    /// Output positions for `size` input positions (floor); ≤ 0 if the input is too small.
    func outputSize(_ size: Int) -> Int {
        let span = size + padding + paddingEnd - kernel
        return span < 0 ? 0 : span / stride + 1
    }

    /// The output positions whose tap `tap` (0..<kernel) falls inside `0..<size`.
    func validOutputs(tap: Int, size: Int, outputs: Int) -> Range<Int> {
        // out·stride − padding + tap ∈ 0..<size
        let low = max(0, (padding - tap + stride - 1) / stride)
        let last = size - 1 + padding - tap
        let high = last < 0 ? 0 : min(outputs, last / stride + 1)
        return low < high ? low..<high : 0..<0
    }
}
