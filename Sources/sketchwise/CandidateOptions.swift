import ArgumentParser
import Foundation
import SketchwiseLibrary

/// The picture review list a library command applies, and the weakest match it lets in.
struct CandidateOptions: ParsableArguments {
    @Option(help: "The weakest match that makes a candidate: exact-title, name-in-title, synonym-in-title, keyword or prediction.")
    var weakestMatch = MatchStrength.synonymInTitle.name

    /// The strength `--weakest-match` names.
    var weakest: MatchStrength {
        get throws {
            guard let strength = MatchStrength(name: weakestMatch) else {
                throw ValidationError(
                    "unknown --weakest-match \(weakestMatch) (known: \(MatchStrength.allCases.map(\.name).joined(separator: ", ")))")
            }
            return strength
        }
    }

    func validate() throws { _ = try weakest }

    @Option(help: "The picture review list to apply (default: the one that ships; an empty file applies none).")
    var reviews: String?

    /// The review list named by `--reviews`, or the shipped one.
    func loadReviews() throws -> PictureReviews {
        guard let reviews else { return try PictureReviews.bundled() }
        guard let text = try? String(contentsOfFile: reviews, encoding: .utf8) else {
            throw ValidationError("cannot read --reviews \(reviews)")
        }
        return try PictureReviews(text: text)
    }
}
