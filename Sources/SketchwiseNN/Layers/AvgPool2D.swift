/// `avgpool2d`: the mean of each window.
struct AvgPool2D: PoolingLayer {
    static let typeName = "avgpool2d"
    static let reduction = PoolKernel.Reduction.average
    let window: Window
}
