import ArgumentParser
import Foundation
import SketchwiseConversion

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Count drawings per class, with strokes and points per drawing."
    )

    @OptionGroup var input: InputOptions

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func run() async throws {
        let summary = try CollectionSummary.of(try input.source(), policy: input.policy) {
            StandardError.progress("read \($0) drawings")
        }
        StandardError.progress("")
        if json {
            try printJSON(summary)
        } else {
            print(summary.table)
        }
    }
}
