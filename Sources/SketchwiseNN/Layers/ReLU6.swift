/// `relu6`: `min(max(x, 0), 6)`. Folded into a preceding conv or dense.
struct ReLU6: ElementwiseLayer {
    static let typeName = "relu6"

    static func apply(_ x: Float) -> Float { min(max(x, 0), 6) }
}
