/// Window pooling over `[C, H, W]` without padding (floor), and global average pooling.
enum PoolKernel {
    enum Reduction: Sendable {
        case max, average
    }

    static func pool2D(
        _ reduction: Reduction, input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        window: Window, output: UnsafeMutablePointer<Float>
    ) {
        let (k, s) = (window.kernel, window.stride)
        let (outH, outW) = (window.outputSize(height), window.outputSize(width))
        let scale = 1 / Float(k * k)
        var out = output
        for c in 0..<channels {
            let plane = input + c * height * width
            for y in 0..<outH {
                for x in 0..<outW {
                    let corner = plane + y * s * width + x * s
                    var acc: Float = reduction == .max ? -.infinity : 0
                    for i in 0..<k {
                        let row = corner + i * width
                        for j in 0..<k {
                            acc = reduction == .max ? Swift.max(acc, row[j]) : acc + row[j]
                        }
                    }
                    out.pointee = reduction == .max ? acc : acc * scale
                    out += 1
                }
            }
        }
    }

    /// `out[c] = mean over (h, w) of in[c, h, w]`.
    static func globalAverage(input: UnsafePointer<Float>, channels: Int, planeSize: Int, output: UnsafeMutablePointer<Float>) {
        for c in 0..<channels {
            let plane = input + c * planeSize
            var sum: Float = 0
            for i in 0..<planeSize { sum += plane[i] }
            output[c] = sum / Float(planeSize)
        }
    }
}
