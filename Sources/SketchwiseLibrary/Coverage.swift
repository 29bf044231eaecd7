import Foundation

/// How many candidates the library has for each class (``CandidateFinder``), to show where it is thin.
public struct LibraryCoverage: Sendable, Equatable, Codable {
    /// The candidates of one class.
    public struct ClassCount: Sendable, Equatable, Codable {
        public var label: String
        /// Pictures whose title or keywords match a synonym of the class, or reviewed as showing it.
        public var bySynonym: Int
        /// Further pictures the model puts in the class.
        public var byPrediction: Int
        /// The class's doodles (``LibrarySource/doodle``), counted apart: suggested only when the
        /// class has no other picture of the style.
        public var doodles: Int
        /// The real pictures: every candidate but the doodles.
        public var total: Int { bySynonym + byPrediction }
    }

    /// Every class, in the order given.
    public var classes: [ClassCount]
    /// The weakest match counted (``CandidateFinder/weakest``).
    public var weakest: String
    /// The probability ``CandidateFinder/minimumPredictedProbability`` the counts were made with.
    public var minimumPredictedProbability: Double
    /// The style counted.
    public var style: PictureStyle

    /// Counts the candidates of each of `labels` that have `style`.
    public init(labels: [String], finder: CandidateFinder, style: PictureStyle = .all) {
        minimumPredictedProbability = finder.minimumPredictedProbability
        weakest = finder.weakest.name
        self.style = style
        let sources = style.sourceBits
        classes = labels.map { label in
            let all = finder.candidates(for: label).filter { $0.sourceBit & sources != 0 }
            let candidates = all.filter { $0.picture.source != .doodle }
            let bySynonym = candidates.filter { if case .predictedClass = $0.reason { false } else { true } }.count
            return ClassCount(
                label: label, bySynonym: bySynonym, byPrediction: candidates.count - bySynonym, doodles: all.count - candidates.count)
        }
    }

    /// The coverage of the Quick, Draw! classes (``ClassSynonyms/quickDraw``) by the pictures of
    /// `database` that have `style`, with `reviews` applied.
    public init(
        database: LibraryDatabase, style: PictureStyle = .all, reviews: PictureReviews, weakest: MatchStrength = .synonymInTitle,
        minimumPredictedProbability: Double = 0.9
    ) throws(LibraryError) {
        let finder = CandidateFinder(
            pictures: try database.pictures(), reviews: reviews, weakest: weakest, minimumPredictedProbability: minimumPredictedProbability
        )
        self.init(labels: finder.synonyms.labels, finder: finder, style: style)
    }

    /// The coverage as JSON: the figures and every class's counts.
    public func json() throws(LibraryError) -> String {
        struct Report: Encodable {
            var classesWithAtLeastOne, classesWithAtLeastFive, classCount: Int
            var coverage: LibraryCoverage
        }
        let report = Report(
            classesWithAtLeastOne: classes(withAtLeast: 1).count, classesWithAtLeastFive: classes(withAtLeast: 5).count,
            classCount: classes.count, coverage: self
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            return String(decoding: try encoder.encode(report), as: UTF8.self)
        } catch {
            throw LibraryError("cannot encode the coverage: \(error)")
        }
    }

    /// The classes with at least `count` candidates in all, or by synonym only.
    public func classes(withAtLeast count: Int, bySynonymOnly: Bool = false) -> [ClassCount] {
        classes.filter { (bySynonymOnly ? $0.bySynonym : $0.total) >= count }
    }

    /// A report for people: the figures, then the thin classes (fewer than 5 candidates) with their counts.
    public var summary: String {
        func figure(_ count: Int) -> String {
            "≥ \(count) candidates: \(classes(withAtLeast: count).count) of \(classes.count) classes "
                + "(by synonym alone: \(classes(withAtLeast: count, bySynonymOnly: true).count))"
        }
        var lines = ["style \(style.rawValue), matches down to \(weakest)", figure(1), figure(5)]
        let doodled = classes.filter { $0.total == 0 && $0.doodles > 0 }.count
        if classes.contains(where: { $0.doodles > 0 }) {
            lines.append("doodles (counted apart): \(doodled) classes without a real picture have doodles")
        }
        if weakest == MatchStrength.prediction.name {
            lines.append("predicted classes count from probability \(minimumPredictedProbability)")
        }
        let thin = classes.filter { $0.total < 5 }.sorted { ($0.total, $0.label) < ($1.total, $1.label) }
        if !thin.isEmpty {
            lines.append("thin (< 5): " + thin.map { "\($0.label) \($0.total)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
