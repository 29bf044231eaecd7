import Foundation

/// `tanh`: the hyperbolic tangent of every value (as Keras' `activation: "tanh"`). Not folded.
struct Tanh: Layer {
    static let typeName = "tanh"

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape { inputs[0] }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (x, y) = (inputs[0].data, output.data)
        for i in 0..<output.shape.count { y[i] = Foundation.tanh(x[i]) }
    }
}
