/// `concat`: two or more vectors → one vector, in `inputs` order.
struct Concat: Layer {
    static let typeName = "concat"
    static let inputCount = 2...Int.max

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        var total = 0
        for input in inputs {
            try input.require(rank: 1, "vectors")
            total += input.count
        }
        return .vector(total)
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        var destination = output.data
        for input in inputs {
            destination.update(from: input.data, count: input.shape.count)
            destination += input.shape.count
        }
    }
}
