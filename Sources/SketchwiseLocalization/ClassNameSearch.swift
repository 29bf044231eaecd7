import Foundation

/// Finds drawing classes by what a person types, in their language: the class's name in it, its
/// English label, and CLDR's keywords (in that language) of the emoji named like the class. The
/// best matches first: a whole name, a name's start, a word's start, a whole keyword, a keyword's
/// start, then anywhere in a name or keyword. Case, accents and full-width forms do not matter.
public struct ClassNameSearch: Sendable {
    private struct Entry: Sendable {
        let label: String
        /// Folded: the locale's name first, then the English label.
        let names: [String]
        let keywords: [String]
    }

    private let entries: [Entry]

    /// The search over `labels` in `locale`. `annotations` are the locale's CLDR annotations and
    /// `english` CLDR's English ones, which tell which emoji is named like a class (🐈 "cat").
    public init(labels: [String], names: ClassNames, locale: AppLocale, annotations: CLDRAnnotations, english: CLDRAnnotations) {
        var emojiByEnglishName: [String: [String]] = [:]
        for (emoji, name) in english.names { emojiByEnglishName[name.lowercased(), default: []].append(emoji) }
        entries = labels.map { label in
            let emoji = [label, label + " face"].flatMap { emojiByEnglishName[$0.lowercased()] ?? [] }
            let keywords = emoji.flatMap { [annotations.name(of: $0)].compactMap { $0 } + annotations.keywords(of: $0) }
            return Entry(
                label: label, names: Self.unique([names.name(of: label, in: locale), label].map(Self.folded)),
                keywords: Self.unique(keywords.map(Self.folded)))
        }
    }

    /// The labels that match `query`, best first, at most `limit`; none for a blank query.
    public func labels(matching query: String, limit: Int) -> [String] {
        let query = Self.folded(query.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !query.isEmpty, limit > 0 else { return [] }
        var ranked: [(rank: Int, length: Int, order: Int, label: String)] = []
        for (order, entry) in entries.enumerated() {
            guard let (rank, length) = Self.rank(of: query, in: entry) else { continue }
            ranked.append((rank, length, order, entry.label))
        }
        ranked.sort { ($0.rank, $0.length, $0.order) < ($1.rank, $1.length, $1.order) }
        return ranked.prefix(limit).map(\.label)
    }

    /// How well `query` matches an entry (lower is better) and the length of what it matched.
    private static func rank(of query: String, in entry: Entry) -> (Int, Int)? {
        let tiers: [(texts: [String], test: (String) -> Bool)] = [
            (entry.names, { $0 == query }),
            (entry.names, { $0.hasPrefix(query) }),
            (entry.names, { name in words(name).contains { $0.hasPrefix(query) } }),
            (entry.keywords, { $0 == query }),
            (entry.keywords, { $0.hasPrefix(query) }),
            (entry.names, { $0.contains(query) }),
            (entry.keywords, { $0.contains(query) }),
        ]
        for (rank, tier) in tiers.enumerated() {
            if let text = tier.texts.first(where: tier.test) { return (rank, text.count) }
        }
        return nil
    }

    /// Text as searches compare it: lowercased, without accents, full-width forms as ASCII.
    public static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    private static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
    }

    private static func unique(_ texts: [String]) -> [String] {
        var seen: Set<String> = []
        return texts.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
