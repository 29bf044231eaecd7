import Foundation
import Hummingbird
import NIOCore
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseModels
import SketchwisePersonal
import SketchwiseRaster
import SketchwiseRecognition
import SketchwiseScenes
import SketchwiseServing
import SketchwiseShortcuts
import SketchwiseSuggestions
import SketchwiseWork

/// The JSON API under `/api`.
struct APIRoutes: Sendable {
    /// The models and index that answer; each request uses the snapshot current when it starts.
    let serving: ServingModels
    let limits: ServerLimits
    let openAPI: URL
    /// Where recognition and rendering run.
    let work: WorkQueue
    /// Users, shortcuts and corrections.
    let personal: PersonalRoutes
    /// `POST /api/photo`.
    let photos: PhotoRoutes
    /// What `GET /metrics` reports (nil: no metrics).
    let metrics: ServerMetrics?
    /// Class and picture names in the languages people ask for.
    let localizer: Localizer

    var input: SketchInput { SketchInput(limits: limits) }

    /// Every API path and the methods it takes; the others are answered `405` with `Allow`.
    static let methods: [(path: RouterPath, allowed: [HTTPRequest.Method])] = [
        ("classify", [.post]), ("suggest", [.post]), ("detect", [.post]), ("pictures/search", [.get]), ("locales", [.get]),
        ("library/:id/image", [.get]), ("library/:id/thumbnail", [.get]), ("library/:id/vector", [.get]),
        ("health", [.get]), ("ready", [.get]), ("limits", [.get]), ("models", [.get]), ("openapi.yaml", [.get]), ("live", [.get]),
    ]

