/// The per-person quota of kept corrections: past either bound a new correction is refused
/// (``PersonalError`` `.limit`) and nothing is written. The defaults are those of
/// `sketchwise serve` (`--max-corrections`, `--max-correction-bytes`).
public struct CorrectionLimits: Sendable, Equatable {
    /// Corrections kept per person.
    public var maximumCount: Int
    /// Bytes kept per person: every correction's label and drawing (a Quick, Draw! record).
    public var maximumBytes: Int

    public init(maximumCount: Int = 5000, maximumBytes: Int = 8 << 20) {
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
    }

    /// No quota (the command line's own writes).
    public static let unlimited = CorrectionLimits(maximumCount: .max, maximumBytes: .max)
}
