import Foundation

/// What a Tabler outline icon is called and whether it draws a thing, from its file name and the
/// comment Tabler puts before each SVG (`tags: [camping, bonfire, wood]`, `category: Map`).
struct TablerIcon: Sendable, Equatable {
    /// The file name without `.svg`: `building-lighthouse`.
    var baseName: String
    /// Tabler's category (`Buildings`), when the file names one.
    var category: String?
    /// Tabler's tags, lowercased.
    var tags: [String]

    /// Tabler's categories of interface and typographic symbols: arrows, letters, brand logos,
    /// charts, files. Their icons name an action or a mark, not a thing one draws.
    static let symbolCategories: Set<String> = [
        "System", "Brand", "Arrows", "Letters", "Numbers", "Text", "Math", "Currencies", "Database", "Development",
        "Version control", "Logic", "Charts", "Document", "Extensions", "Badges", "Zodiac", "Gender",
    ]

    /// First words of Tabler's file names that group icons rather than say what they draw:
    /// `building-lighthouse` is a lighthouse, `device-tv` a television, `ball-basketball` a
    /// basketball.
    static let groupWords: Set<String> = ["building", "device", "ball"]

    /// - Parameters:
    ///   - fileName: `campfire.svg`.
    ///   - header: the start of the file, which holds Tabler's comment (``SVGFolder/header(of:)``).
    init(fileName: String, header: String) {
        baseName = (fileName as NSString).deletingPathExtension.lowercased()
        category = nil
        tags = []
        guard let open = header.range(of: "<!--"), let close = header.range(of: "-->", range: open.upperBound..<header.endIndex)
        else { return }
        let comment = header[open.upperBound..<close.lowerBound]
        for line in comment.split(whereSeparator: \.isNewline) {
            let field = line.trimmingCharacters(in: .whitespaces)
            if field.hasPrefix("category:") {
                category = Self.unquoted(field.dropFirst("category:".count))
            } else if field.hasPrefix("tags:") {
                let list = field.dropFirst("tags:".count).trimmingCharacters(in: CharacterSet(charactersIn: " []"))
                tags = list.split(separator: ",").map { Self.unquoted($0).lowercased() }.filter { !$0.isEmpty }
            }
        }
    }

    /// Whether the icon draws a thing: not a crossed-out variant (`campfire-off`) and not in one of
    /// the ``symbolCategories``.
    var depictsAThing: Bool {
        !baseName.hasSuffix("-off") && !(category.map(Self.symbolCategories.contains) ?? false)
    }

    /// The title from the file name without a group word (`building-lighthouse` is "lighthouse"),
    /// and the tags as keywords.
    var name: PictureName {
        var words = baseName.split(separator: "-").map(String.init)
        if words.count > 1, let first = words.first, Self.groupWords.contains(first) { words.removeFirst() }
        let title = words.joined(separator: " ")
        return PictureName(title: title, keywords: tags.filter { $0 != title })
    }

    private static func unquoted(_ text: Substring) -> String {
        text.trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
    }
}
