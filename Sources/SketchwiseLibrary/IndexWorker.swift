import Foundation
import SketchwiseRaster

/// One thing to (re)index.
enum IndexJob: Sendable {
    /// An SVG file, with its name when its source names it (clip-art names itself in its RDF),
    /// and what the index knew of it.
    case svg(SVGFile, name: PictureName?, known: FileStamp?)
    /// An emoji of the font whose stamp (hash included) is given.
    case emoji(EmojiEntry, font: FileStamp, fontPath: String, known: FileStamp?)
}

/// What processing a job gave.
enum IndexOutcome: Sendable {
    case indexed(LibraryItem)
    case skipped(SkippedFile)
    /// The file's bytes are unchanged (only its time changed): the stored stamp is updated.
    case unchanged(id: String, source: LibrarySource, FileStamp)
}

/// Renders and embeds jobs on one thread, with rasterisers of its own.
final class IndexWorker {
    private let embedder: PictureEmbedder
    private let pipeline: String
    private let svg: SVGRasterizer
    private let emoji: EmojiRasterizer?

    /// Files larger than this are not read (a drawing of the library is at most a few MB).
    static let maxFileSize: Int64 = 64 << 20

    init(embedder: PictureEmbedder, pipeline: String, recipe: PictureRecipe, thumbnailSize: Int, emojiFont: URL?) throws(LibraryError) {
        self.embedder = embedder
        self.pipeline = pipeline
        do {
            svg = try SVGRasterizer(size: embedder.inputSize, recipe: recipe, thumbnailSize: thumbnailSize)
            emoji = try emojiFont.map { font throws(RasterError) in
                try EmojiRasterizer(fontPath: font.path, size: embedder.inputSize, recipe: recipe, thumbnailSize: thumbnailSize)
            }
        } catch {
            throw LibraryError("cannot set up rendering: \(error)")
        }
    }

    /// Whether the emoji font has a glyph of its own for `scalar`.
    func hasGlyph(_ scalar: Unicode.Scalar) -> Bool { emoji?.hasGlyph(scalar) ?? false }

    /// Processes one job. Malformed input gives `.skipped`; only a failing model throws.
    func process(_ job: IndexJob) throws(LibraryError) -> IndexOutcome {
        switch job {
        case let .svg(file, name, known): try process(file, name: name, known: known)
        case let .emoji(entry, font, fontPath, known): try process(entry, font: font, fontPath: fontPath, known: known)
        }
    }

    private func process(_ file: SVGFile, name: PictureName?, known: FileStamp?) throws(LibraryError) -> IndexOutcome {
        var stamp = FileStamp(fileHash: "", fileSize: file.size, fileModified: file.modified, pipeline: pipeline)
        func skip(_ reason: SkipReason, _ detail: String) -> IndexOutcome {
            .skipped(SkippedFile(id: file.id, source: file.source, path: file.url.path, reason: reason, detail: detail, file: stamp))
        }
        guard file.size <= Self.maxFileSize else { return skip(.unreadable, "larger than \(Self.maxFileSize >> 20) MB") }
        guard let data = FileManager.default.contents(atPath: file.url.path) else { return skip(.unreadable, "cannot read the file") }
        let bytes = [UInt8](data)
        stamp.fileHash = ContentHash.of(bytes)
        if let known, known.fileHash == stamp.fileHash, known.pipeline == pipeline {
            return .unchanged(id: file.id, source: file.source, stamp)
        }
        let metadata: ClipArtMetadata
        do { metadata = try ClipArtMetadata.parse(bytes) } catch { return skip(.invalidXML, error.description) }
        let picture: RenderedPicture
        do { picture = try svg.render(OpenMojiArt.drawn(bytes, of: file.source)) } catch {
            return skip(SkipReason(error.reason), error.detail)
        }
        if let name {
            return try indexed(
                picture, id: file.id, source: file.source, path: file.url.path, title: name.title, sourceTitle: name.title,
                keywords: name.keywords, license: License.of(file.source), file: stamp
            )
        }
        return try indexed(
            picture, id: file.id, source: file.source, path: file.url.path,
            title: metadata.title ?? ClipArtMetadata.title(fromFileName: file.url.lastPathComponent), sourceTitle: metadata.title,
            keywords: Self.keywords(metadata.keywords, category: file.category), license: License.clipart(declared: metadata.licenseURL),
            file: stamp
        )
    }

    private func process(_ entry: EmojiEntry, font: FileStamp, fontPath: String, known: FileStamp?) throws(LibraryError) -> IndexOutcome {
        let id = "\(LibrarySource.emoji.rawValue):\(entry.code)"
        if let known, known.fileHash == font.fileHash, known.pipeline == font.pipeline { return .unchanged(id: id, source: .emoji, font) }
        guard let emoji else { throw LibraryError("no emoji font was set up") }
        let picture: RenderedPicture
        do { picture = try emoji.render(entry.scalar) } catch {
            return .skipped(
                SkippedFile(id: id, source: .emoji, path: fontPath, reason: SkipReason(error.reason), detail: error.detail, file: font))
        }
        return try indexed(
            picture, id: id, source: .emoji, path: fontPath, title: entry.title, sourceTitle: entry.title, keywords: entry.keywords,
            license: License.notoEmoji, file: font
        )
    }

    /// The drawing's RDF keywords, then the names of its folders (`food/fruit`: food, fruit).
    static func keywords(_ keywords: [String], category: String) -> [String] {
        var all = keywords
        for folder in category.split(separator: "/").map({ $0.lowercased().replacingOccurrences(of: "_", with: " ") })
        where !all.contains(folder) {
            all.append(folder)
        }
        return all
    }

    private func indexed(
        _ picture: RenderedPicture, id: String, source: LibrarySource, path: String, title: String, sourceTitle: String?,
        keywords: [String],
        license: String, file: FileStamp
    ) throws(LibraryError) -> IndexOutcome {
        let (embedding, top) = try embedder.describe(picture.raster)
        return .indexed(
            LibraryItem(
                id: id, source: source, path: path, title: title, sourceTitle: sourceTitle, keywords: keywords, license: license,
                thumbnail: Data(picture.thumbnailPNG), aspect: picture.aspect, raster: picture.raster, embedding: embedding,
                topClasses: top, file: file
            ))
    }
}
