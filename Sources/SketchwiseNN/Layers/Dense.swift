/// `dense`: `y = W·x + b` on a vector. A program runs it as a ``SparseInputDense``, which skips
/// the zero inputs.
struct Dense: FoldingLayer {
    struct Params: Decodable {
        let inFeatures, outFeatures: Int
    }

    static let typeName = "dense"
    let inFeatures, outputChannels: Int
    /// `[out, in]`.
    let weight: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation

    init(params p: Params, weights: LayerWeights) throws {
        try requireParams(["inFeatures": p.inFeatures, "outFeatures": p.outFeatures], atLeast: 1)
        inFeatures = p.inFeatures
        outputChannels = p.outFeatures
        weight = FloatBuffer(try weights.require("weight", shape: [p.outFeatures, p.inFeatures]))
        bias = try Self.readBias(weights, count: p.outFeatures)
        activation = .none
    }

    private init(_ other: Dense, weight: FloatBuffer, bias: FloatBuffer, activation: Activation) {
        (inFeatures, outputChannels) = (other.inFeatures, other.outputChannels)
        (self.weight, self.bias, self.activation) = (weight, bias, activation)
    }

    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> Dense {
        Dense(self, weight: weight, bias: bias, activation: activation)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try Self.outputShape(for: inputs, inFeatures: inFeatures, outFeatures: outputChannels)
    }

    /// The output shape of a dense layer, or of its int8 or sparse-input form.
    static func outputShape(for inputs: UnsafeBufferPointer<Shape>, inFeatures: Int, outFeatures: Int) throws -> Shape {
        try inputs[0].require(rank: 1, "a vector (flatten first)")
        try inputs[0].require(axis: 0, is: inFeatures, "features")
        return .vector(outFeatures)
    }

    func planned(for inputs: UnsafeBufferPointer<Shape>) -> any Layer { SparseInputDense(self) }

    /// One output at a time: only a layer outside a program runs this (the reference in tests).
    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let (w, x) = (weight.base, inputs[0].data)
        for o in 0..<outputChannels {
            var sum: Float = 0
            for p in 0..<inFeatures { sum += w[o * inFeatures + p] * x[p] }
            output.data[o] = sum
        }
        Epilogue.biasPerColumn(output.data, rows: 1, columns: outputChannels, bias: bias.base, activation: activation)
    }
}
