/// A `Conv2D` with int8 products (``DensePrecision/int8``), made from the folded float layer at
/// load: each output channel's filter scaled to −127…127 and rounded; each call quantizes its input
/// to unsigned bytes over its range and lays it out as patch rows (`Int8Conv2DKernel`), whose
/// products `sk_gemm_uint8` sums exactly in int32 (VNNI, AVX2 or portable C, all with the same
/// result), then adds the bias, applies the activation and pools as the float layer does.
struct QuantizedConv2D: DerivedLayer {
    static let typeName = "conv2d"
    /// The float layer: its geometry, bias, activation and pooling.
    let convolution: Conv2D
    /// `[k·k·C, O]`, inputs in `(i, j, c)` order.
    let products: Int8Columns

    static let origin = "an int8 convolution is made from a conv2d layer at load"

    /// `convolution` in int8, or nil where that does not pay: with fewer than 32 products per
    /// output (the first layer of an image model) the float path is faster (raster-cnn took
    /// 80 µs with its 9-product first layer in int8, 59 µs with it in float32), and past
    /// ``Int8Columns/maximumInputs`` the integer sums could overflow.
    init?(_ convolution: Conv2D) {
        let (c, k) = (convolution.inChannels, convolution.rows.kernel)
        guard (32...Int8Columns.maximumInputs).contains(c * k * k) else { return nil }
        self.convolution = convolution
        let weight = convolution.weight.base
        products = Int8Columns(inputs: c * k * k, columns: convolution.outputChannels) { p, o in
            let (tap, channel) = p.quotientAndRemainder(dividingBy: c)
            return weight[(o * c + channel) * k * k + tap]
        }
    }

    private func geometry(_ input: Shape) -> Int8Conv2DGeometry {
        Int8Conv2DGeometry(convolution.geometry(input), pool: convolution.pool)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape { try convolution.outputShape(for: inputs) }

    /// The quantized input, its padded copy and the patches, then the products and their scratch.
    func scratchCount(for inputs: UnsafeBufferPointer<Shape>) -> Int {
        let w = geometry(inputs[0])
        return (w.byteCount + 3) / 4 + w.positions * outputChannels + products.scratchCount
    }

    private var outputChannels: Int { convolution.outputChannels }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        let w = geometry(inputs[0].shape)
        let results = scratch + (w.byteCount + 3) / 4
        UnsafeMutableRawPointer(scratch).withMemoryRebound(to: UInt8.self, capacity: w.byteCount) { bytes in
            let (scale, zeroPoint) = Int8Conv2DKernel.patches(w, input: inputs[0].data, bytes: bytes)
            products.multiply(
                rows: w.positions, quantized: bytes + w.patchOffset, stride: w.patchStride, scale: scale,
                zeroPoint: zeroPoint, y: results, ldy: outputChannels, scratch: results + w.positions * outputChannels)
        }
        Int8Conv2DKernel.epilogue(
            w, products: results, bias: convolution.bias.base, activation: convolution.activation, output: output.data)
    }
}
