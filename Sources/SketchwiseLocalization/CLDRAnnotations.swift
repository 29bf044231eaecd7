import Foundation

/// Unicode CLDR's emoji annotations in one language: each emoji's short name (`type="tts"`) and
/// keywords, as written in `common/annotations/<lang>.xml` and `common/annotationsDerived/<lang>.xml`
/// (Debian's `unicode-cldr-core`). Emoji are keyed without variation selector 16, which the files
/// write inconsistently; names and keywords keep their case (German nouns are capitalised).
public struct CLDRAnnotations: Sendable {
    /// Short names by emoji key.
    public private(set) var names: [String: String] = [:]
    /// Keywords by emoji key.
    public private(set) var keywords: [String: [String]] = [:]

    /// Reads annotation files; files that are missing or unreadable are left out.
    public init(files: [URL]) {
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") { read(line) }
        }
    }

    /// Debian's files for `locale`: its annotations and those of emoji sequences.
    public static func debianFiles(for locale: AppLocale) -> [URL] {
        ["annotations", "annotationsDerived"].map {
            URL(fileURLWithPath: "/usr/share/unicode/cldr/common/\($0)/\(locale.cldrName).xml")
        }
    }

    /// Whether any annotation was read.
    public var isEmpty: Bool { names.isEmpty && keywords.isEmpty }

    /// The short name of `emoji`, if the files name it.
    public func name(of emoji: String) -> String? { names[Self.key(emoji)] }

    /// The keywords of `emoji` (none when the files have none).
    public func keywords(of emoji: String) -> [String] { keywords[Self.key(emoji)] ?? [] }

    /// `emoji` without variation selector 16.
    public static func key(_ emoji: String) -> String {
        String(String.UnicodeScalarView(emoji.unicodeScalars.filter { $0.value != 0xFE0F }))
    }

    /// One line: `<annotation cp="🍎">apple | fruit | red</annotation>`, or the same with
    /// `type="tts"` for the name. CLDR's `↑↑↑` (inherit from the parent language) is left out.
    private mutating func read(_ line: Substring) {
        guard let start = line.range(of: "<annotation cp=\""), let quote = line[start.upperBound...].firstIndex(of: "\""),
            let open = line[quote...].firstIndex(of: ">"), let close = line.range(of: "</annotation>", range: open..<line.endIndex)
        else { return }
        let emoji = Self.key(Self.unescaped(line[start.upperBound..<quote]))
        let value = Self.unescaped(line[line.index(after: open)..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
        guard !emoji.isEmpty, !value.isEmpty, value != "↑↑↑" else { return }
        if line[quote..<open].contains("type=\"tts\"") {
            names[emoji] = value
        } else {
            keywords[emoji] = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
