/// `add`: two or more inputs of one shape → their elementwise sum (a residual connection).
struct Add: Layer {
    static let typeName = "add"
    static let inputCount = 2...Int.max

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        for input in inputs.dropFirst() where input != inputs[0] {
            throw LayerProblem(.layerShape, "adds inputs of one shape, got \(inputs[0]) and \(input)")
        }
        return inputs[0]
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (y, count) = (output.data, output.shape.count)
        let (a, b) = (inputs[0].data, inputs[1].data)
        for i in 0..<count { y[i] = a[i] + b[i] }
        for input in inputs.dropFirst(2) {
            let x = input.data
            for i in 0..<count { y[i] += x[i] }
        }
    }
}
