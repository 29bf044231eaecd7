import Foundation

/// Where suggestions come from. Each source is a Debian package the set-up installs.
public enum LibrarySource: String, Sendable, Hashable, CaseIterable, Codable {
    /// Open Clip Art Library drawings (`openclipart-svg`): SVG files with RDF titles and keywords.
    case clipart
    /// Noto Color Emoji glyphs (`fonts-noto-color-emoji`), named by their Unicode names.
    case emoji

    /// Parses a comma-separated list such as `clipart,emoji`.
    /// - Throws: ``LibraryError`` naming an unknown source, or for an empty list.
    public static func list(_ text: String) throws(LibraryError) -> Set<LibrarySource> {
        var sources: Set<LibrarySource> = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let source = LibrarySource(rawValue: name.lowercased()) else {
                throw LibraryError("unknown source '\(name)' (known: \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            sources.insert(source)
        }
        guard !sources.isEmpty else { throw LibraryError("no source given (known: \(allCases.map(\.rawValue).joined(separator: ", ")))") }
        return sources
    }
}

/// Where the sources' files are and which of them to index.
public struct LibraryLocations: Sendable, Equatable {
    /// The folder of SVG drawings, searched recursively.
    public var clipartFolder: URL
    /// The colour emoji font.
    public var emojiFont: URL

    public init(clipartFolder: URL = Self.debianClipart, emojiFont: URL = Self.debianEmojiFont) {
        self.clipartFolder = clipartFolder
        self.emojiFont = emojiFont
    }

    /// Where Debian's `openclipart-svg` puts its drawings.
    public static let debianClipart = URL(fileURLWithPath: "/usr/share/openclipart/svg")
    /// Where Debian's `fonts-noto-color-emoji` puts its font.
    public static let debianEmojiFont = URL(fileURLWithPath: "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
}

/// The licence texts recorded with each item (see `/usr/share/doc/<package>/copyright`).
enum Licence {
    /// Debian's `openclipart-svg`: every drawing is dedicated to the public domain.
    static let openClipArt = "public domain (Open Clip Art Library dedication, as CC0; Debian openclipart-svg)"
    /// Debian's `fonts-noto-color-emoji`: the font is under the SIL Open Font License 1.1.
    static let notoEmoji = "SIL Open Font License 1.1 (Noto Color Emoji, Google; Debian fonts-noto-color-emoji)"

    /// The licence of a drawing that names one in its RDF (`cc:license`): public domain unless it
    /// declares another licence, which is then recorded as declared.
    static func clipart(declared url: String?) -> String {
        guard let url = url?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty,
              !url.lowercased().contains("publicdomain"), !url.lowercased().contains("zero/1.0")
        else { return openClipArt }
        return "declared in the file: \(url)"
    }
}
