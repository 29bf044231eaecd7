/// `conv2d`: `[C, H, W]` → `[O, H', W']`, zero padding on all sides; im2col + sgemm.
struct Conv2D: FoldingLayer {
    struct Params: Decodable {
        let inChannels, outChannels, kernel: Int
        var stride: Int? = 1
        var padding: Int? = 0
    }

    static let typeName = "conv2d"
    let inChannels, outputChannels: Int
    let window: Window
    /// `[O, C, k, k]`.
    let weight: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation

    init(params p: Params, weights: LayerWeights) throws {
        let (stride, padding) = (p.stride ?? 1, p.padding ?? 0)
        try requireParams(["inChannels": p.inChannels, "outChannels": p.outChannels, "kernel": p.kernel, "stride": stride], atLeast: 1)
        try requireParams(["padding": padding], atLeast: 0)
        inChannels = p.inChannels
        outputChannels = p.outChannels
        window = Window(kernel: p.kernel, stride: stride, padding: padding)
        weight = FloatBuffer(try weights.require("weight", shape: [p.outChannels, p.inChannels, p.kernel, p.kernel]))
        bias = try Self.readBias(weights, count: p.outChannels)
        activation = .none
    }

    private init(_ other: Conv2D, weight: FloatBuffer, bias: FloatBuffer, activation: Activation) {
        (inChannels, outputChannels, window) = (other.inChannels, other.outputChannels, other.window)
        (self.weight, self.bias, self.activation) = (weight, bias, activation)
    }

    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> Conv2D {
        Conv2D(self, weight: weight, bias: bias, activation: activation)
    }

    func geometry(_ input: Shape) -> Conv2DGeometry {
        Conv2DGeometry(channels: input[0], height: input[1], width: input[2], outChannels: outputChannels, window: window)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 3, "an image [C, H, W]")
        try inputs[0].require(axis: 0, is: inChannels, "channels")
        let g = geometry(inputs[0])
        guard g.outHeight > 0, g.outWidth > 0 else {
            throw LayerProblem(.layerShape, "input \(inputs[0]) is smaller than the \(window.kernel)×\(window.kernel) kernel")
        }
        return .image(channels: outputChannels, height: g.outHeight, width: g.outWidth)
    }

    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int { geometry(inputs[0]).scratchCount }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let g = geometry(inputs[0].shape)
        Conv2DKernel.gemm(g, input: inputs[0].data, weight: weight.base, output: output.data, scratch: scratch)
        Epilogue.biasPerRow(output.data, rows: outputChannels, columns: g.outHeight * g.outWidth, bias: bias.base, activation: activation)
    }
}
