import ArgumentParser
import Foundation
import SketchwiseLibrary

struct IndexCoverageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "How many library pictures may illustrate each Quick, Draw! class.",
        discussion: """
            A picture is a candidate for a class when its title or keywords name it (a curated synonym \
            table) or the raster model gives it that class with at least --min-probability. Prints the \
            classes with at least 1 and at least 5 candidates, and the thin ones.
            """
    )

    @Option(help: "The index database.")
    var db = LibraryDatabase.defaultPath

    @OptionGroup var candidateOptions: CandidateOptions

    @Option(help: "With --weakest-match prediction: the least probability of a predicted class that makes a picture a candidate (0…1).")
    var minProbability = 0.9

    @Option(help: "Count only pictures of this style: line, emoji, clipart or all.")
    var style = PictureStyle.all

    @Flag(help: "Print every class's counts as JSON.")
    var json = false

    func validate() throws {
        guard (0...1).contains(minProbability) else { throw ValidationError("--min-probability must be within 0…1") }
        guard FileManager.default.fileExists(atPath: db) else { throw ValidationError("\(db) does not exist; run sketchwise index build") }
    }

    func run() throws {
        let coverage = try LibraryCoverage(
            database: LibraryDatabase(path: db), style: style, reviews: candidateOptions.loadReviews(),
            weakest: try candidateOptions.weakest,
            minimumPredictedProbability: minProbability
        )
        print(json ? try coverage.json() : coverage.summary)
    }
}
