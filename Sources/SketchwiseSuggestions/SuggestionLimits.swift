/// How many guesses get pictures and how many pictures each gets: the defaults and the allowed
/// ranges, one knob for the API (`POST /api/suggest`, `POST /api/photo`), the CLI (`suggest`,
/// `photo`) and the service (``SuggestionService``, ``SuggestionPipeline``).
public enum SuggestionLimits {
    /// How many of the most probable guesses get pictures (`labels`, `--labels`).
    public static let labels = 1...10
    /// How many pictures each of those guesses gets at most (`perLabel`, `--per-label`).
    public static let perLabel = 1...20
    /// `labels` when none is given.
    public static let defaultLabels = 4
    /// `perLabel` when none is given.
    public static let defaultPerLabel = 6

    /// "--labels must be within 1…10"-style wording of a range, for the CLI's checks.
    public static func describe(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)…\(range.upperBound)" }
}
