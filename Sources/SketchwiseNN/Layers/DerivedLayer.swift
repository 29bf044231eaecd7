/// A layer that exists only as another layer made ready to run (lowered to int8 at load, or
/// planned), never read from a spec.
protocol DerivedLayer: Layer where Params == NoParams {
    /// What it is made from, for the error should a spec name it: "an int8 convolution is made from
    /// a conv2d layer at load".
    static var origin: String { get }
}

extension DerivedLayer {
    init(params: NoParams, weights: LayerWeights) throws {
        throw LayerProblem(.spec, "\(Self.origin), not read from a spec")
    }
}
