import ArgumentParser
import Foundation
import SketchwiseCore
import SketchwiseFormats

/// The drawing input shared by every command that reads drawings.
struct InputOptions: ParsableArguments {
    @Argument(help: "A drawing file or a folder of drawing files.", completion: .file())
    var input: String

    @Flag(help: "Skip malformed drawings and files (each is reported on standard error) instead of stopping at the first.")
    var skipBad = false

    @Option(help: "Most strokes in one drawing; a larger one is bad input (the server's limit by default).")
    var maxStrokes = SketchSizeLimits().maximumStrokes

    @Option(help: "Most points in one drawing, all strokes together; a larger one is bad input.")
    var maxPoints = SketchSizeLimits().maximumPoints

    func validate() throws {
        guard maxStrokes >= 1, maxPoints >= 1 else { throw ValidationError("--max-strokes and --max-points must be at least 1") }
    }

    func source() throws -> DrawingSource {
        var source = try DrawingSource(path: input)
        source.limits = SketchSizeLimits(maximumStrokes: maxStrokes, maximumPoints: maxPoints)
        source.limitsAdvice = "raise the limit with --max-strokes or --max-points"
        return source
    }

    var policy: BadInputPolicy {
        BadInputPolicy(skipBad: skipBad) { error in
            StandardError.print("skipped: \(error)")
        }
    }
}

enum StandardError {
    static func print(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// A progress line for long work, shown only on a terminal.
    static func progress(_ message: String) {
        guard isatty(STDERR_FILENO) != 0 else { return }
        FileHandle.standardError.write(Data(("\r" + message).utf8))
    }

    /// Ends a progress line and prints the summary of a batch.
    static func summary(_ action: String, _ report: BatchReport) {
        progress("")
        print("\(action) \(report.processed) drawings" + (report.skipped > 0 ? ", skipped \(report.skipped) bad" : ""))
    }
}
