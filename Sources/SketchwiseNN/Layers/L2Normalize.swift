/// `l2normalize`: `x / max(‖x‖, ε)` on a vector (as `F.normalize`).
struct L2Normalize: Layer {
    struct Params: Decodable {
        var epsilon: Double? = 1e-12
    }

    static let typeName = "l2normalize"
    let epsilon: Float

    init(params: Params, weights: LayerWeights) throws {
        let epsilon = params.epsilon ?? 1e-12
        guard epsilon >= 0, epsilon.isFinite else { throw LayerProblem(.params, "epsilon must be finite and ≥ 0, is \(epsilon)") }
        self.epsilon = Float(epsilon)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 1, "a vector")
        return inputs[0]
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (x, y, count) = (inputs[0].data, output.data, output.shape.count)
        var sum: Float = 0
        for i in 0..<count { sum += x[i] * x[i] }
        let scale = 1 / max(sum.squareRoot(), epsilon)
        for i in 0..<count { y[i] = x[i] * scale }
    }
}
