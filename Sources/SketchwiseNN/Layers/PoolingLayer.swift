/// What `maxpool2d` and `avgpool2d` share: a square window without padding (floor), stride
/// defaulting to the kernel size as in PyTorch.
protocol PoolingLayer: Layer where Params == PoolingParams {
    static var reduction: PoolKernel.Reduction { get }
    var window: Window { get }
    init(window: Window)
}

struct PoolingParams: Decodable {
    let kernel: Int
    var stride: Int?
}

extension PoolingLayer {
    init(params p: PoolingParams, weights: LayerWeights) throws {
        try requireParams(["kernel": p.kernel, "stride": p.stride ?? p.kernel], atLeast: 1)
        self.init(window: Window(kernel: p.kernel, stride: p.stride ?? p.kernel, padding: 0))
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        let x = inputs[0]
        try x.require(rank: 3, "an image [C, H, W]")
        let (h, w) = (window.outputSize(x[1]), window.outputSize(x[2]))
        guard h > 0, w > 0 else {
            throw LayerProblem(.layerShape, "input \(x) is smaller than the \(window.kernel)×\(window.kernel) window")
        }
        return .image(channels: x[0], height: h, width: w)
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let x = inputs[0].shape
        PoolKernel.pool2D(
            Self.reduction, input: inputs[0].data, channels: x[0], height: x[1], width: x[2], window: window, output: output.data)
    }
}
