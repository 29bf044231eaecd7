import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition

extension SuggestionService {
    /// Every provider's pictures for `label` as the sketch's one guess, ranked by the sketch's
    /// embedding; the recogniser's own guesses are returned beside them. What a person sees when
    /// that class is guessed (`sketchwise suggest --own-class`, for reviewing the library).
    /// - Throws: ``SketchwiseCore/SketchError`` for unusable coordinates, or the recogniser's error.
    public func ownClassSuggestions(
        _ sketch: StrokeSketch, label: String, perLabel: Int, style: PictureStyle?
    ) async throws -> SuggestionResult {
        let analysis = try recognizer.analyze(sketch, top: guessCount)
        let (suggestions, problems) = await pictures(
            for: SuggestionRequest(
                analysis: SketchAnalysis(guesses: [Guess(label: label, probability: 1)], embedding: analysis.embedding),
                labels: 1, perLabel: perLabel, style: style
            ))
        return SuggestionResult(guesses: analysis.guesses, suggestions: suggestions, problems: problems)
    }
}
