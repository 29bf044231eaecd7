import SketchwiseLibrary
import SketchwiseRecognition

extension Suggestion {
    /// A suggestion's score, 0…`probability`: the guess's probability times the picture's standing,
    /// which is how directly its words name the class (``MatchStrength``) plus how much it looks
    /// like the sketch. Look only orders pictures of one strength: for one guess an exact title
    /// always comes before a keyword match, and a keyword match before a picture only the model
    /// puts in the class.
    public static func score(probability: Double, similarity: Double, strength: MatchStrength) -> Double {
        let levels = Double(MatchStrength.allCases.count)
        let standing = levels - 1 - Double(strength.rawValue)
        return probability * (standing + min(1, max(0, similarity))) / levels
    }

    /// Best ``score`` first; equal scores by id, so the order never depends on input order.
    public static func ranked(_ suggestions: some Sequence<Suggestion>) -> [Suggestion] {
        suggestions.sorted { ($0.score, $1.itemID) > ($1.score, $0.itemID) }
    }

    /// Each picture once, ``ranked(_:)``: under the guess it is named after (its title is the
    /// guess's class, so a "police car" stays under police car when car is guessed first), else
    /// under its best-scoring suggestion.
    public static func merged(_ suggestions: some Sequence<Suggestion>) -> [Suggestion] {
        var best: [String: Suggestion] = [:]
        for suggestion in suggestions {
            guard let kept = best[suggestion.itemID] else {
                best[suggestion.itemID] = suggestion
                continue
            }
            let named = (suggestion.namesItsLabel ? 1 : 0, kept.namesItsLabel ? 1 : 0)
            if (named.0, suggestion.score) > (named.1, kept.score) { best[suggestion.itemID] = suggestion }
        }
        return ranked(best.values)
    }

    /// Whether the picture's title is the class it is suggested for (case aside).
    var namesItsLabel: Bool { title.lowercased() == label.lowercased() }
}

/// Orders the candidates of a sketch's guesses by how much their pictures look like the sketch.
public struct SuggestionRanker: Sendable {
    public let finder: CandidateFinder
    /// How many guesses get suggestions.
    public var guessCount = 4
    /// How many suggestions each guess gets at most.
    public var perGuess = 3
    /// A candidate whose embedding is more similar than this to one already chosen for the same
    /// guess, or whose title is of the same ``TitleFamily``, is a near duplicate and is skipped.
    public var duplicateSimilarity = 0.97
    /// Only pictures of this style are suggested.
    public var style = PictureStyle.all

    public init(finder: CandidateFinder) {
        self.finder = finder
    }

    /// The suggestions for a sketch: for each of its `guessCount` most probable guesses, the
    /// `perGuess` candidates most similar to `embedding` (near duplicates skipped), all merged,
    /// best ``Suggestion/score`` first, each picture once (under its best guess).
    /// Candidates whose embedding does not have the sketch's length are left out.
    public func suggestions(guesses: [Guess], embedding: [Float]) -> [Suggestion] {
        let best = guesses.sorted(by: { $0.probability > $1.probability }).prefix(max(0, guessCount))
        let sketch = embedding.isEmpty ? nil : UnitVector.normalized(embedding)
        return Suggestion.merged(best.flatMap { suggestions(for: $0, sketch: sketch) })
    }

