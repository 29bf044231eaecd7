import Foundation

/// What an index build did, per source, and what the index holds afterwards.
public struct IndexReport: Sendable, Equatable {
    public struct SourceReport: Sendable, Equatable {
        /// Pictures the source offers: SVG files (named ones for OpenMoji), or emoji the font has a
        /// glyph for.
        public var found = 0
        /// Items already up to date (not rendered again).
        public var unchanged = 0
        /// Items rendered, embedded and stored in this build.
        public var indexed = 0
        /// Malformed files met in this build, by reason.
        public var skipped: [SkipReason: Int] = [:]
        /// Items and skipped files of this source dropped because they are gone.
        public var removed = 0
        /// Clip-art: symbolic links left out because they point at a drawing of the folder.
        public var aliases = 0
        /// Emoji: emoji scalars the font has no glyph for.
        public var notInFont = 0
        /// OpenMoji: files left out as skin-tone variants, flags of countries or regions, or with
        /// no name; doodles: files outside a class's folder.
        public var unnamed = 0
        /// Tabler: interface symbols and crossed-out icons left out (``TablerIcon/depictsAThing``).
        public var symbols = 0
    }

    public var sources: [LibrarySource: SourceReport] = [:]
    /// Items per source in the index after the build.
    public var items: [LibrarySource: Int] = [:]
    /// Malformed files per source and reason in the index after the build (this build's and
    /// earlier builds' still present).
    public var malformed: [LibrarySource: [SkipReason: Int]] = [:]
    /// Wall-clock time of the build.
    public var seconds = 0.0

    /// A few lines for people.
    public var summary: String {
        var lines: [String] = []
        for source in LibrarySource.allCases {
            guard let r = sources[source] else { continue }
            var line = "\(source.rawValue): \(items[source] ?? 0) items (found \(r.found): \(r.indexed) indexed, \(r.unchanged) unchanged"
            let skipped = r.skipped.values.reduce(0, +)
            if skipped > 0 { line += ", \(skipped) malformed" }
            if r.removed > 0 { line += ", \(r.removed) removed" }
            if r.aliases > 0 { line += "; \(r.aliases) links to drawings already in the folder left out" }
            if r.notInFont > 0 { line += "; \(r.notInFont) emoji not in the font" }
            if r.unnamed > 0 { line += "; \(r.unnamed) skin-tone variants, flags and unnamed pictures left out" }
            if r.symbols > 0 { line += "; \(r.symbols) interface symbols and crossed-out icons left out" }
            lines.append(line + ")")
            if let reasons = malformed[source], !reasons.isEmpty {
                let text = SkipReason.allCases.compactMap { reason in reasons[reason].map { "\(reason.rawValue) \($0)" } }
                lines.append("  malformed files in the index: " + text.joined(separator: ", "))
            }
        }
        lines.append("took \(String(format: "%.1f", seconds)) s")
        return lines.joined(separator: "\n")
    }
}
