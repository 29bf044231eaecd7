import Foundation
import Hummingbird
import SketchwiseCore
import SketchwiseFormats
import SketchwiseLibrary
import SketchwiseLocalization
import SketchwiseModels
import SketchwisePersonal
import SketchwiseServing
import SketchwiseShortcuts
import SketchwiseTransport

/// The per-person API: users and their bearer tokens, shortcuts, corrections. Every call but
/// `POST /api/users` needs `Authorization: Bearer TOKEN`; a person reaches only their own data.
/// Users are made at most ``ServerLimits/usersPerClientPerMinute`` per client (429 with
/// `Retry-After` past it); shortcuts and corrections are kept within the person's quotas
/// (``ServerLimits/shortcuts``, ``ServerLimits/corrections``; `429 quota_exceeded` with
/// `Retry-After` past them). Each refusal is
/// counted in `sketchwise_personal_refusals_total`.
struct PersonalRoutes: Sendable {
    let shortcuts: PersonalShortcuts
    let limits: ServerLimits
    /// The A/B test whose accepted suggestions are counted, if one runs.
    let experiment: ModelExperiment?
    /// Users made per client.
    let userCreation: ClientRateLimiter
    /// Where the A/B counts are stored, in order (nil when no test runs).
    let recorder: ExperimentRecorder?
    /// The library, whose pictures name the shortcuts that stand for them.
    let serving: ServingModels
    let localizer: Localizer

    init(shortcuts: PersonalShortcuts, limits: ServerLimits, experiment: ModelExperiment?, serving: ServingModels, localizer: Localizer) {
        self.shortcuts = shortcuts
        self.limits = limits
        self.experiment = experiment
        self.serving = serving
        self.localizer = localizer
        userCreation = ClientRateLimiter(perMinute: limits.usersPerClientPerMinute, maximumClients: limits.maximumRateLimitedClients)
        recorder = experiment.map { ExperimentRecorder(store: shortcuts.store, experiment: $0.name) }
    }

    var input: SketchInput { SketchInput(limits: limits) }
    var store: any PersonalStore { shortcuts.store }

    /// The paths and methods of this API (for the `405` answers of ``APIRoutes``).
    static let methods: [(path: RouterPath, allowed: [HTTPRequest.Method])] = [
        ("users", [.post]), ("users/me", [.get, .patch]), ("shortcuts", [.get, .post]), ("shortcuts/predict", [.post, .delete]),
        ("shortcuts/misfires", [.post, .delete]), ("shortcuts/:label", [.delete]), ("corrections", [.post]),
    ]

