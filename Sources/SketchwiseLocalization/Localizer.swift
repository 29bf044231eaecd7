import Foundation
import Synchronization

/// The names a person reads, in their language: class names from ``ClassNames``, emoji names
/// from CLDR (``CLDRAnnotations``), and the class search (``ClassNameSearch``). A locale's CLDR
/// files are read on its first use and kept.
public final class Localizer: Sendable {
    public let classNames: ClassNames
    private let annotationFiles: @Sendable (AppLocale) -> [URL]
    private let loaded = Mutex<[AppLocale: Loaded]>([:])

    private struct Loaded: Sendable {
        let annotations: CLDRAnnotations
        let search: ClassNameSearch
    }

    /// The names of `classNames`, whose classes the search looks through; a locale's CLDR files
    /// are `annotationFiles(locale)` (by default Debian's).
    public init(
        classNames: ClassNames, annotationFiles: @escaping @Sendable (AppLocale) -> [URL] = CLDRAnnotations.debianFiles(for:)
    ) {
        self.classNames = classNames
        self.annotationFiles = annotationFiles
    }

    /// The name of class `label` in `locale`.
    public func className(_ label: String, in locale: AppLocale) -> String {
        classNames.name(of: label, in: locale)
    }

    /// CLDR's name of `emoji` in `locale`, if it has one.
    public func emojiName(_ emoji: String, in locale: AppLocale) -> String? {
        data(for: locale).annotations.name(of: emoji)
    }

    /// The classes whose names or keywords in `locale` match `query`, best first.
    public func labels(matching query: String, in locale: AppLocale, limit: Int) -> [String] {
        data(for: locale).search.labels(matching: query, limit: limit)
    }

    private func data(for locale: AppLocale) -> Loaded {
        if let known = loaded.withLock({ $0[locale] }) { return known }
        let english = locale == .english ? nil : data(for: .english).annotations
        let annotations = CLDRAnnotations(files: annotationFiles(locale))
        let search = ClassNameSearch(
            labels: classNames.labels, names: classNames, locale: locale, annotations: annotations, english: english ?? annotations)
        let made = Loaded(annotations: annotations, search: search)
        return loaded.withLock { known in
            if let first = known[locale] { return first }
            known[locale] = made
            return made
        }
    }
}
