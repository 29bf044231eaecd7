/// What a person picked when `POST /api/corrections` keeps their sketch: its `kind`.
enum CorrectionKind: String, Sendable {
    /// A picture of the strip (the default), which counts as accepted in an A/B test.
    case suggestion
    /// A guess.
    case guess
}
