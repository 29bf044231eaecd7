import Foundation

/// `batchnorm` (inference): `y = (x − mean) / √(variance + ε) · γ + β` on the channel axis (`C` of
/// `[C, H, W]` and `[T, C]`, or each element of a vector). Folded into a preceding conv or dense.
struct BatchNorm: Layer {
    struct Params: Decodable {
        let channels: Int
        var epsilon: Double? = 1e-5
    }

    static let typeName = "batchnorm"
    let channels: Int
    /// `γ / √(variance + ε)` and `β − mean · scale` per channel.
    let scale, shift: FloatBuffer

    init(params p: Params, weights: LayerWeights) throws {
        try requireParams(["channels": p.channels], atLeast: 1)
        let epsilon = p.epsilon ?? 1e-5
        guard epsilon >= 0, epsilon.isFinite else { throw LayerProblem(.params, "epsilon must be finite and ≥ 0, is \(epsilon)") }
        channels = p.channels
        let shape = [p.channels]
        let gamma = try weights.require("gamma", shape: shape), beta = try weights.require("beta", shape: shape)
        let mean = try weights.require("mean", shape: shape), variance = try weights.require("variance", shape: shape)
        var scale = [Float](repeating: 0, count: channels), shift = scale
        for c in 0..<channels {
            let spread = Double(variance[c]) + epsilon
            guard spread > 0 else { throw LayerProblem(.nonFinite, "variance + epsilon of channel \(c) is \(spread), must be positive") }
            let s = Double(gamma[c]) / spread.squareRoot()
            scale[c] = Float(s)
            shift[c] = Float(Double(beta[c]) - Double(mean[c]) * s)
        }
        self.scale = FloatBuffer(scale)
        self.shift = FloatBuffer(shift)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        let x = inputs[0]
        try x.require(axis: x.rank == 2 ? 1 : 0, is: channels, "channels")
        return x
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (x, y, shape) = (inputs[0].data, output.data, output.shape)
        let (scale, shift) = (self.scale.base, self.shift.base)
        switch shape.rank {
        case 2:
            for t in 0..<shape[0] {
                for c in 0..<channels { y[t * channels + c] = x[t * channels + c] * scale[c] + shift[c] }
            }
        default:
            let plane = shape.count / channels
            for c in 0..<channels {
                let (s, b) = (scale[c], shift[c])
                for i in c * plane ..< (c + 1) * plane { y[i] = x[i] * s + b }
            }
        }
    }
}
