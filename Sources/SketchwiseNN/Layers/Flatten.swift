/// `flatten`: any value → a vector, C order (as `torch.flatten`).
struct Flatten: Layer {
    static let typeName = "flatten"

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape { .vector(inputs[0].count) }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        output.data.update(from: inputs[0].data, count: output.shape.count)
    }
}
