import ArgumentParser
import Foundation
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseRecognition
import SketchwiseSuggestions

/// `--lang`: the language of the class and picture names a command prints (`display` beside each
/// `label`, `displayTitle` beside each picture's `title`).
struct LanguageOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The language of the class and picture names shown: \(AppLocale.allCases.map(\.tag).joined(separator: ", ")) (default: the environment's LANG, else en)."
        ))
    var lang: String?

    func validate() throws {
        if let lang, AppLocale(tag: lang) == nil {
            throw ValidationError("--lang must be one of \(AppLocale.allCases.map(\.tag).joined(separator: ", ")), not \(lang)")
        }
    }

    /// The chosen locale: `--lang`, else the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that
    /// names a supported one (`de_DE.UTF-8` is German), else English.
    var locale: AppLocale {
        if let lang, let locale = AppLocale(tag: lang) { return locale }
        let environment = ProcessInfo.processInfo.environment
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            return value.split(separator: ".").first.flatMap { AppLocale(tag: String($0)) } ?? .english
        }
        return .english
    }

    /// What names classes and pictures in ``locale``: the class-name tables are read once, here
    /// (English without them); CLDR's emoji names on the first picture named.
    func namer() -> Namer {
        let locale = locale
        let names = locale == .english ? ClassNames(tables: [:]) : (try? ClassNames.bundled()) ?? ClassNames(tables: [:])
        return Namer(localizer: Localizer(classNames: names), locale: locale)
    }
}

/// Names guesses and pictures in one language, for the commands' output.
struct Namer {
    let localizer: Localizer
    let locale: AppLocale

    /// The name of class `label`.
    func name(of label: String) -> String { localizer.className(label, in: locale) }

    /// The name of a suggested picture (see ``Localizer/pictureName(id:title:label:in:)``).
    func name(of picture: Suggestion) -> String {
        localizer.pictureName(id: picture.itemID, title: picture.title, label: picture.label, in: locale)
    }

    /// The guesses with their names.
    func callAsFunction(_ guesses: [Guess]) -> [NamedGuess] {
        guesses.map { NamedGuess(label: $0.label, display: name(of: $0.label), probability: $0.probability) }
    }
}

/// A guess as the commands print it: the class's English `label`, its `display` name in the
/// chosen language, and its probability.
struct NamedGuess: Encodable {
    var label: String
    var display: String
    var probability: Double

    /// `cat`, or `chat (cat)` when the name is not the label.
    var name: String { Self.shown(label, as: display) }

    /// `label`, or `display (label)` when they differ.
    static func shown(_ label: String, as display: String) -> String { display == label ? label : "\(display) (\(label))" }

    /// ``name`` and the probability: `chat (cat) 91.2%`.
    var text: String { "\(name) \(String(format: "%.1f%%", 100 * probability))" }
}
