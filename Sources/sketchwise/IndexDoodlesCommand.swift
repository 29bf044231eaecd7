import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseEvaluation
import SketchwiseFormats
import SketchwiseLibrary
import SketchwisePreprocess
import SketchwiseRecognition

struct IndexDoodlesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doodles",
        abstract: "Draw each class's most typical Quick, Draw! drawings as doodles for the library.",
        discussion: """
            For each class file of the --data folders (Google's ndjson, raw or simplified: cat.ndjson; \
            a class is read from the first folder that has it), the first --scan drawings of the training split that the game recognised are classified by the \
            raster model; the --per-class ones it is surest of, each unlike the others (those the bundled \
            review list calls good first, none it calls wrong or loose), are simplified \
            as Google's simplified files are and written as line pictures (OUT/<class>/<key_id>.svg, named by \
            the drawing's key_id, so a review of a doodle stays with its drawing) beside the dataset's CC BY 4.0 attribution. The \
            index's doodle source reads them; a class's doodles are suggested only when no other \
            picture of the style draws it.
            """
    )

    @Option(help: "A folder of Quick, Draw! class files (ndjson); repeat it to fill in classes a folder lacks.")
    var data: [String]

    @Option(help: "Where to write the doodles.")
    var out = LibraryLocations().doodleFolder.path

    @Option(help: "Doodles per class.")
    var perClass = 4

    @Option(help: "Training drawings read per class.")
    var scan = 64

    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
        guard (1...32).contains(perClass) else { throw ValidationError("--per-class must be within 1…32") }
        guard (perClass...100_000).contains(scan) else { throw ValidationError("--scan must be within --per-class…100000") }
        guard !data.isEmpty else { throw ValidationError("give at least one --data folder") }
    }

    func run() throws {
        let classFiles = try Self.classFiles(in: data)
        let simplifier = GoogleSimplifier()
        let recognizer = try modelOptions.load().raster
        let reviews = try PictureReviews.bundled()
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var written = 0
        for (done, file) in classFiles.enumerated() {
            let label = (file.lastPathComponent as NSString).deletingPathExtension
            let candidates = try Self.typicalCandidates(in: file, limit: scan)
            let sketches = try candidates.map { try simplifier.simplifiedIfNeeded($0.drawing) }
            let described = try zip(candidates, sketches).map { candidate, sketch in
                let (answer, embedding) = try recognizer.describe(sketch)
                let probability = answer.labels.firstIndex(of: label).map { exp(answer.values[$0]) } ?? 0
                let verdict = Self.keyFileName(candidate.keyID).flatMap {
                    reviews.verdict(on: LibrarySource.doodle.pictureID("\(label)/\($0)"), for: label)
                }
                return (probability, embedding ?? [], verdict)
            }
            let chosen = DoodleChoice.choose(described, count: perClass)
            try Self.replace(
                folder.appendingPathComponent(label),
                with: chosen.enumerated().map { rank, index in
                    (Self.fileName(keyID: candidates[index].keyID, rank: rank), DoodleArt.svg(sketches[index], label: label))
                })
            written += chosen.count
            StandardError.progress("doodles \(done + 1)/\(classFiles.count)")
        }
        StandardError.progress("")
        try Self.attribution.write(to: folder.appendingPathComponent("ATTRIBUTION.txt"), atomically: true, encoding: .utf8)
        print("wrote \(written) doodles of \(classFiles.count) classes into \(folder.path)")
    }

    static let attribution = """
        These doodles are drawings of the Quick, Draw! dataset by Google, licensed under CC BY 4.0
        (https://creativecommons.org/licenses/by/4.0/), redrawn as line pictures by sketchwise index doodles.

        """

    /// The `.ndjson` class files of `folders`, by name; a class from the first folder that has it.
    static func classFiles(in folders: [String]) throws -> [URL] {
        var files: [String: URL] = [:]
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
                throw ValidationError("cannot read the folder \(folder)")
            }
            for name in names where name.hasSuffix(".ndjson") && files[name] == nil {
                files[name] = URL(fileURLWithPath: folder).appendingPathComponent(name)
            }
        }
        guard !files.isEmpty else { throw ValidationError("\(folders.joined(separator: ", ")) hold no .ndjson class files") }
        return files.keys.sorted().compactMap { files[$0] }
    }

    /// Thrown to stop reading a class file once enough drawings are in.
    private struct Enough: Error {}

    /// The first `limit` drawings of `file` in the training split that the game recognised
    /// (records without the field count as recognised); malformed records are skipped.
    static func typicalCandidates(in file: URL, limit: Int) throws -> [QuickDrawRecord] {
        var records: [QuickDrawRecord] = []
        do {
            try DrawingSource(path: file.path).forEach(onError: { _ in }) { drawing in
                guard case let .strokes(record) = drawing.content, record.recognized != false,
                    ValidationSplit.contains(drawing, in: .training), !record.drawing.strokes.isEmpty
                else { return }
                records.append(record)
                if records.count == limit { throw Enough() }
            }
        } catch is Enough {}
        return records
    }

    /// A doodle's file name: its drawing's `key_id` (`5712873648898048.svg`), so that the file,
    /// its index id and any review of it stay with that drawing; `drawing-n.svg` by its rank
    /// `n − 1` for a drawing without a key_id of digits.
    static func fileName(keyID: String?, rank: Int) -> String {
        keyFileName(keyID) ?? "drawing-\(rank + 1).svg"
    }

    /// `<key_id>.svg` for a `key_id` of at most 32 digits, the name a review of the drawing uses.
    static func keyFileName(_ keyID: String?) -> String? {
        guard let keyID, !keyID.isEmpty, keyID.count <= 32, keyID.allSatisfy(\.isASCII), keyID.allSatisfy(\.isNumber) else {
            return nil
        }
        return "\(keyID).svg"
    }

    /// Writes `documents` (file name, SVG text) into `classFolder`, replacing what it held.
    static func replace(_ classFolder: URL, with documents: [(name: String, svg: String)]) throws {
        let manager = FileManager.default
        let staging = classFolder.deletingLastPathComponent().appendingPathComponent(".\(classFolder.lastPathComponent).new")
        try? manager.removeItem(at: staging)
        try manager.createDirectory(at: staging, withIntermediateDirectories: true)
        for document in documents {
            try document.svg.write(to: staging.appendingPathComponent(document.name), atomically: false, encoding: .utf8)
        }
        try? manager.removeItem(at: classFolder)
        try manager.moveItem(at: staging, to: classFolder)
    }
}
