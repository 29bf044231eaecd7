import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseFormats

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks (build with -c release): preprocessing throughput on one core.",
        discussion: "Times Google simplification and 28×28 rendering of real drawings held in memory; prints medians over rounds."
    )

    @Option(help: "Drawings to time: a file or folder (raw Quick, Draw! strokes are the realistic input).")
    var data: String

    @Option(help: "How many drawings to load at most.")
    var limit = 2000

    @Option(help: "Timed passes; the median is reported.")
    var rounds = 5

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        #if DEBUG
        StandardError.print("warning: this is a debug build; speed figures are meaningless (use swift run -c release)")
        #endif
        let result = try PreprocessBenchmark.run(source: try DrawingSource(path: data), limit: limit, rounds: rounds)
        if json {
            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        } else {
            print("preprocessing, 1 thread, \(result.drawings) drawings, median of \(result.rounds) rounds:")
            print("  simplify           \(Int(result.simplifyPerSecond)) drawings/s")
            print("  render 28×28       \(Int(result.renderPerSecond)) drawings/s")
            print("  simplify + render  \(Int(result.simplifyAndRenderPerSecond)) drawings/s")
        }
    }
}
