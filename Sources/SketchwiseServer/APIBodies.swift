import Foundation
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseSuggestions

/// `POST /api/classify`'s answer.
struct ClassifyBody: Codable, Sendable {
    var model: String
    var guesses: [Guess]
}

/// `POST /api/suggest`'s answer and the WebSocket's `result` message (with `type` and `seq`).
struct SuggestBody: Codable, Sendable {
    var type: String?
    var seq: UInt64?
    var guesses: [Guess]
    var suggestions: [SuggestionBody]

    init(_ result: SuggestionResult, type: String? = nil, seq: UInt64? = nil) {
        self.type = type
        self.seq = seq
        guesses = result.guesses
        suggestions = result.suggestions.map(SuggestionBody.init)
    }
}

/// One suggested picture as the API shows it.
struct SuggestionBody: Codable, Sendable {
    var id: String
    var label: String
    var score: Double
    var source: String
    var title: String
    /// The picture for the canvas.
    var image: String
    var thumbnail: String
    /// The picture's aspect, in thumbnail pixels (96 on the longer side).
    var width: Int
    var height: Int

    init(_ suggestion: Suggestion) {
        id = suggestion.itemID
        label = suggestion.label
        score = suggestion.score
        source = suggestion.source
        title = suggestion.title
        if suggestion.source == "web" {
            (image, thumbnail) = (suggestion.itemID, suggestion.itemID)
        } else {
            let path = "/api/library/" + Self.encoded(suggestion.itemID)
            (image, thumbnail) = (path + "/image", path + "/thumbnail")
        }
        let aspect = suggestion.aspect.isFinite && suggestion.aspect > 0 ? suggestion.aspect : 1
        (width, height) = aspect >= 1 ? (96, max(1, Int((96 / aspect).rounded()))) : (max(1, Int((96 * aspect).rounded())), 96)
    }

    /// An id as one path segment: everything but unreserved characters percent-encoded.
    static func encoded(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? id
    }
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

/// A WebSocket `error` message.
struct SocketErrorBody: Codable, Sendable {
    var type = "error"
    var seq: UInt64?
    var error: APIError.ErrorBody.Detail
}
