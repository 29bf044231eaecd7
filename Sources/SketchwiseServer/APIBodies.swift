import Foundation
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseModels
import SketchwisePersonal
import SketchwisePhotos
import SketchwiseRecognition
import SketchwiseScenes
import SketchwiseServing
import SketchwiseSuggestions

/// `POST /api/classify`'s answer.
struct ClassifyBody: Codable, Sendable {
    var model: String
    var guesses: [GuessBody]
}

/// `GET /api/models`: every model of the models folder and the roles it serves.
struct ModelListBody: Encodable, Sendable {
    let models: [RegisteredModel]
    let broken: [BrokenModel]
    /// The library re-index for a new raster model, while one runs (the old models serve meanwhile).
    let reindex: ReindexStatus?
    /// The A/B test, while one runs.
    let experiment: ExperimentBody?
}

/// An A/B test on `GET /api/models`: the model, both arms' versions and their counts.
struct ExperimentBody: Encodable, Sendable {
    let model: String
    /// The version of the treatment arm, and the share of people in it.
    let version: String
    let percent: Int
    /// The version everyone else gets.
    let control: String
    /// Suggestions answered and accepted, per arm.
    let arms: [ExperimentCount]

    init(_ experiment: ModelExperiment, control: String, counts: [ExperimentCount]) {
        model = experiment.model
        version = experiment.version
        percent = experiment.percent
        self.control = control
        arms = ModelExperiment.Arm.allCases.map { arm in
            counts.first { $0.arm == arm.rawValue } ?? ExperimentCount(arm: arm.rawValue, served: 0, accepted: 0)
        }
    }
}

/// `POST /api/suggest`'s answer and the WebSocket's `result` message (with `type` and `seq`).
struct SuggestBody: Sendable {
    var type: LiveOutboundType?
    var seq: UInt64?
    var guesses: [GuessBody]
    var suggestions: [SuggestionBody]
    /// The person's shortcut that matches (for requests with a bearer token): `.some(nil)` is
    /// written as `null`, nil leaves the key out.
    var shortcut: Shortcut??

    struct Shortcut: Sendable {
        let label: String
        let distance: Float
    }

    init(_ result: SuggestionResult, names: LocalizedNames, type: LiveOutboundType? = nil, seq: UInt64? = nil) {
        self.type = type
        self.seq = seq
        guesses = names.guesses(result.guesses)
        suggestions = result.suggestions.map { SuggestionBody($0, names: names) }
    }

    /// The body as compact JSON with sorted keys, written by hand straight into bytes: this is
    /// the hot answer of the API, and a generic encoder costs more than ranking the pictures.
    var json: JSONOutput {
        var out = JSONOutput(capacity: 256 + 384 * suggestions.count)
        out.raw("{")
        out.key("guesses", first: true)
        out.raw("[")
        for (i, guess) in guesses.enumerated() {
            out.raw(i == 0 ? "{" : ",{")
            out.key("display", first: true)
            out.string(guess.display)
            out.key("label")
            out.string(guess.label)
            out.key("probability")
            out.number(guess.probability)
            out.raw("}")
        }
        out.raw("]")
        if let seq {
            out.key("seq")
            out.number(Double(seq))
        }
        if let shortcut {
            out.key("shortcut")
            if let shortcut {
                out.raw("{")
                out.key("distance", first: true)
                out.number(Double(shortcut.distance))
                out.key("label")
                out.string(shortcut.label)
                out.raw("}")
            } else {
                out.raw("null")
            }
        }
        out.key("suggestions")
        out.raw("[")
        for (i, suggestion) in suggestions.enumerated() {
            if i > 0 { out.raw(",") }
            suggestion.write(to: &out)
        }
        out.raw("]")
        if let type {
            out.key("type")
            out.string(type.rawValue)
        }
        out.raw("}")
        return out
    }
}

/// One suggested picture as the API shows it: its class (`label`, and `display` in the request's
/// locale) and its name (`title`, and `displayTitle` in the request's locale).
struct SuggestionBody: Sendable, Encodable {
    var id: String
    var label: String
    var display: String
    var score: Double
    var source: SuggestionSource
    var title: String
    var displayTitle: String
    /// The picture for the canvas.
    var image: String
    var thumbnail: String
    /// The picture's aspect, in thumbnail pixels (96 on the longer side).
    var width: Int
    var height: Int

