/// A `Dense` layer as a program runs it (``Dense/planned(for:)``): its weights held transposed, a
/// row per input, so that the sgemv reads only the rows of the inputs that are not zero. After a
/// ReLU most are: two thirds of raster-cnn's `fc1` and `fc2` inputs on real drawings, whose 1.5 MB
/// of weights are read from L3 at every inference.
struct SparseInputDense: DerivedLayer {
    static let typeName = "dense"
    let inFeatures, outFeatures: Int
    /// `[inFeatures, outFeatures]`: row `p` holds what input `p` adds to each output.
    let columns: FloatBuffer
    let bias: FloatBuffer
    let activation: Activation

    static let origin = "a sparse-input dense layer is made from a dense layer when planned"

    init(_ dense: Dense) {
        (inFeatures, outFeatures, bias, activation) = (dense.inFeatures, dense.outputChannels, dense.bias, dense.activation)
        let (rows, count) = (dense.weight.base, dense.inFeatures)
        var transposed = [Float](repeating: 0, count: inFeatures * outFeatures)
        for o in 0..<outFeatures {
            for p in 0..<count { transposed[p * outFeatures + o] = rows[o * count + p] }
        }
        columns = FloatBuffer(transposed)
    }

    func outputShape(for inputs: UnsafeBufferPointer<Shape>) throws -> Shape {
        try Dense.outputShape(for: inputs, inFeatures: inFeatures, outFeatures: outFeatures)
    }

    func forward(_ inputs: UnsafeBufferPointer<Tensor>, into output: Tensor, scratch: UnsafeMutablePointer<Float>) {
        BLAS.gemvOfNonzeroInputs(
            m: outFeatures, n: inFeatures, transposedA: columns.base, lda: outFeatures, x: inputs[0].data, y: output.data)
        Epilogue.biasPerColumn(output.data, rows: 1, columns: outFeatures, bias: bias.base, activation: activation)
    }
}
