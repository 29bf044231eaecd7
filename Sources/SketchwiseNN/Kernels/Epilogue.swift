import CKernels

/// What follows a linear layer (conv, dense) inside the same loop.
enum Activation: Sendable {
    case none, relu
    /// `min(max(x, 0), 6)`.
    case relu6

    /// The activation `layer` computes, if it is one that folds into a preceding linear layer.
    init?(folding layer: any Layer) {
        switch layer {
        case is ReLU: self = .relu
        case is ReLU6: self = .relu6
        default: return nil
        }
    }

    /// The same activation for the C kernels.
    var kernelValue: SKActivation {
        switch self {
        case .none: SKActivationNone
        case .relu: SKActivationReLU
        case .relu6: SKActivationReLU6
        }
    }

    /// `act(x)`.
    @inline(__always)
    func apply(_ x: Float) -> Float {
        switch self {
        case .none: x
        case .relu: max(x, 0)
        case .relu6: min(max(x, 0), 6)
        }
    }

    /// `act(x)` lane by lane.
    @inline(__always)
    func apply(_ x: SIMD8<Float>) -> SIMD8<Float> {
        var x = x
        if self != .none { x.replace(with: 0, where: x .< 0) }
        if self == .relu6 { x.replace(with: 6, where: x .> 6) }
        return x
    }
}

/// The pass after a GEMM: add the bias and apply the activation, in place.
enum Epilogue {
    /// `x[r, c] = act(x[r, c] + bias[r])` for a `rows × columns` matrix (conv2d's `[O, H·W]`).
    static func biasPerRow(
        _ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, bias: UnsafePointer<Float>, activation: Activation
    ) {
        for r in 0..<rows {
            let row = x + r * columns
            let b = bias[r]
            switch activation {
            case .none: for c in 0..<columns { row[c] += b }
            case .relu: for c in 0..<columns { row[c] = max(row[c] + b, 0) }
            case .relu6: for c in 0..<columns { row[c] = min(max(row[c] + b, 0), 6) }
            }
        }
    }

    /// `x[r, c] = act(x[r, c] + bias[c])` for a `rows × columns` matrix (conv1d's `[T, O]`, dense's `[1, O]`).
    static func biasPerColumn(
        _ x: UnsafeMutablePointer<Float>, rows: Int, columns: Int, bias: UnsafePointer<Float>, activation: Activation
    ) {
        for r in 0..<rows {
            let row = x + r * columns
            switch activation {
            case .none: for c in 0..<columns { row[c] += bias[c] }
            case .relu: for c in 0..<columns { row[c] = max(row[c] + bias[c], 0) }
            case .relu6: for c in 0..<columns { row[c] = min(max(row[c] + bias[c], 0), 6) }
            }
        }
    }

    /// `out[c, y, x] = act(max over the window at (y, x) of x[c] + bias[c])` for `[channels, height, width]`
    /// (no padding, floor), in one pass: the bias and the relu go after the max, 1/k² of the work.
    /// 2×2 windows of stride 2 (every model's) go to `CKernels`, a vector of outputs at a time.
    static func maxPoolBias(
        _ x: UnsafePointer<Float>, channels: Int, height: Int, width: Int, window: Window,
        bias: UnsafePointer<Float>, activation: Activation, output: UnsafeMutablePointer<Float>
    ) {
        if window == Window(kernel: 2, stride: 2, padding: 0) {
            return sk_max_pool_2x2_bias(x, channels, height, width, bias, activation.kernelValue, output)
        }
        let (k, s) = (window.kernel, window.stride)
        let (outH, outW) = (window.outputSize(height), window.outputSize(width))
        for c in 0..<channels {
            let plane = x + c * height * width
            let b = bias[c]
            for y in 0..<outH {
                let top = plane + y * s * width
                let out = output + (c * outH + y) * outW
                for x in 0..<outW {
                    var m = -Float.infinity
                    for i in 0..<k {
                        let row = top + i * width + x * s
                        for j in 0..<k { m = max(m, row[j]) }
                    }
                    out[x] = activation.apply(m + b)
                }
            }
        }
    }
}
