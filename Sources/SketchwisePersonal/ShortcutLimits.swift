/// How much one person may teach: the per-person quotas of shortcuts and their examples. The
/// defaults are those of `sketchwise serve` (its `--max-shortcuts…` options change them).
public struct ShortcutLimits: Sendable, Equatable {
    /// Shortcuts (labels) per person.
    public var maximumLabels: Int
    public var maximumExamplesPerLabel: Int
    /// Characters (graphemes) in a label: an emoji, a picture's id or a word.
    public var maximumLabelLength: Int
    /// Bytes of UTF-8 in a label (after NFC), so that one grapheme of many combining marks
    /// cannot pass ``maximumLabelLength``.
    public var maximumLabelBytes: Int
    /// Examples per person, all shortcuts together.
    public var maximumExamples: Int
    /// Bytes per person of every example as stored (its label and its drawing as a Quick,
    /// Draw! record): the bound on what reading one person's shortcuts costs.
    public var maximumExampleBytes: Int
    /// Misfires kept per person (drawings a shortcut fired on and the person undid); past it the
    /// oldest is forgotten. They count among ``maximumExamples``.
    public var maximumMisfires: Int

    public init(maximumLabels: Int = 50, maximumExamplesPerLabel: Int = 10, maximumLabelLength: Int = 200,
                maximumLabelBytes: Int = 256, maximumExamples: Int = 500, maximumExampleBytes: Int = 2 << 20,
                maximumMisfires: Int = 20) {
        self.maximumLabels = maximumLabels
        self.maximumExamplesPerLabel = maximumExamplesPerLabel
        self.maximumLabelLength = maximumLabelLength
        self.maximumLabelBytes = maximumLabelBytes
        self.maximumExamples = maximumExamples
        self.maximumExampleBytes = maximumExampleBytes
        self.maximumMisfires = maximumMisfires
    }
}
