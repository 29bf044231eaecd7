/// `maxpool2d`: the largest value of each window.
struct MaxPool2D: PoolingLayer {
    static let typeName = "maxpool2d"
    static let reduction = PoolKernel.Reduction.max
    let window: Window
}
