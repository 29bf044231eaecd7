/// How a model's products compute: its dense layers, its convolutions and its LSTMs' input and
/// recurrent products.
public enum DensePrecision: String, CaseIterable, Sendable, Codable {
    /// Float weights and inputs: the result PyTorch gives (the parity fixtures hold it to 1e-4).
    case float32
    /// Int8 weights (per output, symmetric) and inputs (per call or per step, over their range),
    /// exact integer sums, scaled back: a quarter of the weights' memory, 2–4× faster on the
    /// memory-bound dense layers of the recognisers, within about 1 % of the float result.
    case int8
    /// `int8` where the CPU multiplies bytes in hardware (AVX-512 VNNI), else `float32`
    /// (``resolved``). A `RecognizerSet` keeps the models whose embeddings are compared with stored
    /// ones in float32 under it.
    case auto

    /// The precision a model computes in on this CPU: `auto` chosen, the others as they are.
    public var resolved: DensePrecision {
        self == .auto ? (KernelVariant.int8UsesVNNI ? .int8 : .float32) : self
    }
}

extension DensePrecision {
    /// `layer` as it computes in this precision: with `int8`, a dense layer becomes a
    /// `QuantizedDense`, a convolution a `QuantizedConv2D` (where that pays) and an LSTM computes its
    /// products in int8.
    func lowered(_ layer: any Layer) -> any Layer {
        switch resolved {
        case .float32, .auto: layer
        case .int8:
            (layer as? Dense).map(QuantizedDense.init) ?? (layer as? Conv2D).flatMap(QuantizedConv2D.init)
                ?? (layer as? LSTM)?.quantized() ?? layer
        }
    }
}
