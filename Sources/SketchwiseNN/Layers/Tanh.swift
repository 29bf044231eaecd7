import Foundation

/// `tanh`: the hyperbolic tangent of every value (as Keras' `activation: "tanh"`). Not folded.
struct Tanh: ElementwiseLayer {
    static let typeName = "tanh"

    static func apply(_ x: Float) -> Float { Foundation.tanh(x) }
}
