/// What follows a linear layer (conv, dense) inside the same loop.
enum Activation: Sendable {
    case none, relu
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
            }
        }
    }
}
