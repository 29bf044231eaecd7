/// `relu`: `max(x, 0)`. Folded into a preceding conv or dense.
struct ReLU: Layer {
    static let typeName = "relu"

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape { inputs[0] }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (x, y) = (inputs[0].data, output.data)
        for i in 0..<output.shape.count { y[i] = max(x[i], 0) }
    }
}
