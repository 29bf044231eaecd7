import SketchwiseSuggestions
import Testing

@Suite struct SuggestionLimitsTests {
    /// The ranges docs/api.md and openapi.yaml give for `labels` and `perLabel`, which the CLI shares.
    @Test func theLimitsAreTheAPIsDocumentedRangesAndDefaults() {
        #expect(SuggestionLimits.labels == 1...10)
        #expect(SuggestionLimits.perLabel == 1...20)
        #expect(SuggestionLimits.labels.contains(SuggestionLimits.defaultLabels))
        #expect(SuggestionLimits.perLabel.contains(SuggestionLimits.defaultPerLabel))
        #expect(SuggestionLimits.describe(SuggestionLimits.perLabel) == "1…20")
    }
}
