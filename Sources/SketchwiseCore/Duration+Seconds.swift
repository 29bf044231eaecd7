extension Duration {
    /// The duration in seconds, as a floating-point number (for rates and timings).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
