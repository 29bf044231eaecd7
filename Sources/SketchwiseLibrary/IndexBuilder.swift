import Foundation
import GRDB
import SketchwiseRaster

/// Builds or brings up to date the library index: finds the sources' pictures, renders each by
/// the picture recipe (outline for the model, colour thumbnail), embeds it with the raster model
/// and stores it with its metadata.
///
/// - Incremental: a file whose size, modification time and pipeline (recipe, model, thumbnail
///   size, naming rules) are as stored is not read again; one whose bytes hash as stored is not
///   re-rendered.
///   Items whose files are gone are removed.
/// - Resumable: results are committed every ``batchSize`` items, so a killed build loses at most
///   one batch and the next build carries on.
/// - Malformed files are skipped, remembered with their reason, and counted.
public struct IndexBuilder: Sendable {
    public var sources: Set<LibrarySource>
    public var locations: LibraryLocations
    /// Threads rendering and embedding in parallel.
    public var threads = 2
    /// Items per committed transaction.
    public var batchSize = 128
    public var recipe = PictureRecipe.outline
    public var thumbnailSize = 96
    /// The version of the rules that name and filter pictures as they are indexed.
    public var namingRules = Self.currentNamingRules

    /// The version of the rules that name and filter pictures as they are indexed
    /// (``PictureName``, ``TablerIcon``, ``ClipArtMetadata``, ``EmojiNames``). Bump it with any
    /// change to them: the next build then indexes again what an older rule named, which an
    /// unchanged file would otherwise keep.
    public static let currentNamingRules = 2

    public init(sources: Set<LibrarySource> = Set(LibrarySource.allCases), locations: LibraryLocations = LibraryLocations()) {
        self.sources = sources
        self.locations = locations
    }

    /// Where a build is, after each committed batch.
    public struct Progress: Sendable {
        /// Items processed (rendered, skipped as malformed or found unchanged) so far.
        public var done: Int
        /// Items to process in this build.
        public var total: Int
    }