    /// The best `perGuess` candidates of one guess in ``style``: the most strongly named first
    /// (``MatchStrength``), the most similar first within one strength. Candidates are scored by
    /// index and only the chosen ones are copied (a class may have hundreds). Without an
    /// embedding (a photo has no sketch to compare with) the most typical pictures of the guess
    /// come first: those most similar to the mean direction of its candidates in ``style``.
    /// Doodles are the last resort: left out when any other picture of the style draws the class.
    /// When nothing of the style draws it, the best picture of another style that people
    /// reviewed as good is offered instead (its source says which style).
    /// `sketch` is the sketch's unit embedding (``UnitVector/normalized(_:)``), nil for a photo.
    func suggestions(for guess: Guess, sketch: [Double]?) -> [Suggestion] {
        let candidates = finder.candidates(for: guess.label)
        let drawn = style.sourceBits & ~LibrarySource.doodle.bit
        var sources = candidates.contains { $0.sourceBit & drawn != 0 } ? drawn : style.sourceBits
        var reviewedGood: Set<String>?
        if !candidates.contains(where: { $0.sourceBit & sources != 0 }) {
            sources = ~style.sourceBits & ~LibrarySource.doodle.bit
            reviewedGood = Set(finder.reviews.reviewed(for: guess.label).filter { $0.value == .good }.keys)
        }
        let sketch = sketch ?? Self.typicalDirection(of: candidates, sources: sources)
        // Scored by index, with the strength beside it: sorting then copies no candidate.
        var scored: [(index: Int, strength: MatchStrength, similarity: Double)] = []
        scored.reserveCapacity(candidates.count)
        candidates.withUnsafeBufferPointer { candidates in  // fields read in place: no candidate copied
            for index in candidates.indices
            where !sketch.isEmpty && candidates[index].unitEmbedding.count == sketch.count && candidates[index].sourceBit & sources != 0
                && reviewedGood.map({ $0.contains(candidates[index].picture.id) }) != false
            {
                scored.append((index, candidates[index].strength, UnitVector.dot(candidates[index].unitEmbedding, sketch)))
            }
        }
        scored.sort { a, b in
            if a.strength != b.strength { return a.strength < b.strength }
            if a.similarity != b.similarity { return a.similarity > b.similarity }
            return candidates[a.index].picture.id < candidates[b.index].picture.id
        }
        var chosen: [(index: Int, strength: MatchStrength, similarity: Double)] = []
        var families = TitleFamily.Chosen()
        for entry in scored where chosen.count < (reviewedGood == nil ? perGuess : 1) {
            let duplicate =
                families.hasVariant(of: candidates[entry.index])
                || UnitVector.isNear(
                    candidates[entry.index].unitEmbedding, anyOf: chosen.lazy.map { candidates[$0.index].unitEmbedding },
                    above: duplicateSimilarity)
            if !duplicate {
                chosen.append(entry)
                families.insert(candidates[entry.index])
            }
        }
        return chosen.map { index, _, similarity in
            let picture = candidates[index].picture
            let similarity = min(1, max(0, similarity))
            return Suggestion(
                label: guess.label,
                score: Self.score(candidates[index], guess: guess, similarity: similarity, fallback: reviewedGood != nil),
                probability: guess.probability, similarity: similarity,
                source: .library(picture.source), itemID: picture.id, title: picture.title, aspect: picture.aspect,
                reason: candidates[index].reason
            )
        }
    }

    /// The normalised mean of the unit embeddings of the candidates in `sources` (those of the
    /// first one's length); empty when there are none.
    private static func typicalDirection(of candidates: [Candidate], sources: UInt8) -> [Double] {
        let chosen = candidates.filter { $0.sourceBit & sources != 0 && !$0.unitEmbedding.isEmpty }
        guard let length = chosen.first?.unitEmbedding.count else { return [] }
        var sum = [Double](repeating: 0, count: length)
        for candidate in chosen where candidate.unitEmbedding.count == length {
            for i in 0..<length { sum[i] += candidate.unitEmbedding[i] }
        }
        return UnitVector.normalized(sum.map(Float.init))
    }

    /// A doodle, or a picture of another style offered as a `fallback`, scores as a keyword match
    /// would: the most probable guess's still lead, but a picture of the style for a guess nearly
    /// as probable comes first.
    private static func score(_ candidate: Candidate, guess: Guess, similarity: Double, fallback: Bool) -> Double {
        let strength = candidate.picture.source == .doodle || fallback ? max(candidate.strength, .keyword) : candidate.strength
        return Suggestion.score(probability: guess.probability, similarity: similarity, strength: strength)
    }

    /// The cosine of two vectors; nil when their lengths differ or either is zero or not finite.
    public static func cosine(_ a: [Float], _ b: [Float]) -> Double? {
        guard a.count == b.count, !a.isEmpty else { return nil }
        let (dot, aa, bb) = a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var (dot, aa, bb) = (0.0, 0.0, 0.0)
                for i in 0..<a.count {
                    let (x, y) = (Double(a[i]), Double(b[i]))
                    dot += x * y
                    aa += x * x
                    bb += y * y
                }
                return (dot, aa, bb)
            }
        }
        let cosine = dot / (aa * bb).squareRoot()
        return cosine.isFinite ? cosine : nil
    }
}
