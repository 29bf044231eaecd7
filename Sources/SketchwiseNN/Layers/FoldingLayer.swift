/// A layer computing `act(W·x + b)` with one weight row and one bias per output channel (conv2d,
/// depthwise_conv2d, conv1d, dense). A batchnorm and then a relu or relu6 that read only its output
/// are folded into it at load.
protocol FoldingLayer: Layer {
    var outputChannels: Int { get }
    /// One row per output channel.
    var weight: FloatBuffer { get }
    var bias: FloatBuffer { get }
    var activation: Activation { get }
    /// The same layer with other weights and activation.
    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> Self
}

extension FoldingLayer {
    func fused(with next: any Layer) -> (any Layer)? { folded(with: next) }

    /// This layer with `next` folded in, if `next` is a batchnorm of its channels or a relu or relu6.
    func folded(with next: any Layer) -> Self? {
        guard activation == .none else { return nil }
        if let norm = next as? BatchNorm, norm.channels == outputChannels {
            let rowLength = weight.count / outputChannels
            var newWeight = weight.array, newBias = bias.array
            for o in 0..<outputChannels {
                for i in 0..<rowLength { newWeight[o * rowLength + i] *= norm.scale[o] }
                newBias[o] = newBias[o] * norm.scale[o] + norm.shift[o]
            }
            return with(weight: FloatBuffer(newWeight), bias: FloatBuffer(newBias), activation: .none)
        }
        return Activation(folding: next).map { with(weight: weight, bias: bias, activation: $0) }
    }

    /// The optional `bias` tensor, zeros when the spec lists none.
    static func readBias(_ weights: LayerWeights, count: Int) throws -> FloatBuffer {
        FloatBuffer(try weights.optional("bias", shape: [count]) ?? [Float](repeating: 0, count: count))
    }
}
