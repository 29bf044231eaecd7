import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseFormats

struct SimplifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Simplify drawings exactly as Google made Quick, Draw!'s simplified files.",
        discussion: """
            Aligns each drawing to the top-left, scales it so the longer side is 255, resamples it at \
            1 px and simplifies it with Ramer–Douglas–Peucker (ε = 2), writing integer Google-format \
            ndjson with every other record field kept.
            """
    )

    @OptionGroup var input: InputOptions

    @Option(
        name: .shortAndLong,
        help:
            "Output .ndjson file (.bin: Google's binary format, one class), or, when IN is a folder, a folder (one <class>.ndjson each) unless it ends in .ndjson. Default: standard output."
    )
    var output: String?

    @Option(
        help:
            "Instead of writing drawings, compare the simplified drawings with the reference simplified drawings in this file or folder (matched by key_id) and print the agreement."
    )
    var compare: String?

    @Flag(help: "With --compare: print JSON.")
    var json = false

    func validate() throws {
        guard compare == nil || output == nil else { throw ValidationError("--compare prints a report; it does not go with --output") }
    }

    func run() async throws {
        if let compare {
            let report = try SimplificationComparison.run(raw: try input.source(), reference: try DrawingSource(path: compare))
            if json {
                print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
            } else {
                print(
                    """
                    pairs compared:           \(report.pairs)
                    reproduced exactly:       \(report.exact) (\(String(format: "%.2f", 100 * report.exactShare))%)
                    point-to-polyline (px):   median \(report.medianDistance), p95 \(report.p95Distance), mean \(String(format: "%.4f", report.meanDistance))
                    point-count ratio:        \(String(format: "%.4f", report.pointCountRatio))
                    """)
            }
            return
        }
        let source = try input.source()
        let destination: RecordWriter.Destination
        switch output {
        case nil: destination = .standardOutput
        case let path? where path.hasSuffix("/"): destination = .folderPerClass(path)
        case let path? where source.files.count > 1 && path.hasSuffix(".bin"):
            throw ValidationError("\(path): a .bin file holds one class (Google's format names none); name a folder for one file per class")
        case let path? where source.files.count > 1 && !path.hasSuffix(".ndjson") && !path.hasSuffix(".jsonl"):
            destination = .folderPerClass(path)
        case let path?: destination = .file(path)
        }
        let report = try SimplifyJob.run(source: source, writer: try RecordWriter(destination), policy: input.policy) {
            StandardError.progress("simplified \($0) drawings")
        }
        StandardError.summary("simplified", report)
    }
}
