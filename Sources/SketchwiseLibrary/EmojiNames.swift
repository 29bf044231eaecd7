import Foundation

/// What a picture of a named source is called: its title and keywords.
public struct PictureName: Sendable, Hashable {
    /// Lowercased: `red apple`.
    public var title: String
    /// Further words for what it shows (CLDR's keywords without the title's): `apple`, `fruit`.
    public var keywords: [String]

    public init(title: String, keywords: [String]) {
        self.title = title
        self.keywords = keywords
    }

    /// A Lucide icon's name, from its file name: `tree-pine.svg` is "tree pine".
    static func lucide(fileName: String) -> PictureName {
        let base = (fileName as NSString).deletingPathExtension
        return PictureName(title: base.replacingOccurrences(of: "-", with: " ").lowercased(), keywords: [])
    }
}

/// The name and keywords of an emoji (a scalar or a sequence), from CLDR's English annotations:
/// 🍎 is "red apple" with keywords apple, fruit, red; 🐻‍❄️ is "polar bear". Emoji the files do
/// not name (or all, when the files are missing) fall back to their Unicode names.
public struct EmojiNames: Sendable {
    private var titles: [String: String] = [:]
    private var keywords: [String: [String]] = [:]

    /// Reads CLDR annotation files (`common/annotations/en.xml` and
    /// `common/annotationsDerived/en.xml`); files that are missing or unreadable are left out.
    public init(files: [URL] = LibraryLocations.debianEmojiAnnotations) {
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") { read(line) }
        }
    }

    /// Whether any annotation was read.
    public var isEmpty: Bool { titles.isEmpty }

    /// The entry of `emoji`: CLDR's name and keywords, or else, for a single scalar, its Unicode
    /// name with the name's words as keywords; nil when neither names it.
    public func entry(_ emoji: String) -> PictureName? {
        let key = Self.key(emoji)
        if let title = titles[key] {
            let words = Set(WordMatcher.words(title).map { [$0] } + [WordMatcher.words(title)])
            return PictureName(title: title, keywords: (keywords[key] ?? []).filter { !words.contains(WordMatcher.words($0)) })
        }
        let scalars = Array(key.unicodeScalars)
        guard scalars.count == 1, let name = scalars[0].properties.name else { return nil }
        let title = name.lowercased()
        return PictureName(title: title, keywords: EmojiCatalog.keywords(of: title))
    }

    /// Annotations are keyed without variation selector 16, which files name inconsistently.
    private static func key(_ emoji: String) -> String {
        String(String.UnicodeScalarView(emoji.unicodeScalars.filter { $0.value != 0xFE0F }))
    }

    /// One line: `<annotation cp="🍎">apple | fruit | red</annotation>` or the same with
    /// `type="tts"` for the name.
    private mutating func read(_ line: Substring) {
        guard let start = line.range(of: "<annotation cp=\""), let quote = line[start.upperBound...].firstIndex(of: "\""),
            let open = line[quote...].firstIndex(of: ">"), let close = line.range(of: "</annotation>", range: open..<line.endIndex)
        else { return }
        let emoji = Self.key(Self.unescaped(line[start.upperBound..<quote]))
        let value = Self.unescaped(line[line.index(after: open)..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
        guard !emoji.isEmpty, !value.isEmpty else { return }
        if line[quote..<open].contains("type=\"tts\"") {
            titles[emoji] = value.lowercased()
        } else {
            keywords[emoji] = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
                !$0.isEmpty
            }
        }
    }

    private static func unescaped(_ text: Substring) -> String {
        var text = String(text)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }
}
