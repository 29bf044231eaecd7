import Foundation

/// The read-only files Sketchwise needs at run time, and where each is found.
///
/// An installation keeps them beside the binary: `PREFIX/bin/sketchwise` reads
/// `PREFIX/share/sketchwise/<folder>` (`make install`, the Debian package). A development build
/// finds them in the source tree instead, from the working folder or from the package the
/// binary was built in. An environment variable overrides both.
public enum InstalledResource: String, CaseIterable, Sendable {
    /// The web app: `index.html`, its modules and `openapi.yaml`.
    case web
    /// The bundled models: `ensemble.json` and each model's spec and weights.
    case models
    /// Curated tables, such as the picture review list.
    case tables
    /// The class names in each language the app speaks (`class-names/<tag>.tsv`).
    case translations

    /// The variable that overrides where it is looked for.
    public var environmentVariable: String { "SKETCHWISE_\(rawValue.uppercased())" }

    /// Where it lives in the source tree (the development fallback).
    public var sourceTreePath: String {
        switch self {
        case .web: "Sources/SketchwiseServer/Web"
        case .models: "Models"
        case .tables: "Sources/SketchwiseLibrary/Resources"
        case .translations: "Sources/SketchwiseLocalization/Resources"
        }
    }

    /// A file every copy of it holds, which tells a real folder from a stray one.
    public var marker: String {
        switch self {
        case .web: "index.html"
        case .models: "ensemble.json"
        case .tables: "picture-reviews.tsv"
        case .translations: "class-names/he.tsv"
        }
    }

    /// Where it is looked for, in order: the environment variable, `../share/sketchwise/<name>`
    /// beside the binary, then the source tree under the working folder and under the folders
    /// above the binary (`.build/<configuration>/sketchwise`), and last the source tree this
    /// library was built from (another package's program that depends on Sketchwise).
    public var candidateFolders: [URL] {
        var folders: [URL] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable], !override.isEmpty {
            folders.append(URL(fileURLWithPath: override))
        }
        let binaryFolder = Self.executable.deletingLastPathComponent()
        folders.append(Self.shareFolder(besideBinaryIn: binaryFolder).appendingPathComponent(rawValue))
        folders.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(sourceTreePath))
        var folder = binaryFolder
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            folders.append(folder.appendingPathComponent(sourceTreePath))
        }
        folders.append(Self.builtFrom.appendingPathComponent(sourceTreePath))
        return folders
    }

    /// The first of ``candidateFolders`` that holds ``marker``.
    /// - Throws: ``MissingResource`` naming every folder tried.
    public func folder() throws(MissingResource) -> URL {
        let folders = candidateFolders
        guard let found = folders.first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent(marker).path) }) else {
            throw MissingResource(resource: self, tried: folders)
        }
        return found
    }

    /// A folder of third-party files fetched at install time rather than shipped in the source
    /// tree (`pictures`, `photo-models`): `$SKETCHWISE_<NAME>` (dashes as underscores) when set,
    /// else the installation's `share/sketchwise/<name>` when it exists (the Debian package
    /// carries them there), else `/usr/local/share/sketchwise/<name>`, where
    /// `scripts/install-deps.sh` puts them.
    public static func fetchedFolder(_ name: String) -> URL {
        let variable = "SKETCHWISE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        if let folder = ProcessInfo.processInfo.environment[variable], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        let installed = shareFolder.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: installed.path) { return installed }
        return URL(fileURLWithPath: "/usr/local/share/sketchwise").appendingPathComponent(name)
    }

    /// The root of the source tree this file was compiled from (`Sources/SketchwiseInstallation/`
    /// is two folders below it).
    static let builtFrom = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The installation's own folder, `PREFIX/share/sketchwise` for `PREFIX/bin/sketchwise`.
    public static var shareFolder: URL { shareFolder(besideBinaryIn: executable.deletingLastPathComponent()) }

    /// `PREFIX/share/sketchwise` for the binary folder `PREFIX/bin`.
    private static func shareFolder(besideBinaryIn binaryFolder: URL) -> URL {
        binaryFolder.deletingLastPathComponent().appendingPathComponent("share/sketchwise")
    }

    /// The running binary, symbolic links resolved (so `/usr/bin/sketchwise` linked to
    /// `/opt/sketchwise/bin/sketchwise` finds `/opt/sketchwise/share`).
    public static var executable: URL {
        let url = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "sketchwise")
        return url.resolvingSymlinksInPath()
    }
}

/// A run-time resource that is in none of the places it is looked for.
public struct MissingResource: Error, CustomStringConvertible {
    public let resource: InstalledResource
    public let tried: [URL]

    public var description: String {
        "no \(resource.rawValue) folder (with \(resource.marker)) in \(tried.map(\.path).joined(separator: ", ")); "
            + "install Sketchwise (make install) or set \(resource.environmentVariable)"
    }
}