    func add(to router: Router<SketchwiseRequestContext>) {
        let api = router.group("api")
        for (path, allowed) in Self.methods + PersonalRoutes.methods + PhotoRoutes.methods {
            for method in [HTTPRequest.Method.get, .post, .put, .delete, .patch, .options] where !allowed.contains(method) {
                api.on(path, method: method) { request, _ -> Response in
                    var error = APIError(
                        .methodNotAllowed,
                        "\(request.uri.path) takes \(allowed.map(\.rawValue).joined(separator: ", ")), not \(method.rawValue)")
                    error.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                    throw error
                }
            }
        }
        personal.add(to: api)
        photos.add(to: api)
        api.post("classify") { request, context in try await classify(request, context: context) }
        api.post("suggest") { request, context in try await suggest(request, context: context) }
        api.post("detect") { request, _ in try await detect(request) }
        api.get("pictures/search") { request, _ in try await searchPictures(request) }
        api.get("locales") { _, _ in try json(LocaleListBody()) }
        api.get("library/:id/image") { request, context in
            try await picture(context, thumbnail: false, drawing: try PictureDrawing(request))
        }
        api.get("library/:id/thumbnail") { _, context in try await picture(context, thumbnail: true, drawing: PictureDrawing()) }
        api.get("library/:id/vector") { request, context in try await vector(context, drawing: try PictureDrawing(request)) }
        api.get("live") { _, _ -> Response in
            _ = try serving.snapshot
            var error = APIError(.upgradeRequired, "/api/live is a WebSocket: ask for it with Connection: Upgrade and Upgrade: websocket")
            error.headers[.upgrade] = "websocket"
            error.headers[.connection] = "Upgrade"
            throw error
        }
        // Liveness: the process answers (from the start); readiness: it answers the API.
        api.get("health") { _, _ in
            let snapshot = serving.readySnapshot
            let recognizers = snapshot?.recognizers ?? serving.prepared
            return try json(
                HealthBody(
                    status: snapshot == nil ? "starting" : "ok", models: RecognizerKind.roles.filter(recognizers.has).map(\.rawValue),
                    library: .init(items: snapshot?.libraryItems ?? 0)))
        }
        // What every sketch and live message is held to, so the web app keeps no copies.
        api.get("limits") { _, _ in
            try json(
                LimitsBody(
                    strokes: limits.maximumStrokes, points: limits.maximumPoints, messageBytes: limits.maximumMessageBytes,
                    messagesPerSecond: limits.messagesPerSecond))
        }
        api.get("ready") { _, _ in
            let snapshot = try serving.snapshot
            return try json(ReadyBody(status: "ready", library: .init(items: snapshot.libraryItems)))
        }
        if let metrics {
            router.get("metrics") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition(snapshot: serving.readySnapshot, work: work))))
            }
        }
        api.get("models") { _, _ in
            let snapshot = try serving.snapshot
            var experiment: ExperimentBody?
            if let treatment = snapshot.treatment {
                let control = snapshot.models.first { $0.name == treatment.experiment.model && $0.status == .active }?.version ?? "?"
                experiment = ExperimentBody(treatment.experiment, control: control, counts: try await personal.counts(treatment.experiment))
            }
            return try json(
                ModelListBody(models: snapshot.models, broken: snapshot.broken, reindex: serving.reindexStatus, experiment: experiment))
        }
        api.get("openapi.yaml") { _, _ in
            guard let data = FileManager.default.contents(atPath: openAPI.path) else {
                throw APIError(.notFound, "the OpenAPI document is missing from the installation")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    private func classify(_ request: Request, context: some RequestContext) async throws -> Response {
        let object = try await input.object(of: request)
        let sketch = try input.sketch(object)
        let top = try input.integer(object, "top", default: 5, in: 1...20)
        // A person in an A/B test is answered by their arm; a bad token here only means no arm.
        let snapshot = try serving.snapshot
        let user = snapshot.treatment != nil && PersonalRoutes.bearerToken(request) != nil ? try? await personal.user(request) : nil
        let recognizer = try recognizer(object, snapshot.answering(user))
        let kind = recognizer.kind
        let names = try LocalizedNames(localizer: localizer, request: request, body: object)
        guard !sketch.isEmpty else { return try json(ClassifyBody(model: kind.rawValue, guesses: [])) }
        let guesses = try await work.run(deadline: limits.requestDeadline) { try recognizer.classify(sketch, top: top) }
        return try json(ClassifyBody(model: kind.rawValue, guesses: names.guesses(guesses)))
    }

    private func suggest(_ request: Request, context: some RequestContext) async throws -> Response {
        let object = try await input.object(of: request)
        let sketch = try input.sketch(object)
        let labels = try input.integer(object, "labels", default: SuggestionLimits.defaultLabels, in: SuggestionLimits.labels)
        let perLabel = try input.integer(object, "perLabel", default: SuggestionLimits.defaultPerLabel, in: SuggestionLimits.perLabel)
        let style = try input.style(object)
        let names = try LocalizedNames(localizer: localizer, request: request, body: object)
        let user = PersonalRoutes.bearerToken(request) != nil ? try await personal.user(request) : nil
        let answering = try serving.snapshot.answering(user)
        let recognizer = try recognizer(object, answering)
        let service =
            recognizer.kind == answering.service.recognizer.kind ? answering.service : answering.service.answering(with: recognizer)
        var shortcut: NearestNeighborClassifier.Prediction?
        if let user { shortcut = try await personal.prediction(for: sketch, user: user) }
        let result = try await service.suggest(sketch, labels: labels, perLabel: perLabel, style: style, deadline: limits.requestDeadline)
        if let arm = answering.arm, let user, !result.suggestions.isEmpty { personal.count(arm, user: user.id, served: 1, accepted: 0) }
        var body = SuggestBody(result, names: names)
        if let shortcut { body.shortcut = .some(shortcut.label.map { SuggestBody.Shortcut(label: $0, distance: shortcut.distance) }) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body.json.bytes))
        )
    }

    /// `POST /api/detect`: the objects of a canvas, boxed, labelled and (in stream mode, the
    /// default, replaying the strokes in order) with tracking IDs.
    private func detect(_ request: Request) async throws -> Response {
        let object = try await input.object(of: request)
        let sketch = try input.sketch(object)
        let maxObjects = try input.integer(object, "maxObjects", default: 5, in: 1...20)
        let names = try LocalizedNames(localizer: localizer, request: request, body: object)
        let mode: SceneDetectorOptions.Mode
        switch object["mode"] {
        case nil, .null?: mode = .stream
        case let .string(text)? where SceneDetectorOptions.Mode(rawValue: text) != nil: mode = SceneDetectorOptions.Mode(rawValue: text)!
        default: throw APIError(.badRequest, "\"mode\" must be \"stream\" or \"single\"")
        }
        let snapshot = try serving.snapshot
        let recognizer = try recognizer(object, snapshot.answering(nil))
        let embedder = try snapshot.recognizers.raster
        let options = SceneDetectorOptions(mode: mode, maxObjects: maxObjects)
        let objects = try await work.run(deadline: limits.requestDeadline) {
            try SceneDetector(options: options, recognizer: recognizer, embedder: embedder).detectReplaying(sketch)
        }
        return try json(SceneObjects(objects: names.objects(objects)))
    }

    /// `GET /api/pictures/search?q=…`: pictures found by name rather than drawn: the classes whose
    /// names (in the request's locale or English) or CLDR keywords match `q`, best match first,
    /// each with its most typical pictures in `style`, at most `limit` in all.
    private func searchPictures(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters.get("q") ?? ""
        guard query.count <= 100 else { throw APIError(.badRequest, "\"q\" is longer than 100 characters") }
        let options = SketchInput.queryObject(request, keys: ["limit", "style"])
        let limit = try input.integer(options, "limit", default: 12, in: 1...48)
        let style = try input.style(options)
        let names = try LocalizedNames(localizer: localizer, request: request)
        let labels = localizer.labels(matching: query, in: names.locale, limit: limit)
        var suggestions: [SuggestionBody] = []
        if !labels.isEmpty {
            let guesses = labels.enumerated().map { Guess(label: $1, probability: 1 / Double($0 + 1)) }
            let request = SuggestionRequest(
                analysis: SketchAnalysis(guesses: guesses, embedding: []), labels: labels.count,
                perLabel: min(SuggestionLimits.perLabel.upperBound, max(2, limit / labels.count)), style: style)
            let found = try await serving.snapshot.service.pictures(for: request).suggestions
            suggestions = found.prefix(limit).map { SuggestionBody($0, names: names) }
        }
        return try json(SearchBody(query: query, suggestions: suggestions))
    }

    /// The recogniser the body's `"model"` names (`raster`, `strokes`, `ensemble` or a model of
    /// the models folder), or the server's default. Models are loaded once, on first use.
    /// - Throws: a bad request for a name that is not plain, not in the folder (the message names
    ///   no path) or of a model that gives no guesses; an internal error for a model whose files
    ///   are broken (logged).
    private func recognizer(
        _ object: [String: JSONValue], _ answering: (recognizers: RecognizerSet, service: SuggestionService, arm: ModelExperiment.Arm?)
    ) throws -> SketchRecognizer {
        let problem = "\"model\" must be raster, strokes, ensemble or the name of a model of the server"
        let kind: RecognizerKind
        switch object["model"] {
        case nil, .null?: return answering.service.recognizer
        case let .string(name)?:
            guard let named = RecognizerKind(rawValue: name), answering.recognizers.has(named) else {
                throw APIError(.badRequest, "\(problem); it has no model \(JSONValue.string(String(name.prefix(100))).jsonText)")
            }
            guard try answering.recognizers.givesGuesses(named) else {
                throw APIError(.badRequest, "\(problem); the model \(name) gives embeddings only, no guesses")
            }
            kind = named
        default: throw APIError(.badRequest, problem)
        }
        return try answering.recognizers.recognizer(kind)
    }

    /// A picture as PNG: its thumbnail (stored in the index), or drawn at full size on the work
    /// queue (OpenMoji line art in colour when `colour` is set).
    private func picture(_ context: some RequestContext, thumbnail: Bool, drawing: PictureDrawing) async throws -> Response {
        let id = try pictureID(context)
        let bytes: [UInt8]
        let images = try serving.snapshot.images
        if thumbnail {
            guard let data = try images.thumbnail(id: id) else { throw APIError(.notFound, "no picture \(id)") }
            bytes = [UInt8](data)
        } else {
            let picture = try await work.run(deadline: limits.requestDeadline) {
                try images.picture(id: id, color: drawing.color, weight: drawing.weight)
            }
            guard let picture else { throw APIError(.notFound, "no picture \(id)") }
            bytes = picture.bytes
        }
        return Response(
            status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// `GET /api/library/:id/vector`: an SVG picture as a document cropped like its image, for
    /// exports that keep vectors. Served so that a browser opening it runs nothing in it.
    private func vector(_ context: some RequestContext, drawing: PictureDrawing) async throws -> Response {
        let id = try pictureID(context)
        let images = try serving.snapshot.images
        let document: Data?
        do {
            document = try await work.run(deadline: limits.requestDeadline) {
                try images.vector(id: id, color: drawing.color, weight: drawing.weight)
            }
        } catch let error as LibraryError {
            throw APIError(.notFound, "no vector picture: \(error.description)")
        }
        guard let document else { throw APIError(.notFound, "no picture \(id)") }
        var headers: HTTPFields = [.contentType: "image/svg+xml", .cacheControl: "public, max-age=86400"]
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document)))
    }

    /// The picture id of a `library/:id/…` path.
    private func pictureID(_ context: some RequestContext) throws -> String {
        guard let raw = context.parameters.get("id"), let id = raw.removingPercentEncoding else {
            throw APIError(.notFound, "no such picture")
        }
        return id
    }
}

/// A JSON response.
package func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    let data = try jsonData(value)
    return Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
