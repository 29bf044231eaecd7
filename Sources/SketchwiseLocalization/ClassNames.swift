import Foundation
import SketchwiseInstallation

/// The 345 drawing classes' names in each language: one table per locale
/// (`class-names/<tag>.tsv`: `label`, `name`, `reviewer`), English being the labels themselves.
/// A label a table lacks is shown in English.
public struct ClassNames: Sendable {
    private let tables: [AppLocale: [String: String]]
    /// Every class a table names, in the first table's order (the models' order for the tables
    /// that ship), then the others' extra ones sorted.
    public let labels: [String]

    /// Names by locale, then by English label; `order` lists the labels in the order
    /// ``labels`` keeps (labels it leaves out come after it, sorted).
    public init(tables: [AppLocale: [String: String]], order: [String] = []) {
        self.tables = tables
        let listed = Set(order)
        labels = order + Set(tables.values.flatMap(\.keys)).subtracting(listed).sorted()
    }

    /// The tables that ship with Sketchwise (``SketchwiseInstallation/InstalledResource/translations``).
    /// - Throws: ``LocalizationError`` when the folder is missing or a table is malformed.
    public static func bundled() throws(LocalizationError) -> ClassNames {
        let folder: URL
        do { folder = try InstalledResource.translations.folder() } catch {
            throw LocalizationError("the class-name tables are missing: \(error)")
        }
        return try ClassNames(folder: folder.appendingPathComponent("class-names"))
    }

    /// The tables of a folder: `<tag>.tsv` for every locale but English; a missing table leaves
    /// that locale in English.
    /// - Throws: ``LocalizationError`` for a table that does not read or parse.
    public init(folder: URL) throws(LocalizationError) {
        var tables: [AppLocale: [String: String]] = [:]
        var order: [String] = []
        for locale in AppLocale.allCases where locale != .english {
            let file = folder.appendingPathComponent("\(locale.tag).tsv")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw LocalizationError("\(file.path) does not read as UTF-8 text")
            }
            let rows = try Self.parse(text, named: file.lastPathComponent)
            if order.isEmpty { order = rows.map(\.label) }
            tables[locale] = Dictionary(uniqueKeysWithValues: rows)
        }
        self.init(tables: tables, order: order)
    }

    /// A table's rows, in order: each label and its name. The first line is the header `label`,
    /// `name`, `reviewer`.
    /// - Throws: ``LocalizationError`` naming the line that is not three tab-separated fields
    ///   with a label and a name, or a label given twice.
    public static func parse(_ text: String, named name: String) throws(LocalizationError) -> [(label: String, name: String)] {
        var rows: [(label: String, name: String)] = []
        var seen: Set<String> = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if number == 0 || fields == [""] { continue }
            guard fields.count == 3, !fields[0].isEmpty, !fields[1].isEmpty else {
                throw LocalizationError("\(name) line \(number + 1): expected label, name and reviewer, separated by tabs")
            }
            guard seen.insert(fields[0]).inserted else {
                throw LocalizationError("\(name) line \(number + 1): '\(fields[0])' is named twice")
            }
            rows.append((fields[0], fields[1]))
        }
        return rows
    }

    /// The name of class `label` in `locale`: the table's, else the label.
    public func name(of label: String, in locale: AppLocale) -> String {
        tables[locale]?[label] ?? label
    }

    /// The labels `locale`'s table names (none for English).
    public func labels(in locale: AppLocale) -> Set<String> {
        Set(tables[locale].map { Array($0.keys) } ?? [])
    }
}

/// A class-name table or a locale's data that could not be read.
public struct LocalizationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
