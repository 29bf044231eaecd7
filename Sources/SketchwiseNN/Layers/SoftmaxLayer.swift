/// `softmax` on a vector.
struct SoftmaxLayer: Layer {
    static let typeName = "softmax"

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 1, "a vector")
        return inputs[0]
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        Softmax.apply(UnsafeBufferPointer(inputs[0].buffer), into: output.buffer)
    }
}