    init(_ suggestion: Suggestion, names: LocalizedNames) {
        id = suggestion.itemID
        label = suggestion.label
        display = names.className(suggestion.label)
        score = suggestion.score
        source = suggestion.source
        title = suggestion.title
        displayTitle = names.pictureTitle(id: suggestion.itemID, title: suggestion.title, label: suggestion.label)
        switch suggestion.source {
        case .web:
            (image, thumbnail) = (suggestion.itemID, suggestion.itemID)
        case .library:
            let path = "/api/library/" + Self.encoded(suggestion.itemID)
            (image, thumbnail) = (path + "/image", path + "/thumbnail")
        }
        let aspect = suggestion.aspect.isFinite && suggestion.aspect > 0 ? suggestion.aspect : 1
        (width, height) = aspect >= 1 ? (96, max(1, Int((96 / aspect).rounded()))) : (max(1, Int((96 * aspect).rounded())), 96)
    }

    /// The suggestion as a JSON object, keys sorted.
    func write(to out: inout JSONOutput) {
        out.raw("{")
        out.key("display", first: true)
        out.string(display)
        out.key("displayTitle")
        out.string(displayTitle)
        out.key("height")
        out.integer(Int64(height))
        out.key("id")
        out.string(id)
        out.key("image")
        out.string(image)
        out.key("label")
        out.string(label)
        out.key("score")
        out.number(score)
        out.key("source")
        out.string(source.rawValue)
        out.key("thumbnail")
        out.string(thumbnail)
        out.key("title")
        out.string(title)
        out.key("width")
        out.integer(Int64(width))
        out.raw("}")
    }

    /// An id as one path segment: every byte but ASCII letters, digits and `-._~` percent-encoded.
    static func encoded(_ id: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(id.utf8.count * 3)
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// `GET /api/pictures/search`'s answer: the query as read and the pictures found for it.
struct SearchBody: Encodable, Sendable {
    let query: String
    let suggestions: [SuggestionBody]
}

/// `GET /api/locales`: the languages the API answers in (`lang`), each with its name in itself
/// and its writing direction.
struct LocaleListBody: Encodable, Sendable {
    struct Locale: Encodable, Sendable {
        let tag: String
        let name: String
        let direction: String
    }

    let locales = AppLocale.allCases.map { Locale(tag: $0.tag, name: $0.endonym, direction: $0.isRightToLeft ? "rtl" : "ltr") }
}

/// `GET /api/health`'s answer.
struct HealthBody: Codable, Sendable {
    struct Library: Codable, Sendable {
        var items: Int
    }
    var status: String
    var models: [String]
    var library: Library
}

/// `GET /api/limits`'s answer: the most strokes and points of one sketch, the largest live message
/// in bytes and the live messages a second.
struct LimitsBody: Codable, Sendable {
    var strokes: Int
    var points: Int
    var messageBytes: Int
    var messagesPerSecond: Double
}

/// `GET /api/ready`'s answer (while starting, a 503 `starting` error instead).
struct ReadyBody: Codable, Sendable {
    var status: String
    var library: HealthBody.Library
}

/// The objects of one state of a live canvas (`"scene": true`).
struct SceneMessage: Encodable, Sendable {
    var type = LiveOutboundType.scene
    var seq: UInt64
    var objects: [DetectedObject]
}

/// A WebSocket `error` message.
struct SocketErrorBody: Codable, Sendable {
    var type = LiveOutboundType.error
    var seq: UInt64?
    var error: APIError.ErrorBody.Detail
}

/// A value as the server's compact JSON (slashes left unescaped, so paths read as paths).
func jsonData(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    return try encoder.encode(value)
}

/// `POST /api/photo`'s answer: the photo model's labels (`index`, `text`, `confidence`), the
/// drawing classes they map to (`label`, `probability`: the labels' summed confidence) and the
/// pictures for those.
struct PhotoBody: Encodable, Sendable {
    let model: String
    let labels: [PhotoLabel]
    let classes: [GuessBody]
    let suggestions: [SuggestionBody]

    init(_ result: PhotoResult, model: String, names: LocalizedNames) {
        (self.model, labels, classes) = (model, result.labels, names.guesses(result.classes))
        suggestions = result.suggestions.map { SuggestionBody($0, names: names) }
    }
}
