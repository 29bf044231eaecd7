import Foundation
import Hummingbird
import NIOCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwisePhotos
import SketchwiseServing
import SketchwiseSuggestions
import SketchwiseWork

/// The photo model and its label table as the server loaded them at start, or why it could not.
enum PhotoModelState: Sendable {
    case ready(PhotoClassifier, PhotoLabelMapping)
    case unavailable(String)
}

/// `POST /api/photo`: a PNG or JPEG body → the photo's labels, the drawing classes they map to
/// and pictures of them. Options are query parameters: `labels` (1…10), `perLabel` (1…20), `style`, `lang`.
struct PhotoRoutes: Sendable {
    let photos: PhotoModelState
    let serving: ServingModels
    let limits: ServerLimits
    let work: WorkQueue
    let localizer: Localizer

    static let methods: [(path: RouterPath, allowed: [HTTPRequest.Method])] = [("photo", [.post])]
    /// The body types taken.
    static let mediaTypes = ["image/png", "image/jpeg", "image/jpg"]

    func add(to api: RouterGroup<SketchwiseRequestContext>) {
        api.post("photo") { request, _ in try await photo(request) }
    }

    private func photo(_ request: Request) async throws -> Response {
        let (classifier, mapping): (PhotoClassifier, PhotoLabelMapping)
        switch photos {
        case let .ready(model, table): (classifier, mapping) = (model, table)
        case let .unavailable(reason): throw APIError(.notFound, "photos are not available on this server: \(reason)")
        }
        let options = SketchInput(limits: limits)
        let query = SketchInput.queryObject(request, keys: ["labels", "perLabel", "style"])
        let names = try LocalizedNames(localizer: localizer, request: request)
        let labels = try options.integer(query, "labels", default: SuggestionLimits.defaultLabels, in: SuggestionLimits.labels)
        let perLabel = try options.integer(query, "perLabel", default: SuggestionLimits.defaultPerLabel, in: SuggestionLimits.perLabel)
        let style = try options.style(query)
        let bytes = try await body(of: request)
        let service = PhotoService(classifier: classifier, mapping: mapping, providers: try serving.snapshot.service.providers, work: work)
        do {
            let result = try await service.analyze(
                bytes, labels: labels, perLabel: perLabel, style: style, limits: limits.photo, deadline: limits.requestDeadline)
            return try json(PhotoBody(result, model: classifier.name, names: names))
        } catch {
            throw APIError(work: error) ?? error
        }
    }

    /// The body's bytes: declared PNG or JPEG, at most ``PhotoLimits/maximumBytes``.
    private func body(of request: Request) async throws -> [UInt8] {
        let declared = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard Self.mediaTypes.contains(declared) else {
            throw APIError(
                .unsupportedMediaType,
                declared.isEmpty
                    ? "the body must be a photo declared Content-Type: image/png or image/jpeg"
                    : "the body must be a PNG or JPEG photo (image/png, image/jpeg), not \(declared.prefix(100))")
        }
        let buffer = try await SketchInput.body(of: request, upTo: limits.photo.maximumBytes, naming: "the photo")
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "the body is empty: send the photo's bytes") }
        return Array(buffer.readableBytesView)
    }
}