    /// Builds into `database`. `progress` is called after every committed batch; an error it
    /// throws stops the build there (what was committed stays).
    /// - Throws: ``LibraryError`` for a missing source, a database error or a failing model.
    public func build(
        into database: LibraryDatabase, embedder: PictureEmbedder, progress: (Progress) throws -> Void = { _ in }
    ) throws -> IndexReport {
        let start = Date()
        guard (1...64).contains(threads), (1...100_000).contains(batchSize) else {
            throw LibraryError("threads must be within 1…64 and the batch size within 1…100000")
        }
        let emojiNames = EmojiNames(files: locations.emojiAnnotations)
        let names = emojiNames.isEmpty ? "unicode names" : "cldr names"
        let pipeline =
            "\(recipe.identity) | \(embedder.identity) | thumbnail \(thumbnailSize) | aspect | \(names) | naming \(namingRules)"
        let emojiFont = sources.contains(.emoji) ? locations.emojiFont : nil
        if let emojiFont, !FileManager.default.fileExists(atPath: emojiFont.path) {
            throw LibraryError(
                "emoji font \(emojiFont.path) not found: install fonts-noto-color-emoji (scripts/install-deps.sh) or pass another font")
        }
        let workers = try (0..<threads).map { _ throws(LibraryError) in
            try IndexWorker(embedder: embedder, pipeline: pipeline, recipe: recipe, thumbnailSize: thumbnailSize, emojiFont: emojiFont)
        }
        var report = IndexReport()
        var jobs: [IndexJob] = []
        for source in LibrarySource.allCases where sources.contains(source) {
            let known = try database.stamps(of: source)
            var plan =
                switch source {
                case .clipart, .openmoji, .lucide, .tabler, .doodle:
                    try planFolder(of: source, known: known, pipeline: pipeline, names: emojiNames)
                case .emoji:
                    try planEmoji(known: known, pipeline: pipeline, font: locations.emojiFont, glyphs: workers[0], names: emojiNames)
                }
            let gone = Set(known.keys).subtracting(plan.ids)
            try database.write { db in
                for table in [LibraryItem.databaseTableName, SkippedFile.databaseTableName] {
                    for id in gone { try db.execute(sql: "DELETE FROM \(table) WHERE id = ?", arguments: [id]) }
                }
            }
            plan.report.removed = gone.count
            report.sources[source] = plan.report
            jobs += plan.jobs
        }
        let parallel = IndexPipeline(jobs: jobs, workers: workers)
        defer { parallel.stop() }
        for batchStart in stride(from: 0, to: jobs.count, by: batchSize) {
            let batchEnd = min(jobs.count, batchStart + batchSize)
            let outcomes = try parallel.outcomes(batchStart..<batchEnd)
            try database.write { db in
                for outcome in outcomes { try Self.store(outcome, in: db, report: &report) }
            }
            try progress(Progress(done: batchEnd, total: jobs.count))
        }
        try database.write { try Self.chooseClipartTitles(in: $0) }
        report.items = try database.itemCounts()
        report.malformed = try database.skippedCounts()
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    /// The jobs of one source, the ids it offers now, and its counts so far.
    private struct Plan {
        var jobs: [IndexJob] = []
        var ids: Set<String> = []
        var report = IndexReport.SourceReport()
    }

    private static func isCurrent(_ known: FileStamp?, size: Int64, modified: Double, pipeline: String) -> Bool {
        guard let known else { return false }
        return known.fileSize == size && known.fileModified == modified && known.pipeline == pipeline
    }

    /// The SVG files of a folder source. OpenMoji files are named by ``EmojiNames`` and left out
    /// when ``OpenMojiArt/emoji(fileName:)`` leaves them out or nothing names them; Lucide files
    /// are named by their file names, Tabler's by theirs and their tags unless ``TablerIcon``
    /// leaves them out; doodles by their class's folder; clip-art names itself when it is read.
    private func planFolder(of source: LibrarySource, known: [String: FileStamp], pipeline: String, names: EmojiNames) throws(LibraryError)
        -> Plan
    {
        var plan = Plan()
        let (files, aliases) = try SVGFolder.scan(locations.location(of: source), of: source)
        plan.report.aliases = aliases
        for file in files {
            let fileName = file.url.lastPathComponent
            let current = Self.isCurrent(known[file.id], size: file.size, modified: file.modified, pipeline: pipeline)
            let name: PictureName?
            switch source {
            case .openmoji:
                guard let emoji = OpenMojiArt.emoji(fileName: fileName), let entry = names.entry(emoji) else {
                    plan.report.unnamed += 1
                    continue
                }
                name = entry
            case .lucide: name = PictureName.lucide(fileName: fileName)
            case .tabler where current:
                name = nil  // indexed before, so it passed the check below; its comment is not read again
            case .tabler:
                let icon = TablerIcon(fileName: fileName, header: SVGFolder.header(of: file.url))
                guard icon.depictsAThing else {
                    plan.report.symbols += 1
                    continue
                }
                name = icon.name
            case .doodle:
                guard !file.category.isEmpty, !file.category.contains("/") else {
                    plan.report.unnamed += 1
                    continue
                }
                name = PictureName(title: file.category, keywords: [])
            case .clipart, .emoji: name = nil
            }
            plan.report.found += 1
            plan.ids.insert(file.id)
            if current {
                plan.report.unchanged += 1
            } else {
                plan.jobs.append(.svg(file, name: name, known: known[file.id]))
            }
        }
        return plan
    }

    private func planEmoji(
        known: [String: FileStamp], pipeline: String, font: URL, glyphs: IndexWorker, names: EmojiNames
    ) throws(LibraryError) -> Plan {
        var plan = Plan()
        let values = try? font.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
        let size = Int64(values?.fileSize ?? -1)
        let modified = values?.contentModificationDate?.timeIntervalSince1970 ?? 0
        var stamp: FileStamp?
        for entry in EmojiCatalog.entries(names: names) {
            guard glyphs.hasGlyph(entry.scalar) else {
                plan.report.notInFont += 1
                continue
            }
            let id = "\(LibrarySource.emoji.rawValue):\(entry.code)"
            plan.report.found += 1
            plan.ids.insert(id)
            if Self.isCurrent(known[id], size: size, modified: modified, pipeline: pipeline) {
                plan.report.unchanged += 1
                continue
            }
            if stamp == nil {
                guard let bytes = FileManager.default.contents(atPath: font.path) else { throw LibraryError("cannot read \(font.path)") }
                var hash = ContentHash()
                bytes.withUnsafeBytes { hash.add($0) }
                stamp = FileStamp(fileHash: hash.hex, fileSize: size, fileModified: modified, pipeline: pipeline)
            }
            if let stamp { plan.jobs.append(.emoji(entry, font: stamp, fontPath: font.path, known: known[id])) }
        }
        return plan
    }

    /// Titles every clip-art item by ``ClipArtMetadata/title(_:sharedBy:fileName:)``: this needs
    /// the whole library, so it runs after every build.
    private static func chooseClipartTitles(in db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, path, title, sourceTitle FROM item WHERE source = ?", arguments: [LibrarySource.clipart.rawValue]
        )
        var counts: [String: Int] = [:]
        for row in rows { if let title: String = row["sourceTitle"] { counts[title, default: 0] += 1 } }
        for row in rows {
            let sourceTitle: String? = row["sourceTitle"]
            let path: String = row["path"]
            let title = ClipArtMetadata.title(
                sourceTitle, sharedBy: sourceTitle.map { counts[$0] ?? 0 } ?? 0, fileName: (path as NSString).lastPathComponent)
            if title != row["title"] {
                try db.execute(sql: "UPDATE item SET title = ? WHERE id = ?", arguments: [title, row["id"] as String])
            }
        }
    }

    private static func store(_ outcome: IndexOutcome, in db: Database, report: inout IndexReport) throws {
        switch outcome {
        case let .indexed(item):
            try SkippedFile.deleteOne(db, key: item.id)
            try item.upsert(db)
            report.sources[item.source]?.indexed += 1
        case let .skipped(file):
            try LibraryItem.deleteOne(db, key: file.id)
            try file.upsert(db)
            report.sources[file.source]?.skipped[file.reason, default: 0] += 1
        case let .unchanged(id, source, stamp):
            for table in [LibraryItem.databaseTableName, SkippedFile.databaseTableName] {
                try db.execute(
                    sql: "UPDATE \(table) SET fileSize = ?, fileModified = ?, pipeline = ? WHERE id = ?",
                    arguments: [stamp.fileSize, stamp.fileModified, stamp.pipeline, id]
                )
            }
            report.sources[source]?.unchanged += 1
        }
    }
}
