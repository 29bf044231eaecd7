/// `conv1d` over a sequence: `[T, C]` → `[T', O]`, zero padding at both ends; im2col + sgemm.
/// PyTorch's `[O, C, k]` weights are reordered to `[O, k, C]` at load.
struct Conv1D: FoldingLayer {
    typealias Params = ConvolutionParams<Int>

    static let typeName = "conv1d"
    let inChannels, outputChannels: Int
    let window: Window
    /// `[O, k, C]`.
    let weight: FloatBuffer
    /// `weight` transposed, `[k·C, O]`: what the sgemm reads.
    let gemmWeight: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation

    init(params p: Params, weights: LayerWeights) throws {
        let (stride, padding) = (p.stride ?? 1, p.padding ?? 0)
        try requireParams(["inChannels": p.inChannels, "outChannels": p.outChannels, "kernel": p.kernel, "stride": stride], atLeast: 1)
        try requireParams(["padding": padding], atLeast: 0)
        inChannels = p.inChannels
        outputChannels = p.outChannels
        window = Window(kernel: p.kernel, stride: stride, padding: padding)
        let pytorchWeight = try weights.require("weight", shape: [p.outChannels, p.inChannels, p.kernel])
        let packed = Conv1DKernel.pack(weight: pytorchWeight, outChannels: p.outChannels, channels: p.inChannels, kernel: p.kernel)
        weight = FloatBuffer(packed)
        gemmWeight = FloatBuffer(Conv1DKernel.transposed(packed: packed, outChannels: p.outChannels))
        bias = try Self.readBias(weights, count: p.outChannels)
        activation = .none
    }

    private init(_ other: Conv1D, weight: FloatBuffer, bias: FloatBuffer, activation: Activation) {
        (inChannels, outputChannels, window) = (other.inChannels, other.outputChannels, other.window)
        (self.weight, self.bias, self.activation) = (weight, bias, activation)
        gemmWeight = FloatBuffer(Conv1DKernel.transposed(packed: weight.array, outChannels: other.outputChannels))
    }

    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> Conv1D {
        Conv1D(self, weight: weight, bias: bias, activation: activation)
    }

    func geometry(_ input: Shape) -> Conv1DGeometry {
        Conv1DGeometry(length: input[0], channels: input[1], outChannels: outputChannels, window: window)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 2, "a sequence [T, C]")
        try inputs[0].require(axis: 1, is: inChannels, "channels")
        let g = geometry(inputs[0])
        guard g.outLength > 0 else {
            throw LayerProblem(.layerShape, "sequence \(inputs[0]) is shorter than the kernel \(window.kernel)")
        }
        return .sequence(length: g.outLength, channels: outputChannels)
    }

    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int { geometry(inputs[0]).scratchCount }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let g = geometry(inputs[0].shape)
        Conv1DKernel.gemm(g, input: inputs[0].data, weight: gemmWeight.base, output: output.data, scratch: scratch)
        Epilogue.biasPerColumn(output.data, rows: g.outLength, columns: outputChannels, bias: bias.base, activation: activation)
    }
}
