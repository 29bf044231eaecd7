import Foundation
import GRDB
import SketchwiseRecognition

/// What suggesting needs of an indexed picture: its words, the model's view of it, no images.
public struct IndexedPicture: Sendable, Equatable, Codable, FetchableRecord {
    public var id: String
    public var source: LibrarySource
    public var title: String
    public var keywords: [String]
    /// The raster model's embedding of the picture's outline.
    public var embedding: [Float]
    /// The raster model's most probable classes for the picture.
    public var topClasses: [Guess]
    /// The width of the picture's ink box over its height.
    public var aspect: Double

    public init(
        id: String, source: LibrarySource, title: String, keywords: [String], embedding: [Float], topClasses: [Guess], aspect: Double = 1
    ) {
        self.id = id
        self.source = source
        self.title = title
        self.keywords = keywords
        self.embedding = embedding
        self.topClasses = topClasses
        self.aspect = aspect
    }

    /// The words that say what the picture shows: the title's, then each keyword's, kept apart so
    /// that phrases do not run across them. Keywords naming an outer folder of a clip-art drawing
    /// (`computer` for `computer/icons/…`) name a whole collection, not the picture, and are left
    /// out; the innermost folder (`shapes/stars`) is kept.
    var describingWords: [[String]] {
        let folders = id.hasPrefix("clipart:") ? id.dropFirst("clipart:".count).split(separator: "/").dropLast(2) : []
        let outer = Set(folders.map { WordMatcher.words(String($0)) })
        return ([title] + keywords).map(WordMatcher.words).filter { !outer.contains($0) }
    }

    public init(row: Row) throws {
        let item = try LibraryItem(row: row)
        self.init(
            id: item.id, source: item.source, title: item.title, keywords: item.keywords,
            embedding: item.embeddingVector, topClasses: item.topClasses, aspect: item.aspect
        )
    }
}

extension LibraryDatabase {
    /// Every indexed picture, without its thumbnail and raster, ordered by id.
    public func pictures() throws(LibraryError) -> [IndexedPicture] {
        try read { db in
            try IndexedPicture.fetchAll(
                db,
                sql: """
                    SELECT id, source, path, title, sourceTitle, keywords, licence, aspect, embedding, topClasses,
                           fileHash, fileSize, fileModified, pipeline, x'' AS thumbnail, x'' AS raster, 0 AS rasterSize
                    FROM item ORDER BY id
                    """)
        }
    }
}

/// Why a picture is a candidate for a class.
public enum MatchReason: Sendable, Hashable, Codable {
    /// Its title or a keyword contains this word of the class's synonyms.
    case synonym(String)
    /// A person reviewed it as showing the class (``PictureReviews``), though no word names it.
    case reviewed
    /// A web image search for the class's name found it.
    case webSearch
    /// The raster model gives the class this probability among the picture's top classes.
    case predictedClass(Double)
}

/// How directly a picture's words name a class. A guess's suggestions are ordered by this first
/// and by look only within one strength, so a picture that merely looks like the sketch never
/// pushes out one named for the class.
public enum MatchStrength: Int, Sendable, Comparable, CaseIterable {
    /// The title is the class's name ("Cat" for cat).
    case exactTitle
    /// The title contains the class's name ("Red sailboat" for sailboat).
    case nameInTitle
    /// The title contains another of the class's words ("Boat" for sailboat).
    case synonymInTitle
    /// Only a keyword names the class.
    case keyword
    /// No word names it: the raster model puts the picture in the class.
    case prediction

    public static func < (a: MatchStrength, b: MatchStrength) -> Bool { a.rawValue < b.rawValue }

    /// The strength's name for people and command lines: `exact-title`, `name-in-title`,
    /// `synonym-in-title`, `keyword`, `prediction`.
    public var name: String {
        switch self {
        case .exactTitle: "exact-title"
        case .nameInTitle: "name-in-title"
        case .synonymInTitle: "synonym-in-title"
        case .keyword: "keyword"
        case .prediction: "prediction"
        }
    }

    /// The strength named `name` (see ``name``).
    public init?(name: String) {
        guard let strength = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = strength
    }
}

