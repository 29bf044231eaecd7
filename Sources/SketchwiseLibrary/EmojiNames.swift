import Foundation
import SketchwiseLocalization

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

/// The name and keywords of an emoji (a scalar or a sequence), from CLDR's English annotations
/// (``SketchwiseLocalization/CLDRAnnotations``): 🍎 is "red apple" with keywords apple, fruit,
/// red; 🐻‍❄️ is "polar bear". Emoji the files do not name (or all, when the files are missing)
/// fall back to their Unicode names.
public struct EmojiNames: Sendable {
    private let annotations: CLDRAnnotations

    /// Reads CLDR annotation files (`common/annotations/en.xml` and
    /// `common/annotationsDerived/en.xml`); files that are missing or unreadable are left out.
    public init(files: [URL] = LibraryLocations.debianEmojiAnnotations) {
        annotations = CLDRAnnotations(files: files)
    }

    /// Whether any annotation was read.
    public var isEmpty: Bool { annotations.names.isEmpty }

    /// The entry of `emoji`: CLDR's name and keywords (lowercased), or else, for a single scalar,
    /// its Unicode name with the name's words as keywords; nil when neither names it.
    public func entry(_ emoji: String) -> PictureName? {
        if let title = annotations.name(of: emoji)?.lowercased() {
            let words = Set(WordMatcher.words(title).map { [$0] } + [WordMatcher.words(title)])
            let keywords = annotations.keywords(of: emoji).map { $0.lowercased() }
            return PictureName(title: title, keywords: keywords.filter { !words.contains(WordMatcher.words($0)) })
        }
        let scalars = Array(CLDRAnnotations.key(emoji).unicodeScalars)
        guard scalars.count == 1, let name = scalars[0].properties.name else { return nil }
        let title = name.lowercased()
        return PictureName(title: title, keywords: EmojiCatalog.keywords(of: title))
    }
}
