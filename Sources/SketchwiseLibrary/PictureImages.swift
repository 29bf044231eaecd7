import Foundation
import GRDB
import SketchwiseCore
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
    /// are line art, as in the index, unless `colour` asks for their colour layers too. A line
    /// picture (line art, or OpenMoji's in colour) is drawn with lines `weight` × its longer side
    /// wide when a weight is given, so that placed at any size its lines can match the pen.
    /// - Throws: ``LibraryError`` when the source file is gone or no longer renders.
    public func picture(id: String, color: Bool = false, weight: LineWeight? = nil) throws(LibraryError) -> PicturePNG? {
        let key = [id, color ? "colour" : "", weight.map { "\($0.share)" } ?? ""].joined(separator: " ")
        if let cached = lock.withLock({ cache[key] }) { return cached }
        guard let item = try item(id) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let picture = try render(item, color: color, weight: weight)
        cache[key] = picture
        cacheOrder.append(key)
        if cacheOrder.count > cacheLimit { cache[cacheOrder.removeFirst()] = nil }
        return picture
    }

    /// The picture of an SVG item as an SVG document cropped to its ink (the box ``picture(id:color:weight:)``
    /// draws), with the same colour and line weight, or nil for an unknown id.
    /// - Throws: ``LibraryError`` for an emoji (a font glyph, not a document), or when the source
    ///   file is gone, no longer renders, or cannot be nested.
    public func vector(id: String, color: Bool = false, weight: LineWeight? = nil) throws(LibraryError) -> Data? {
        guard let item = try item(id) else { return nil }
        guard item.source != .emoji else { throw LibraryError("\(id): an emoji is a font glyph, not an SVG document") }
        lock.lock()
        defer { lock.unlock() }
        do {
            let (svg, known) = try drawnSVG(item, color: color, weight: weight)
            guard let extent = try known ?? rasterizer().extent(svg), let root = SVGRootTag(svg) else {
                throw LibraryError("\(id): the document has no page to crop")
            }
            return Data(root.cropped(pageWidth: extent.pageWidth, pageHeight: extent.pageHeight, to: extent.ink))
        } catch let error as LibraryError {
            throw error
        } catch {
            throw LibraryError("\(id): \(error)")
        }
    }

    /// An item's source and file, or nil for an unknown id.
    private func item(_ id: String) throws(LibraryError) -> (id: String, source: LibrarySource, path: String)? {
        let row = try database.read { db in try Row.fetchOne(db, sql: "SELECT source, path FROM item WHERE id = ?", arguments: [id]) }
        guard let row, let source = LibrarySource(rawValue: row["source"]) else { return nil }
        return (id, source, row["path"])
    }

    /// The shared SVG rasterizer; called under the lock.
    private func rasterizer() throws(RasterError) -> SVGRasterizer {
        if let svg { return svg }
        let made = try SVGRasterizer(size: 28)
        svg = made
        return made
    }

    /// An SVG item as the library draws it: its bytes, with the line weight asked for (line
    /// pictures only), and then the page and ink box of the drawing at its own weight, which the
    /// picture keeps at any weight (so that its aspect and place never change); called under the lock.
    private func drawnSVG(
        _ item: (id: String, source: LibrarySource, path: String), color: Bool, weight: LineWeight?
    ) throws -> (bytes: [UInt8], extent: PictureExtent?) {
        guard let data = FileManager.default.contents(atPath: item.path) else { throw LibraryError("\(item.path): cannot be read") }
        let drawn = OpenMojiArt.drawn([UInt8](data), of: item.source, color: color)
        // In colour the fills are drawn too, and the lines keep the weight asked for.
        guard let weight, item.source.drawsLines, let root = SVGRootTag(drawn),
            let extent = try rasterizer().extent(drawn)
        else { return (drawn, nil) }
        return (root.withStrokeWidth(weight.share * max(extent.ink.width, extent.ink.height)), extent)
    }

    /// Draws one item from its file; called under the lock.
    private func render(_ item: (id: String, source: LibrarySource, path: String), color: Bool, weight: LineWeight?) throws(LibraryError) -> PicturePNG {
        let (id, source, path) = item
        do {
            switch source {
            case .clipart, .openmoji, .lucide, .tabler, .doodle:
                let (svg, extent) = try drawnSVG(item, color: color, weight: weight)
                return try rasterizer().picture(svg, maxSide: maxSide, crop: extent?.ink)
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