/// A picture that may illustrate a class, and why.
public struct Candidate: Sendable, Equatable {
    public let picture: IndexedPicture
    public let reason: MatchReason
    public let strength: MatchStrength
    /// The picture's embedding at unit length (empty when it has no direction): ranking compares
    /// it with the sketch's by one dot product.
    package let unitEmbedding: [Double]
    /// The picture's ``LibrarySource/bit``: a style's sources are tested without hashing.
    package let sourceBit: UInt8
    /// The picture's ``TitleFamily`` key: variants of one drawing are suggested once.
    package let titleFamily: String

    init(picture: IndexedPicture, reason: MatchReason, strength: MatchStrength) {
        self.picture = picture
        self.reason = reason
        self.strength = strength
        unitEmbedding = UnitVector.normalized(picture.embedding)
        sourceBit = picture.source.bit
        titleFamily = TitleFamily.key(picture.title)
    }
}

/// The pictures that may illustrate each class: those whose title or keywords contain one of the
/// class's synonyms (``ClassSynonyms``), no word of another sense and break no general rule
/// (``PictureWordRules``: people doing things, zodiac signs, interface symbols), or that people reviewed as
/// showing it, then those the raster model itself puts in that class. ``PictureReviews`` decide
/// over words: a picture reviewed as wrong for a class is never its candidate; a good one ranks
/// at least as a synonym in its title would (``MatchStrength/synonymInTitle``), a loose one only as
/// a keyword match.
public struct CandidateFinder: Sendable {
    /// The weakest match that makes a candidate. By default a word of the title must name the
    /// class (``MatchStrength/synonymInTitle``): reviewed on 120 classes of line art, keyword-only
    /// matches were mostly loose or wrong (4 good of 35) and model-only ones all wrong (0 of 8).
    public let weakest: MatchStrength
    /// The least probability with which the model must give a picture a class for the picture to be
    /// a candidate of that class without a matching word (when ``weakest`` is
    /// ``MatchStrength/prediction``).
    public let minimumPredictedProbability: Double
    public let synonyms: ClassSynonyms
    public let reviews: PictureReviews
    private let pictures: [IndexedPicture]
    /// Each picture's ``IndexedPicture/describingWords``.
    private let words: [[[String]]]
    /// Each picture's title words, or none when its title only names a collection.
    private let titleWords: [[String]]
    /// Each class's candidates, found once: finding them scans every picture's words.
    private let found = FoundCandidates()

    /// - Parameters:
    ///   - pictures: the library (``LibraryDatabase/pictures()``).
    ///   - reviews: people's verdicts (``PictureReviews/bundled()`` for the shipped list).
    ///   - weakest: see ``weakest``.
    ///   - minimumPredictedProbability: see ``minimumPredictedProbability``.
    public init(
        pictures: [IndexedPicture], synonyms: ClassSynonyms = .quickDraw, reviews: PictureReviews = PictureReviews(),
        weakest: MatchStrength = .synonymInTitle, minimumPredictedProbability: Double = 0.9
    ) {
        self.pictures = pictures
        self.synonyms = synonyms
        self.reviews = reviews
        self.weakest = weakest
        self.minimumPredictedProbability = minimumPredictedProbability
        let words = pictures.map(\.describingWords)
        self.words = words
        titleWords = zip(pictures, words).map { picture, words in
            let title = WordMatcher.words(picture.title)
            return words.contains(title) ? title : []
        }
    }

    /// The candidates for `label`, strongest ``MatchStrength`` first (none weaker than
    /// ``weakest``): pictures whose words name the class (in the order of the class's words within
    /// one strength), then pictures predicted as `label`, most probable first; each picture once.
    /// Found on first use and remembered.
    public func candidates(for label: String) -> [Candidate] {
        if let known = found[label] { return known }
        let candidates = search(label)
        found[label] = candidates
        return candidates
    }

    /// Whether any picture of the library has `style`.
    public func has(_ style: PictureStyle) -> Bool {
        let sources = style.sources
        return pictures.contains { sources.contains($0.source) }
    }

    /// Finds the candidates of every class of the synonym table now, on `threads` threads, so
    /// that no query pays for a first use.
    public func warmUp(threads: Int = 2) {
        let labels = synonyms.labels.filter { found[$0] == nil }
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { part in
            for label in labels.enumerated().filter({ $0.offset % max(1, threads) == part }).map(\.element) {
                _ = candidates(for: label)
            }
        }
    }

