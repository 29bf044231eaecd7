/// `relu`: `max(x, 0)`. Folded into a preceding conv or dense.
struct ReLU: ElementwiseLayer {
    static let typeName = "relu"

    static func apply(_ x: Float) -> Float { max(x, 0) }
}
