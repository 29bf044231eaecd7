import Foundation
import GRDB
import SketchwiseCore
import SketchwiseRaster
import SketchwiseRecognition

/// One picture of the library as the index stores it (table `item`).
public struct LibraryItem: Codable, Sendable, Equatable, Identifiable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "item"

    /// `clipart:<path inside the clip-art folder>` or `emoji:U+1F600`.
    public var id: String
    public var source: LibrarySource
    /// The SVG file, or the emoji font.
    public var path: String
    /// The title shown: the source's title, or for a clip-art drawing whose RDF title is missing
    /// or names a whole collection, one made from its file name (see ``ClipArtMetadata``).
    public var title: String
    /// The title the source gives (clip-art: the cleaned `dc:title`; emoji: the Unicode name).
    public var sourceTitle: String?
    public var keywords: [String]
    public var license: String
    /// The colour picture as a PNG, fitted like ``raster``.
    public var thumbnail: Data
    /// The width of the picture's ink box over its height.
    public var aspect: Double
    /// The outline rendered by the picture recipe at the raster model's size, ink 255 on 0, row-major.
    public var raster: Data
    public var rasterSize: Int
    /// The raster model's embedding of ``raster``: Float32 values, little-endian.
    public var embedding: Data
    /// The raster model's most probable classes for ``raster``.
    public var topClasses: [Guess]
    public var fileHash: String
    public var fileSize: Int64
    public var fileModified: Double
    public var pipeline: String

    /// The column names of table `item`: ``license`` is stored in the column `licence`, its name
    /// before identifiers were spelled in US English, so existing indexes still read.
    enum CodingKeys: String, CodingKey {
        case id, source, path, title, sourceTitle, keywords, license = "licence", thumbnail, aspect, raster, rasterSize, embedding
        case topClasses, fileHash, fileSize, fileModified, pipeline
    }

    public init(
        id: String, source: LibrarySource, path: String, title: String, sourceTitle: String?, keywords: [String], license: String,
        thumbnail: Data, aspect: Double, raster: GrayImage, embedding: [Float], topClasses: [Guess], file: FileStamp
    ) {
        self.id = id
        self.source = source
        self.path = path
        self.title = title
        self.sourceTitle = sourceTitle
        self.keywords = keywords
        self.license = license
        self.thumbnail = thumbnail
        self.aspect = aspect
        self.raster = Data(raster.pixels)
        self.rasterSize = raster.width
        self.embedding = Data(embedding.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
        self.topClasses = topClasses
        (fileHash, fileSize, fileModified, pipeline) = (file.fileHash, file.fileSize, file.fileModified, file.pipeline)
    }

    /// The embedding as numbers.
    public var embeddingVector: [Float] {
        embedding.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }

    /// The raster as an image.
    public var rasterImage: GrayImage {
        GrayImage(width: rasterSize, height: rasterSize, pixels: [UInt8](raster))
    }

    public var file: FileStamp { FileStamp(fileHash: fileHash, fileSize: fileSize, fileModified: fileModified, pipeline: pipeline) }
}

/// What the index knew of a file when it processed it: a later build skips the item when the
/// file's size and modification time (or, failing those, its hash) and the pipeline are the same.
public struct FileStamp: Codable, Sendable, Hashable {
    /// FNV-1a 64 of the file's bytes (for emoji: of the font), 16 hex digits.
    public var fileHash: String
    public var fileSize: Int64
    /// Seconds since 1970.
    public var fileModified: Double
    /// The render recipe, model and thumbnail size the item was made with.
    public var pipeline: String

    public init(fileHash: String, fileSize: Int64, fileModified: Double, pipeline: String) {
        self.fileHash = fileHash
        self.fileSize = fileSize
        self.fileModified = fileModified
        self.pipeline = pipeline
    }
}

/// Why a file was left out of the index.
public enum SkipReason: String, Sendable, Hashable, CaseIterable, Codable, DatabaseValueConvertible {
    /// The file could not be read (permissions, a broken link, too large).
    case unreadable
    /// The XML is not well-formed.
    case invalidXML = "invalid-xml"
    /// librsvg cannot read it as SVG.
    case invalidSVG = "invalid-svg"
    /// It has no page size, no viewBox and no ink.
    case noSize = "no-size"
    /// It shows nothing, or nothing with an outline.
    case blank
    /// Drawing it failed.
    case renderFailed = "render-failed"

    init(_ reason: PictureError.Reason) {
        switch reason {
        case .unreadable: self = .invalidSVG
        case .noSize: self = .noSize
        case .blank: self = .blank
        case .renderFailed: self = .renderFailed
        }
    }
}

/// A malformed file remembered by the index (table `skipped`), so that it is counted and not
/// retried until it changes.
public struct SkippedFile: Codable, Sendable, Equatable, Identifiable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "skipped"

    public var id: String
    public var source: LibrarySource
    public var path: String
    public var reason: SkipReason
    public var detail: String
    public var fileHash: String
    public var fileSize: Int64
    public var fileModified: Double
    public var pipeline: String

    public init(id: String, source: LibrarySource, path: String, reason: SkipReason, detail: String, file: FileStamp) {
        self.id = id
        self.source = source
        self.path = path
        self.reason = reason
        self.detail = detail
        (fileHash, fileSize, fileModified, pipeline) = (file.fileHash, file.fileSize, file.fileModified, file.pipeline)
    }

    public var file: FileStamp { FileStamp(fileHash: fileHash, fileSize: fileSize, fileModified: fileModified, pipeline: pipeline) }
}

extension LibrarySource: DatabaseValueConvertible {}
