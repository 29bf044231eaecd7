/// `depthwise_conv2d`: `[C, H, W]` → `[C, H', W']`, one `k×k` filter per channel (PyTorch's conv2d
/// with `groups = C`; weights `[C, 1, k, k]`), zero padding as `conv2d`'s (`Padding2D`). A following
/// batchnorm and relu or relu6 are folded in (`FoldingLayer`); `DepthwiseKernel` computes it.
///
/// A layer of its own rather than a `groups` param of `conv2d`: none of conv2d's paths (im2col +
/// sgemm, Winograd, pooling) fits one filter per channel, and other group counts are not needed.
struct DepthwiseConv2D: FoldingLayer {
    struct Params: Decodable {
        let channels, kernel: Int
        var stride: Int?
        var padding: Padding2D?
    }

    static let typeName = "depthwise_conv2d"
    let outputChannels: Int
    let rows, columns: Window
    /// `[C, k·k]`.
    let weight: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation

    init(params p: Params, weights: LayerWeights) throws {
        let stride = p.stride ?? 1
        try requireParams(["channels": p.channels, "kernel": p.kernel, "stride": stride], atLeast: 1)
        outputChannels = p.channels
        (rows, columns) = try (p.padding ?? Padding2D(all: 0)).windows(kernel: p.kernel, stride: stride)
        weight = FloatBuffer(try weights.require("weight", shape: [p.channels, 1, p.kernel, p.kernel]))
        bias = try Self.readBias(weights, count: p.channels)
        activation = .none
    }

    private init(_ other: DepthwiseConv2D, weight: FloatBuffer, bias: FloatBuffer, activation: Activation) {
        (outputChannels, rows, columns) = (other.outputChannels, other.rows, other.columns)
        (self.weight, self.bias, self.activation) = (weight, bias, activation)
    }

    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> DepthwiseConv2D {
        DepthwiseConv2D(self, weight: weight, bias: bias, activation: activation)
    }

    func geometry(_ input: Shape) -> DepthwiseGeometry {
        DepthwiseGeometry(channels: input[0], height: input[1], width: input[2], rows: rows, columns: columns)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 3, "an image [C, H, W]")
        try inputs[0].require(axis: 0, is: outputChannels, "channels")
        let g = geometry(inputs[0])
        guard g.outHeight > 0, g.outWidth > 0 else {
            throw LayerProblem(.layerShape, "input \(inputs[0]) is smaller than the \(rows.kernel)×\(rows.kernel) kernel")
        }
        return .image(channels: outputChannels, height: g.outHeight, width: g.outWidth)
    }

    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int { geometry(inputs[0]).scratchCount }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        DepthwiseKernel.forward(
            geometry(inputs[0].shape), input: inputs[0].data, weight: weight.base, bias: bias.base, activation: activation,
            output: output.data, scratch: scratch)
    }
}