    func add(to api: RouterGroup<SketchwiseRequestContext>) {
        api.post("users") { _, context in
            if let wait = userCreation.take(context.client) {
                ServerMetrics.personalRefusal("users_per_client")
                var error = APIError(
                    .rateLimited, "at most \(limits.usersPerClientPerMinute) users are made per client per minute; try again later")
                error.headers[.retryAfter] = ClientRateLimiter.retryAfter(wait)
                throw error
            }
            let (user, token) = try await store.createUser(name: nil)
            return try json(UserCreatedBody(token: token, user: user.name), status: .created)
        }
        api.get("users/me") { request, _ in
            let user = try await user(request)
            return try json(UserBody(user: user.name, keepCorrections: user.keepsCorrections, experiments: experiments(of: user)))
        }
        api.patch("users/me") { request, _ in
            let object = try await input.object(of: request)
            let user = try await user(request)
            guard case let .bool(keep)? = object["keepCorrections"] else {
                throw APIError(.badRequest, "expected {\"keepCorrections\": true or false}")
            }
            try await store.setKeepsCorrections(keep, user: user.id)
            return try json(UserBody(user: user.name, keepCorrections: keep, experiments: experiments(of: user)))
        }
        api.get("shortcuts") { request, _ in
            let names = try LocalizedNames(localizer: localizer, request: request)
            let user = try await user(request)
            let labels = try await shortcuts.labels(user: user.id)
            let pictureNames = self.pictureNames(labels.map(\.label), names)
            return try json(
                ShortcutListBody(shortcuts: labels.map { .init(label: $0.label, display: pictureNames[$0.label], examples: $0.examples) }))
        }
        api.post("shortcuts") { request, _ in try await teach(request) }
        api.post("shortcuts/predict") { request, _ in
            let object = try await input.object(of: request)
            let user = try await user(request)
            return try json(try await prediction(for: try input.sketch(object), user: user))
        }
        api.delete("shortcuts/:label") { request, context in
            guard let label = context.parameters.get("label")?.removingPercentEncoding else {
                throw APIError(.notFound, "no such shortcut")
            }
            return try await remove(label, request)
        }
        api.post("shortcuts/misfires") { request, _ in try await misfire(request) }
        // `shortcuts/predict` and `shortcuts/misfires` take POST; DELETE there removes the shortcut of that name.
        api.delete("shortcuts/predict") { request, _ in try await remove("predict", request) }
        api.delete("shortcuts/misfires") { request, _ in try await remove("misfires", request) }
        api.post("corrections") { request, _ in
            let object = try await input.object(of: request)
            let user = try await user(request)
            let sketch = try input.sketch(object)
            guard case let .string(typed)? = object["label"] else { throw APIError(.badRequest, "\"label\" must be the chosen label") }
            let label = try ShortcutLabel.validated(typed, limits: shortcuts.limits)
            guard !sketch.isEmpty else { throw APIError(.badRequest, "the sketch has no points") }
            let kind: CorrectionKind? =
                switch object["kind"] {
                case nil, .null?: .suggestion
                case let .string(text)?: CorrectionKind(rawValue: text)
                default: nil
                }
            guard let kind else {
                throw APIError(.badRequest, "\"kind\" must be \"suggestion\" (a picked picture) or \"guess\" (a picked guess)")
            }
            if kind == .suggestion, let experiment { count(experiment.arm(ofUser: user.id), user: user.id, served: 0, accepted: 1) }
            guard user.keepsCorrections else { return try json(CorrectionBody(kept: false)) }
            try await countingRefusals {
                try await store.addCorrection(user: user.id, label: label, sketch: sketch, limits: limits.corrections)
            }
            return try json(CorrectionBody(kept: true), status: .created)
        }
    }

    /// `POST /api/shortcuts`: teaches a label from its examples with an update task on the work
    /// queue, cancelled if the request goes away.
    private func teach(_ request: Request) async throws -> Response {
        let object = try await input.object(of: request)
        let user = try await user(request)
        guard case let .string(typed)? = object["label"] else {
            let expected = "the shortcut's emoji, picture or word"
            throw APIError(.badRequest, JSONValue.problem(with: object["label"], key: "label", expected: expected))
        }
        let label = try ShortcutLabel.validated(typed, limits: shortcuts.limits)
        guard case let .array(examples)? = object["examples"] else {
            throw APIError(.badRequest, "missing \"examples\": a list of drawings, each a list of strokes as in /api/suggest")
        }
        // Before the strokes are read and a slot of the work queue is waited for: no retry helps.
        try shortcuts.checkExampleCount(examples.count, label: label)
        let sketches = try examples.enumerated().map { (index, example) throws(APIError) in
            guard case let .array(strokes) = example else { throw APIError(.badRequest, "example \(index + 1) is not a list of strokes") }
            return StrokeSketch(strokes: try input.strokes(strokes))
        }
        let version = try await update(ShortcutUpdateTask(user: user.id, change: .teach(label: label, examples: sketches)))
        return try json(ShortcutChangedBody(label: label, examples: sketches.count, version: version), status: .created)
    }

    /// `DELETE /api/shortcuts/LABEL`: forgets one of the person's shortcuts.
    private func remove(_ label: String, _ request: Request) async throws -> Response {
        let user = try await user(request)
        let version = try await update(ShortcutUpdateTask(user: user.id, change: .remove(label: label)))
        return try json(ShortcutChangedBody(label: label.precomposedStringWithCanonicalMapping, examples: 0, version: version))
    }

