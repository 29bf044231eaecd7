/// `globalavgpool2d`: `[C, H, W]` → `[C]`, the mean of each channel.
struct GlobalAvgPool2D: Layer {
    static let typeName = "globalavgpool2d"

    init(params: NoParams, weights: LayerWeights) {}

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try inputs[0].require(rank: 3, "an image [C, H, W]")
        return .vector(inputs[0][0])
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let x = inputs[0].shape
        PoolKernel.globalAverage(input: inputs[0].data, channels: x[0], planeSize: x[1] * x[2], output: output.data)
    }
}
