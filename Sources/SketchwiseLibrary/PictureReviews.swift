import Foundation
import SketchwiseInstallation

/// People's verdicts on whether a library picture shows a class, kept in the repository as data
/// (`Resources/picture-reviews.tsv`, made with `bench/contact_sheets.py`). The candidate finder
/// never offers a picture reviewed as wrong for its class, puts good ones first and loose ones last.
public struct PictureReviews: Sendable, Equatable {
    public enum Verdict: String, Sendable, CaseIterable {
        /// A person would accept the picture as the class.
        case good
        /// Related, or only part of the class (a plum for apple).
        case loose
        /// It does not show the class.
        case wrong
    }

    /// Class → picture id → verdict.
    private var verdicts: [String: [String: Verdict]] = [:]

    /// No verdicts.
    public init() {}

    /// Reads a review list: per line a class, a picture id and a verdict, separated by tabs;
    /// empty lines and lines starting with `#` are skipped.
    /// - Throws: ``LibraryError`` naming the first malformed line.
    public init(text: String) throws(LibraryError) {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 3, !fields[0].isEmpty, !fields[1].isEmpty, let verdict = Verdict(rawValue: fields[2]) else {
                throw LibraryError("review list line \(number + 1): expected class, picture id and good, loose or wrong, separated by tabs")
            }
            verdicts[fields[0], default: [:]][fields[1]] = verdict
        }
    }

    /// The review list that ships with Sketchwise.
    /// - Throws: ``LibraryError`` when it is missing from the installation or malformed.
    public static func bundled() throws(LibraryError) -> PictureReviews {
        let folder: URL
        do { folder = try InstalledResource.tables.folder() } catch { throw LibraryError("the picture review list is missing: \(error)") }
        guard let text = try? String(contentsOf: folder.appendingPathComponent("picture-reviews.tsv"), encoding: .utf8) else {
            throw LibraryError("the picture review list \(folder.path)/picture-reviews.tsv does not read as UTF-8 text")
        }
        return try PictureReviews(text: text)
    }

    /// The verdict on picture `id` for class `label`, if it was reviewed.
    public func verdict(on id: String, for label: String) -> Verdict? { verdicts[label]?[id] }

    /// The pictures reviewed for `label`, with their verdicts.
    public func reviewed(for label: String) -> [String: Verdict] { verdicts[label] ?? [:] }

    /// Every verdict: (class, picture id, verdict), ordered by class and id.
    public var all: [(label: String, id: String, verdict: Verdict)] {
        verdicts.keys.sorted().flatMap { label in
            verdicts[label, default: [:]].sorted { $0.key < $1.key }.map { (label, $0.key, $0.value) }
        }
    }
}
