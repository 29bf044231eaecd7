import Hummingbird
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseRecognition
import SketchwiseScenes

/// The names an answer shows a person, in the locale their request asks for: a class's name
/// (`display`, beside the stable English `label`) and a picture's (`displayTitle`, beside `title`).
struct LocalizedNames: Sendable {
    let localizer: Localizer
    let locale: AppLocale

    init(localizer: Localizer, locale: AppLocale) {
        self.localizer = localizer
        self.locale = locale
    }

    /// The request's locale: the JSON body's `"lang"`, else the `lang` query parameter, else
    /// `Accept-Language`, else English. A tag Sketchwise does not speak falls through to the next.
    /// - Throws: a bad request for a `lang` that is not a short string.
    init(localizer: Localizer, request: Request, body: [String: JSONValue]? = nil) throws(APIError) {
        var lang = request.uri.queryParameters.get("lang")
        switch body?["lang"] {
        case nil, .null?: break
        case let .string(tag)?: lang = tag
        default: throw APIError(.badRequest, Self.badTag)
        }
        if let lang, lang.count > 35 { throw APIError(.badRequest, Self.badTag) }
        self.init(localizer: localizer, locale: LanguagePreference.locale(lang: lang, acceptLanguage: request.headers[.acceptLanguage]))
    }

    static let badTag = "\"lang\" must be a language tag such as fr, he or zh-Hans"

    /// The name of class `label`.
    func className(_ label: String) -> String {
        localizer.className(label, in: locale)
    }

    /// The name of picture `id` (titled `title`, shown for class `label`): see
    /// ``Localizer/pictureName(id:title:label:in:)``.
    func pictureTitle(id: String, title: String, label: String) -> String {
        localizer.pictureName(id: id, title: title, label: label, in: locale)
    }

    /// The guesses with their names.
    func guesses(_ guesses: [Guess]) -> [GuessBody] {
        guesses.map { GuessBody(label: $0.label, display: className($0.label), probability: $0.probability) }
    }

    /// The objects with their labels' names.
    func objects(_ objects: [DetectedObject]) -> [DetectedObject] {
        objects.map { $0.named(by: className) }
    }
}

/// A guess as the API answers it: the class's stable English `label`, its `display` name in the
/// request's locale, and its probability.
struct GuessBody: Codable, Sendable, Equatable {
    var label: String
    var display: String
    var probability: Double
}