    /// `POST /api/shortcuts/misfires`: the shortcut `label` fired on `strokes` and the person undid
    /// it at once; the drawing is kept so that the shortcuts stay quiet on drawings like it.
    private func misfire(_ request: Request) async throws -> Response {
        let object = try await input.object(of: request)
        let user = try await user(request)
        guard case let .string(label)? = object["label"] else {
            throw APIError(.badRequest, JSONValue.problem(with: object["label"], key: "label", expected: "the shortcut that fired"))
        }
        let sketch = try input.sketch(object)
        let version = try await update(ShortcutUpdateTask(user: user.id, change: .misfire(label: label, drawing: sketch)))
        return try json(MisfireBody(label: label.precomposedStringWithCanonicalMapping, version: version), status: .created)
    }

    /// The names of the labels that are library pictures (`lucide:cat`), in the request's locale;
    /// none while the library is not loaded, or when it cannot be read (the list then shows labels).
    private func pictureNames(_ labels: [String], _ names: LocalizedNames) -> [String: String] {
        guard let database = try? serving.snapshot.database else { return [:] }
        return (try? database.pictureNames(ids: labels, localizer: localizer, in: names.locale)) ?? [:]
    }

    /// Runs an update task (its embedding on the work queue); a request that goes away cancels it.
    private func update(_ task: ShortcutUpdateTask) async throws -> Int64 {
        try await countingRefusals {
            try await withTaskCancellationHandler {
                try await shortcuts.apply(task, deadline: limits.requestDeadline)
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// Runs `body`, counting a refusal by a per-person quota in the metrics.
    private func countingRefusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PersonalError where error.kind == .limit {
            ServerMetrics.personalRefusal(error.quota?.rawValue ?? "other")
            throw error
        }
    }

    /// The person's shortcut for a sketch (label nil: none is close), found on the work queue.
    func prediction(for sketch: StrokeSketch, user: PersonalUser) async throws -> NearestNeighborClassifier.Prediction {
        try await shortcuts.predict(user: user.id, sketch: sketch, deadline: limits.requestDeadline)
    }

    /// The person the request's bearer token belongs to.
    /// - Throws: `401` with `WWW-Authenticate: Bearer` for a missing or unknown token.
    func user(_ request: Request) async throws -> PersonalUser {
        guard let token = Self.bearerToken(request) else {
            throw unauthorized("this call needs Authorization: Bearer TOKEN (POST /api/users gives a token)")
        }
        guard let user = try await store.user(token: token) else {
            throw unauthorized("the bearer token is not known here")
        }
        return user
    }

    /// Adds to the A/B test's counts of `user`'s arm, off the request path and in order
    /// (``ExperimentRecorder``): acceptances count only up to the suggestions answered to `user`.
    func count(_ arm: ModelExperiment.Arm, user: Int64, served: Int, accepted: Int) {
        recorder?.record(arm, user: user, served: served, accepted: accepted)
    }

    /// The arm a person is in, by A/B test (nil when none runs).
    func experiments(of user: PersonalUser) -> [String: ModelExperiment.Arm]? {
        experiment.map { [$0.name: $0.arm(ofUser: user.id)] }
    }

    /// The stored counts of every arm of `experiment`.
    func counts(_ experiment: ModelExperiment) async throws -> [ExperimentCount] {
        try await store.counts(experiment: experiment.name)
    }

    /// The token of `Authorization: Bearer TOKEN`, if the header has that form.
    static func bearerToken(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.count > 256 ? nil : token
    }

    private func unauthorized(_ message: String) -> APIError {
        var error = APIError(.unauthorized, message)
        error.headers[.wwwAuthenticate] = "Bearer"
        return error
    }

}

struct UserCreatedBody: Encodable { let token: String; let user: String }
struct UserBody: Encodable { let user: String; let keepCorrections: Bool; let experiments: [String: ModelExperiment.Arm]? }
struct ShortcutListBody: Encodable {
    /// A shortcut: its `label`, the name of the picture it stands for when that is a library
    /// picture (`display`, in the request's locale), and how many drawings taught it.
    struct Item: Encodable { let label: String; let display: String?; let examples: Int }
    let shortcuts: [Item]
}
struct ShortcutChangedBody: Encodable { let label: String; let examples: Int; let version: Int64 }
struct CorrectionBody: Encodable { let kept: Bool }
struct MisfireBody: Encodable { let label: String; let version: Int64 }
