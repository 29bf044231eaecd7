/// One emoji of the library: a single Unicode scalar, named by CLDR or its Unicode name.
public struct EmojiEntry: Sendable, Hashable {
    public var scalar: Unicode.Scalar
    /// The name, lowercased: `grinning face with smiling eyes`.
    public var title: String
    /// CLDR's keywords, or the Unicode name's words without little words.
    public var keywords: [String]

    /// The item id: `U+1F600`.
    public var code: String { "U+" + String(scalar.value, radix: 16, uppercase: true) }
}

/// The emoji of the font to index, from Swift's Unicode scalar properties, named by ``EmojiNames``.
public enum EmojiCatalog {
    /// Single scalars that are emoji (`isEmoji`) and pictures: not ASCII (digits, `#`, `*` are
    /// emoji only as keycap bases), not skin-tone modifiers, not regional indicator letters
    /// (flags need pairs), and with a Unicode name. Text-style emoji (`isEmojiPresentation` false,
    /// such as ☀ or ✈) are included: a colour font draws them as pictures too. Sequences (ZWJ,
    /// flags, skin tones, keycaps) are not single scalars and are left out.
    public static func entries(names: EmojiNames = EmojiNames()) -> [EmojiEntry] {
        (0x80...0x1FFFF).compactMap { value -> EmojiEntry? in
            guard let scalar = Unicode.Scalar(UInt32(value)) else { return nil }
            let properties = scalar.properties
            guard properties.isEmoji, !properties.isEmojiModifier, !(0x1F1E6...0x1F1FF).contains(value),
                  let entry = names.entry(String(Character(scalar)))
            else { return nil }
            return EmojiEntry(scalar: scalar, title: entry.title, keywords: entry.keywords)
        }
    }

    private static let littleWords: Set<String> = ["a", "an", "and", "the", "of", "with", "in", "on", "for", "or", "to"]

    /// A name's words without little words, each once.
    static func keywords(of title: String) -> [String] {
        var keywords: [String] = []
        for word in title.split(separator: " ").map(String.init) where !littleWords.contains(word) && !keywords.contains(word) {
            keywords.append(word)
        }
        return keywords
    }
}
