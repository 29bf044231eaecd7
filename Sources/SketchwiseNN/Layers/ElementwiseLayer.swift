/// A parameterless layer that maps every value on its own (same shape in and out): ReLU, tanh.
protocol ElementwiseLayer: Layer where Params == NoParams {
    init()
    /// The layer's function of one value.
    static func apply(_ x: Float) -> Float
}

extension ElementwiseLayer {
    init(params: NoParams, weights: LayerWeights) { self.init() }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape { inputs[0] }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (x, y) = (inputs[0].data, output.data)
        for i in 0..<output.shape.count { y[i] = Self.apply(x[i]) }
    }
}
