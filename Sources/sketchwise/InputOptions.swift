import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseFormats

/// The drawing input shared by every command that reads drawings.
struct InputOptions: ParsableArguments {
    @Argument(help: "A drawing file or a folder of drawing files.", completion: .file())
    var input: String

    @Flag(help: "Skip malformed drawings and files (each is reported on standard error) instead of stopping at the first.")
    var skipBad = false

    func source() throws -> DrawingSource {
        try DrawingSource(path: input)
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
