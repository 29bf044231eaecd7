import ArgumentParser
import Foundation
import SketchwiseLibrary
import SketchwiseRecognition

struct IndexBuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build or update the library index: render, embed and store every drawing and emoji.",
        discussion: """
        Each picture is drawn as an outline with the sketch pen (docs/library.md), embedded and \
        classified by the raster model, and stored with its title, keywords, licence and a \
        thumbnail in an SQLite database. Unchanged files are skipped; a killed build resumes; \
        malformed files are skipped and counted by reason.
        """
    )

    @Option(
        help: "Comma-separated sources: \(LibrarySource.names) (default: every one installed).", transform: { try LibrarySource.list($0) })
    var sources: Set<LibrarySource>?

    @Option(help: "The index database (created if missing).")
    var db = LibraryDatabase.defaultPath

    @OptionGroup var modelOptions: ModelOptions

    @Option(help: "The folder of SVG clip-art.")
    var clipartDir = LibraryLocations.debianClipart.path

    @Option(help: "The colour emoji font.")
    var emojiFont = LibraryLocations.debianEmojiFont.path

    @Option(help: "The folder of OpenMoji SVG files.")
    var openmojiDir = LibraryLocations().openmojiFolder.path

    @Option(help: "The folder of Lucide SVG files.")
    var lucideDir = LibraryLocations().lucideFolder.path

    @Option(help: "The folder of Tabler's outline SVG files.")
    var tablerDir = LibraryLocations().tablerFolder.path

    @Option(help: "The folder of doodles, a folder per class (sketchwise index doodles).")
    var doodleDir = LibraryLocations().doodleFolder.path

    @Option(help: "Threads rendering and embedding.")
    var threads = 2

    func validate() throws {
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be within 1…64") }
    }

    func run() async throws {
        let embedder = try PictureEmbedder(recognizer: try modelOptions.load().raster)
        let database = try LibraryDatabase(path: db)
        let locations = LibraryLocations(
            clipartFolder: URL(fileURLWithPath: clipartDir), emojiFont: URL(fileURLWithPath: emojiFont),
            openmojiFolder: URL(fileURLWithPath: openmojiDir), lucideFolder: URL(fileURLWithPath: lucideDir),
            tablerFolder: URL(fileURLWithPath: tablerDir), doodleFolder: URL(fileURLWithPath: doodleDir)
        )
        var builder = IndexBuilder(sources: sources ?? installedSources(at: locations), locations: locations)
        builder.threads = threads
        var lastStep = -1
        let report = try builder.build(into: database, embedder: embedder) { progress in
            let message = "indexed \(progress.done)/\(progress.total)"
            guard isatty(STDERR_FILENO) == 0 else { return StandardError.progress(message) }
            // Not a terminal (a log, or a server reading the progress): one line per 5 %.
            let step = progress.total == 0 ? 20 : 20 * progress.done / progress.total
            if step != lastStep {
                lastStep = step
                StandardError.print(message)
            }
        }
        StandardError.progress("")
        print(report.summary)
    }

    /// Every source whose files are at `locations`; each missing one is named on standard error.
    private func installedSources(at locations: LibraryLocations) -> Set<LibrarySource> {
        let installed = locations.installed(Set(LibrarySource.allCases))
        for source in LibrarySource.allCases where !installed.contains(source) {
            StandardError.print("note: \(source.rawValue) is not installed at \(locations.location(of: source).path); left out")
        }
        return installed
    }
}
