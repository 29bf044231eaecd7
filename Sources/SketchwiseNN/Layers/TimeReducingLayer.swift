/// What `sumtime`, `meantime` and `maxtime` share: `[T, C]` → `[C]`.
protocol TimeReducingLayer: Layer where Params == NoParams {
    static var reduction: TimeReduction { get }
    init()
}

extension TimeReducingLayer {
    init(params: NoParams, weights: LayerWeights) { self.init() }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 2, "a sequence [T, C]")
        return .vector(inputs[0][1])
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let x = inputs[0].shape
        Self.reduction.apply(input: inputs[0].data, length: x[0], channels: x[1], output: output.data)
    }
}
