/// `conv2d`: `[C, H, W]` → `[O, H', W']`, zero padding (`Padding2D`: the same on all sides, or
/// per side); im2col + sgemm, or Winograd F(2×2, 3×3) or F(4×4, 3×3) for 3×3 stride-1 kernels over
/// 4 or more channels (`WinogradKernel`, chosen when the program is planned). A following
/// batchnorm and relu or relu6 are folded in (`FoldingLayer`), and so is a following `maxpool2d`:
/// the epilogue then pools, adds the bias and applies the activation in one pass over the sgemm's
/// result (`max(x) + b` and `act(max(x + b))` are `max(x + b)` and `max(act(x + b))`, as both
/// activations are non-decreasing).
struct Conv2D: FoldingLayer {
    typealias Params = ConvolutionParams<Padding2D>

    static let typeName = "conv2d"
    let inChannels, outputChannels: Int
    /// The vertical and horizontal windows (the same but for their padding).
    let rows, columns: Window
    /// `[O, C, k, k]`.
    let weight: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation
    /// The window of a folded-in max pooling.
    let pool: Window?
    /// The Winograd tile and `[(tile + 2)², C, O]` transformed filters, once planned for inputs
    /// that `WinogradKernel` computes.
    let winograd: (tile: Int, filters: FloatBuffer)?

    init(params p: Params, weights: LayerWeights) throws {
        let stride = p.stride ?? 1
        try requireParams(["inChannels": p.inChannels, "outChannels": p.outChannels, "kernel": p.kernel, "stride": stride], atLeast: 1)
        inChannels = p.inChannels
        outputChannels = p.outChannels
        (rows, columns) = try (p.padding ?? Padding2D(all: 0)).windows(kernel: p.kernel, stride: stride)
        weight = FloatBuffer(try weights.require("weight", shape: [p.outChannels, p.inChannels, p.kernel, p.kernel]))
        bias = try Self.readBias(weights, count: p.outChannels)
        activation = .none
        pool = nil
        winograd = nil
    }

    private init(
        _ other: Conv2D, weight: FloatBuffer, bias: FloatBuffer, activation: Activation, pool: Window?,
        winograd: (tile: Int, filters: FloatBuffer)? = nil
    ) {
        (inChannels, outputChannels, rows, columns) = (other.inChannels, other.outputChannels, other.rows, other.columns)
        (self.weight, self.bias, self.activation, self.pool, self.winograd) = (weight, bias, activation, pool, winograd)
    }

    /// Whether inputs of geometry `g` can go through `WinogradKernel` (which pools only 2×2/2 itself).
    private func suitsWinograd(_ g: Conv2DGeometry) -> Bool {
        WinogradKernel.applies(to: g) && (pool == nil || pool == Window(kernel: 2, stride: 2, padding: 0))
    }

    /// Whether this input goes through `WinogradKernel`.
    private func usesWinograd(_ g: Conv2DGeometry) -> Bool { winograd != nil && suitsWinograd(g) }

    /// With the Winograd tile for the planned input and the filters transformed for it.
    func planned(for inputs: UnsafeBufferPointer<Shape>) -> any Layer {
        let g = geometry(inputs[0])
        guard suitsWinograd(g) else { return self }
        let tile = WinogradKernel.tile(for: g, pooled: pool != nil)
        let filters = WinogradKernel.transformFilters(weight.array, tile: tile, outChannels: outputChannels, channels: inChannels)
        return Conv2D(self, weight: weight, bias: bias, activation: activation, pool: pool, winograd: (tile, FloatBuffer(filters)))
    }

    func with(weight: FloatBuffer, bias: FloatBuffer, activation: Activation) -> Conv2D {
        Conv2D(self, weight: weight, bias: bias, activation: activation, pool: pool)
    }

    func fused(with next: any Layer) -> (any Layer)? {
        if pool != nil {
            // Only an activation commutes with the max; a batchnorm may scale by a negative number.
            guard let folded = Activation(folding: next), activation == .none else { return nil }
            return with(weight: weight, bias: bias, activation: folded)
        }
        if let maxPool = next as? MaxPool2D {
            return Conv2D(self, weight: weight, bias: bias, activation: activation, pool: maxPool.window)
        }
        return folded(with: next)
    }

    func geometry(_ input: Shape) -> Conv2DGeometry {
        Conv2DGeometry(channels: input[0], height: input[1], width: input[2], outChannels: outputChannels, rows: rows, columns: columns)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 3, "an image [C, H, W]")
        try inputs[0].require(axis: 0, is: inChannels, "channels")
        let g = geometry(inputs[0])
        guard g.outHeight > 0, g.outWidth > 0 else {
            throw LayerProblem(.layerShape, "input \(inputs[0]) is smaller than the \(rows.kernel)×\(rows.kernel) kernel")
        }
        guard let pool else { return .image(channels: outputChannels, height: g.outHeight, width: g.outWidth) }
        let (h, w) = (pool.outputSize(g.outHeight), pool.outputSize(g.outWidth))
        guard h > 0, w > 0 else {
            throw LayerProblem(
                .layerShape,
                "convolution output \(g.outHeight)×\(g.outWidth) is smaller than the \(pool.kernel)×\(pool.kernel) pooling window")
        }
        return .image(channels: outputChannels, height: h, width: w)
    }

    /// Winograd's buffers, or the im2col matrix, then (when pooling) the unpooled result.
    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int {
        let g = geometry(inputs[0])
        if let winograd, usesWinograd(g) { return WinogradGeometry(g, tile: winograd.tile, pooled: pool != nil).scratchCount }
        return g.scratchCount + (pool == nil ? 0 : outputChannels * g.outHeight * g.outWidth)
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let g = geometry(inputs[0].shape)
        if let winograd, usesWinograd(g) {
            WinogradKernel.forward(
                g, tile: winograd.tile, input: inputs[0].data, filters: winograd.filters.base, bias: bias.base, activation: activation,
                pool: pool != nil, output: output.data, scratch: scratch)
            return
        }
        guard let pool else {
            Conv2DKernel.gemm(g, input: inputs[0].data, weight: weight.base, output: output.data, scratch: scratch)
            Epilogue.biasPerRow(
                output.data, rows: outputChannels, columns: g.outHeight * g.outWidth, bias: bias.base, activation: activation)
            return
        }
        let unpooled = scratch + g.scratchCount
        Conv2DKernel.gemm(g, input: inputs[0].data, weight: weight.base, output: unpooled, scratch: scratch)
        Epilogue.maxPoolBias(
            unpooled, channels: outputChannels, height: g.outHeight, width: g.outWidth, window: pool,
            bias: bias.base, activation: activation, output: output.data)
    }
}
