import Foundation

/// One SVG file found in the clip-art folder.
struct ClipArtFile: Sendable {
    /// The path inside the clip-art folder: `food/fruit/apple_01.svg`.
    var relativePath: String
    var url: URL
    var size: Int64
    var modified: Double

    var id: String { "\(LibrarySource.clipart.rawValue):\(relativePath)" }
    /// Its folders, as a category: `food/fruit`.
    var category: String { (relativePath as NSString).deletingLastPathComponent }
}

/// Finds the SVG files of a clip-art folder.
enum ClipArtFolder {
    /// The `.svg` files under `root`, sorted by path, and how many symbolic links were left out
    /// because they point at a file inside the folder (Debian's package files some drawings
    /// under several categories that way). Links that lead outside the folder are followed; a
    /// broken one is kept, to be counted as unreadable.
    static func scan(_ root: URL) throws(LibraryError) -> (files: [ClipArtFile], aliases: Int) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw LibraryError("clip-art folder \(root.path) not found: install openclipart-svg (scripts/install-deps.sh) or pass another folder")
        }
        let base = root.resolvingSymlinksInPath().standardizedFileURL.path
        let keys: [URLResourceKey] = [.isSymbolicLinkKey, .isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else {
            throw LibraryError("cannot list \(root.path)")
        }
        var files: [ClipArtFile] = []
        var aliases = 0
        let prefixLength = root.standardizedFileURL.path.count + 1
        for case let url as URL in walk where url.pathExtension.lowercased() == "svg" {
            let relative = String(url.standardizedFileURL.path.dropFirst(prefixLength))
            var target = url
            if (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]))?.isSymbolicLink == true {
                guard FileManager.default.fileExists(atPath: url.path) else {
                    files.append(ClipArtFile(relativePath: relative, url: url, size: -1, modified: 0))
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
            files.append(ClipArtFile(
                relativePath: relative, url: url, size: Int64(values?.fileSize ?? -1),
                modified: values?.contentModificationDate?.timeIntervalSince1970 ?? 0
            ))
        }
        files.sort { $0.relativePath < $1.relativePath }
        return (files, aliases)
    }
}