    private func search(_ label: String) -> [Candidate] {
        var found: [Candidate] = []
        let reviewed = reviews.reviewed(for: label)
        var seen = Set(reviewed.filter { $0.value == .wrong }.keys)
        let otherSenses = synonyms.otherSenses(of: label).map(WordMatcher.words)
        func meansAnotherSense(_ index: Int) -> Bool {
            otherSenses.contains { sense in words[index].contains { WordMatcher.contains(sense, in: $0) } }
        }
        let names = synonyms.words(for: label).map { (word: $0, phrase: WordMatcher.words($0)) }
        let ownName = WordMatcher.words(label)
        let phrases = names.map(\.phrase)
        let aboutPeople = synonyms.isAboutPeople(label)
        /// Keeps a candidate no weaker than ``weakest`` (its embedding is normalised only then).
        func add(_ picture: IndexedPicture, _ reason: MatchReason, _ strength: MatchStrength) {
            if strength <= weakest { found.append(Candidate(picture: picture, reason: reason, strength: strength)) }
        }
        /// The general rules of ``PictureWordRules``: people pictures name what people do, zodiac
        /// signs are symbols, interface actions and controls ("radio button") and compounds of an
        /// icon set are interface symbols; and a doodle draws its own class only.
        func breaksARule(_ index: Int) -> Bool {
            if pictures[index].source == .doodle { return titleWords[index] != ownName }
            if !aboutPeople, PictureWordRules.depictsPeople(pictures[index].title) { return true }
            if PictureWordRules.isZodiacSign(title: titleWords[index], words: words[index]) { return true }
            if PictureWordRules.isInterfaceSymbol(title: titleWords[index], ownName: ownName) { return true }
            return pictures[index].source.isIconSet && !PictureWordRules.isIcon(of: phrases, title: titleWords[index])
        }
        for name in names {
            for (index, picture) in pictures.enumerated() where !seen.contains(picture.id) {
                if words[index].contains(where: { WordMatcher.contains(name.phrase, in: $0) }), !meansAnotherSense(index),
                    !breaksARule(index)
                {
                    seen.insert(picture.id)
                    var strongest = names.map { self.strength(of: $0.phrase, in: index, name: ownName) }.min() ?? MatchStrength.keyword
                    switch reviewed[picture.id] {
                    case .good?: strongest = min(strongest, .synonymInTitle)
                    case .loose?: strongest = .keyword
                    case .wrong?, nil: break
                    }
                    add(picture, .synonym(name.word), strongest)
                }
            }
        }
        for picture in pictures where reviewed[picture.id] == .good && !seen.contains(picture.id) {
            seen.insert(picture.id)
            add(picture, .reviewed, .synonymInTitle)
        }
        let predicted = pictures.compactMap { picture -> (IndexedPicture, Double)? in
            guard weakest == .prediction, !seen.contains(picture.id),
                let guess = picture.topClasses.first(where: { $0.label == label }),
                guess.probability >= minimumPredictedProbability
            else { return nil }
            return (picture, guess.probability)
        }
        let named = found.enumerated().sorted { ($0.element.strength, $0.offset) < ($1.element.strength, $1.offset) }.map(\.element)
        return named
            + predicted.sorted { $0.1 > $1.1 }.map { Candidate(picture: $0.0, reason: .predictedClass($0.1), strength: .prediction) }
    }

    /// How directly picture `index`'s title names `phrase`, one of the words of the class named
    /// `name` (then a keyword names the class, if the title does not).
    private func strength(of phrase: [String], in index: Int, name: [String]) -> MatchStrength {
        let title = titleWords[index]
        guard WordMatcher.contains(phrase, in: title) else { return .keyword }
        if phrase == name { return title == name ? .exactTitle : .nameInTitle }
        return WordMatcher.contains(name, in: title) ? .nameInTitle : .synonymInTitle
    }
}

/// Candidates already found, by class; shared by copies of a finder.
private final class FoundCandidates: @unchecked Sendable {
    private let lock = NSLock()
    private var byLabel: [String: [Candidate]] = [:]

    subscript(label: String) -> [Candidate]? {
        get { lock.withLock { byLabel[label] } }
        set { lock.withLock { byLabel[label] = newValue } }
    }
}
