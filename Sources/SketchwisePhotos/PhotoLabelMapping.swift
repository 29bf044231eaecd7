import Foundation
import SketchwiseRecognition

/// What a photo label stands for in Sketchwise's vocabulary: the drawing classes it maps to (most
/// specific first) and words to find pictures by when no class fits. Read from the curated table
/// `imagenet-classes.tsv` (see docs/photo-mapping.md): one row per class of the photo model,
/// `index  wnid  name  classes  words  via`, lists `|`-separated, `#` comment lines.
public struct PhotoLabelMapping: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let classes: [String]
        public let words: [String]
    }

    /// By the photo model's class index.
    public let entries: [Int: Entry]

    public init(entries: [Int: Entry]) {
        self.entries = entries
    }

    /// Parses the table.
    /// - Throws: ``PhotoError`` `.unreadable` naming the first malformed line.
    public init(tsv: String) throws(PhotoError) {
        var entries: [Int: Entry] = [:]
        for (number, line) in tsv.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("index\t") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 5, let index = Int(fields[0]), index >= 0, entries[index] == nil else {
                throw PhotoError(.unreadable, "photo label table, line \(number + 1): expected index, wnid, name, classes, words")
            }
            func list(_ field: String) -> [String] { field.split(separator: "|").map(String.init) }
            entries[index] = Entry(name: fields[2], classes: list(fields[3]), words: list(fields[4]))
        }
        self.entries = entries
    }

    /// Reads the table file.
    public init(contentsOf url: URL) throws {
        try self.init(tsv: try String(contentsOf: url, encoding: .utf8))
    }

    /// The share of the model's classes mapped to at least one drawing class.
    public func coverage(of labelCount: Int) -> Double {
        guard labelCount > 0 else { return 0 }
        return Double((0..<labelCount).filter { !(entries[$0]?.classes.isEmpty ?? true) }.count) / Double(labelCount)
    }

    /// The drawing classes of `labels`: each class with the summed confidence of the labels that
    /// map to it, at least `minimumConfidence`, most confident first.
    public func classes(for labels: [PhotoLabel], minimumConfidence: Double) -> [Guess] {
        var confidence: [String: Double] = [:]
        for label in labels {
            for name in Set(entries[label.index]?.classes ?? []) { confidence[name, default: 0] += label.confidence }
        }
        return confidence.filter { $0.value >= minimumConfidence }
            .map { Guess(label: $0.key, probability: min(1, $0.value)) }
            .sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.label < $1.label }
    }

    /// What pictures are looked for: the classes, then, for each label of at least
    /// `minimumConfidence` that maps to no class, its first two words (its own name first, e.g.
    /// `missile`, `rocket`) with the label's confidence (pictures are found by a class's
    /// synonyms, or by the word itself); most confident first.
    public func pictureTopics(for labels: [PhotoLabel], classes: [Guess], minimumConfidence: Double) -> [Guess] {
        var topics = classes
        for label in labels where label.confidence >= minimumConfidence && entries[label.index]?.classes.isEmpty ?? true {
            for word in entries[label.index]?.words.prefix(2) ?? [] where !topics.contains(where: { $0.label == word }) {
                topics.append(Guess(label: word, probability: label.confidence))
            }
        }
        return topics.sorted { $0.probability > $1.probability }
    }
}
