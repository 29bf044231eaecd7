/// `lstm`: `[T, in]` → `[T, H]`, or `[T, 2H]` when bidirectional (forward then backward state per
/// step, as PyTorch); zero initial state. Weights `weightIH`, `weightHH`, `biasIH`, `biasHH`, and the
/// same with `Reverse` for the backward direction; the biases are optional.
struct LSTM: Layer {
    struct Params: Decodable {
        let inputSize, hiddenSize: Int
        var bidirectional: Bool? = false
    }

    static let typeName = "lstm"
    let weights: LSTMWeights

    init(weights: LSTMWeights) { self.weights = weights }

    /// This layer with its products in int8 (``DensePrecision/int8``).
    func quantized() -> LSTM { LSTM(weights: weights.quantized()) }

    init(params p: Params, weights: LayerWeights) throws {
        try requireParams(["inputSize": p.inputSize, "hiddenSize": p.hiddenSize], atLeast: 1)
        let (n, h) = (p.inputSize, p.hiddenSize)
        let zeros = [Float](repeating: 0, count: 4 * h)
        self.weights = LSTMWeights(
            inputSize: n, hiddenSize: h,
            pytorch: try (p.bidirectional == true ? ["", "Reverse"] : [""]).map { suffix in
                (
                    try weights.require("weightIH" + suffix, shape: [4 * h, n]),
                    try weights.require("weightHH" + suffix, shape: [4 * h, h]),
                    try weights.optional("biasIH" + suffix, shape: [4 * h]) ?? zeros,
                    try weights.optional("biasHH" + suffix, shape: [4 * h]) ?? zeros
                )
            })
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 2, "a sequence [T, C]")
        try inputs[0].require(axis: 1, is: weights.inputSize, "input features")
        return .sequence(length: inputs[0][0], channels: weights.outputWidth)
    }

    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int {
        LSTMKernel.scratchCount(weights, length: inputs[0][0])
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        LSTMKernel.fast(weights, input: inputs[0].data, length: inputs[0].shape[0], output: output.data, scratch: scratch)
    }
}
