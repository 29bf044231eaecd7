import Foundation

/// Which locale a request is answered in: the one it names (`lang`), else the first of the
/// client's `Accept-Language` that Sketchwise speaks, else English.
public enum LanguagePreference {
    /// The most tags a header is read for; the rest are ignored.
    public static let maximumTags = 32

    /// The locale for a request: `lang` when it names a supported locale, else the first supported
    /// tag of `acceptLanguage` (by weight), else ``AppLocale/english``. A tag Sketchwise does not
    /// speak falls through to the next choice rather than failing the request.
    public static func locale(lang: String?, acceptLanguage: String?) -> AppLocale {
        if let lang, let locale = AppLocale(tag: lang) { return locale }
        for tag in tags(acceptLanguage: acceptLanguage ?? "") {
            if let locale = AppLocale(tag: tag) { return locale }
        }
        return .english
    }

    /// The tags of an `Accept-Language` header, most wanted first: by `q` weight, ties in the
    /// header's order; tags with `q=0`, `*` and malformed entries left out.
    public static func tags(acceptLanguage header: String) -> [String] {
        var weighted: [(tag: String, weight: Double, order: Int)] = []
        for (order, entry) in header.split(separator: ",").prefix(maximumTags).enumerated() {
            let parts = entry.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*", tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0, weight <= 1 { weighted.append((tag, weight, order)) }
        }
        return weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.map(\.tag)
    }
}
