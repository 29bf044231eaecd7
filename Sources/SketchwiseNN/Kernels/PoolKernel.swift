/// Window pooling over `[C, H, W]` without padding (floor), and global average pooling.
enum PoolKernel {
    enum Reduction: Sendable {
        case max, average
    }

    static func pool2D(
        _ reduction: Reduction, input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        window: Window, output: UnsafeMutablePointer<Float>
    ) {
        let planes = (channels: channels, height: height, width: width)
        switch reduction {
        case .max:
            pool(input, planes, window, output, start: -.infinity, combine: Swift.max, finish: { $0 })
        case .average:
            let scale = 1 / Float(window.kernel * window.kernel)
            pool(input, planes, window, output, start: 0, combine: +, finish: { $0 * scale })
        }
    }

    @inline(__always)
    private static func pool(
        _ input: UnsafePointer<Float>, _ planes: (channels: Int, height: Int, width: Int), _ window: Window,
        _ output: UnsafeMutablePointer<Float>,
        start: Float, combine: (Float, Float) -> Float, finish: (Float) -> Float
    ) {
        let (k, s, width) = (window.kernel, window.stride, planes.width)
        let (outH, outW) = (window.outputSize(planes.height), window.outputSize(width))
        for c in 0..<planes.channels {
            let plane = input + c * planes.height * width
            for y in 0..<outH {
                let top = plane + y * s * width
                let out = output + (c * outH + y) * outW
                if k == 2, s == 2 {
                    // The common 2×2/2 case, without the window loops.
                    let bottom = top + width
                    for x in 0..<outW {
                        out[x] = finish(combine(combine(top[2 * x], top[2 * x + 1]), combine(bottom[2 * x], bottom[2 * x + 1])))
                    }
                    continue
                }
                for x in 0..<outW {
                    var acc = start
                    for i in 0..<k {
                        let row = top + i * width + x * s
                        for j in 0..<k { acc = combine(acc, row[j]) }
                    }
                    out[x] = finish(acc)
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
