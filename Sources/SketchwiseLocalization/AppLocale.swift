/// A language Sketchwise speaks, by its BCP 47 tag: English (the source), Simplified Chinese,
/// Hebrew (right to left), Spanish, French, German and Japanese.
public enum AppLocale: String, CaseIterable, Sendable, Codable {
    case english = "en"
    case chineseSimplified = "zh-Hans"
    case hebrew = "he"
    case spanish = "es"
    case french = "fr"
    case german = "de"
    case japanese = "ja"

    /// The BCP 47 tag: `zh-Hans`.
    public var tag: String { rawValue }

    /// The language's name in itself, as a language picker shows it.
    public var endonym: String {
        switch self {
        case .english: "English"
        case .chineseSimplified: "简体中文"
        case .hebrew: "עברית"
        case .spanish: "Español"
        case .french: "Français"
        case .german: "Deutsch"
        case .japanese: "日本語"
        }
    }

    /// Whether its text runs right to left.
    public var isRightToLeft: Bool { self == .hebrew }

    /// The name of its CLDR data files (`zh` holds Simplified Chinese).
    public var cldrName: String { self == .chineseSimplified ? "zh" : rawValue }

    /// The locale a BCP 47 tag asks for, nil when Sketchwise does not speak it. Case does not
    /// matter and `_` reads as `-`. Regions fall back to their language (`es-MX` is Spanish);
    /// Chinese is Simplified unless the tag asks for Traditional script or a region that writes it
    /// (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`); `iw` is the old tag of Hebrew.
    public init?(tag: String) {
        let subtags = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let language = subtags.first else { return nil }
        switch language {
        case "en": self = .english
        case "he", "iw": self = .hebrew
        case "es": self = .spanish
        case "fr": self = .french
        case "de": self = .german
        case "ja": self = .japanese
        case "zh":
            let rest = Set(subtags.dropFirst())
            if rest.contains("hans") {
                self = .chineseSimplified
            } else if !rest.isDisjoint(with: ["hant", "tw", "hk", "mo"]) {
                return nil
            } else {
                self = .chineseSimplified
            }
        default: return nil
        }
    }
}
