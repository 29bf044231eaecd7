import Foundation
import GRDB
import SketchwiseRaster

/// The library's pictures as images for people: thumbnails from the index, and the pictures
/// themselves drawn in colour, cropped to their ink, for placing on a canvas (rendered on
/// demand from the source file and kept in a small cache). Thread-safe; rendering is serialised.
public final class PictureImages: @unchecked Sendable {
    public let database: LibraryDatabase
    /// The longer side of the rendered pictures, in pixels.
    public let maxSide: Int
    private let cacheLimit: Int
    private let lock = NSLock()
    private var cache: [String: PicturePNG] = [:]
    private var cacheOrder: [String] = []
    private var svg: SVGRasterizer?
    private var emoji: [String: EmojiRasterizer] = [:]

    public init(database: LibraryDatabase, maxSide: Int = 512, cacheLimit: Int = 64) {
        self.database = database
        self.maxSide = maxSide
        self.cacheLimit = cacheLimit
    }

    /// The thumbnail PNG of an item, or nil for an unknown id.
    public func thumbnail(id: String) throws(LibraryError) -> Data? {
        try database.read { db in try Data.fetchOne(db, sql: "SELECT thumbnail FROM item WHERE id = ?", arguments: [id]) }
    }

    /// The picture of an item drawn at ``maxSide``, or nil for an unknown id. OpenMoji pictures
    /// are line art, as in the index, unless `colour` asks for their colour layers too.
    /// - Throws: ``LibraryError`` when the source file is gone or no longer renders.
    public func picture(id: String, color: Bool = false) throws(LibraryError) -> PicturePNG? {
        let key = color ? "\(id) colour" : id
        if let cached = lock.withLock({ cache[key] }) { return cached }
        let row = try database.read { db in try Row.fetchOne(db, sql: "SELECT source, path FROM item WHERE id = ?", arguments: [id]) }
        guard let row, let source = LibrarySource(rawValue: row["source"]) else { return nil }
        let path: String = row["path"]
        lock.lock()
        defer { lock.unlock() }
        let picture = try render(id: id, source: source, path: path, color: color)
        cache[key] = picture
        cacheOrder.append(key)
        if cacheOrder.count > cacheLimit { cache[cacheOrder.removeFirst()] = nil }
        return picture
    }

    /// Draws one item from its file; called under the lock.
    private func render(id: String, source: LibrarySource, path: String, color: Bool) throws(LibraryError) -> PicturePNG {
        do {
            switch source {
            case .clipart, .openmoji, .lucide:
                guard let data = FileManager.default.contents(atPath: path) else { throw LibraryError("\(path): cannot be read") }
                if svg == nil { svg = try SVGRasterizer(size: 28) }
                let bytes = OpenMojiArt.drawn([UInt8](data), of: source, color: color)
                return try svg!.picture(bytes, maxSide: maxSide)
            case .emoji:
                guard let hex = id.split(separator: "+").last, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                    throw LibraryError("\(id): not an emoji id")
                }
                let rasterizer = try emoji[path] ?? EmojiRasterizer(fontPath: path, size: 28)
                emoji[path] = rasterizer
                return try rasterizer.picture(scalar, maxSide: maxSide)
            }
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError("\(id): \(error)")
        }
    }
}
