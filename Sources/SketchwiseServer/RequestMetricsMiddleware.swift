import Dispatch
import Hummingbird
import Metrics

/// Records every request for `GET /metrics`: a counter and a duration by route, method and status
/// (`hb.requests`, `http.server.request.duration`, `hb.request.errors` for thrown errors) and the
/// requests in flight by method (`http.server.active_requests`). The metric names are Hummingbird's
/// `MetricsMiddleware`'s; unlike it, a request counts as in flight only until its answer is written
/// or dropped: a client that disconnects before its answer is written no longer leaves the gauge
/// one higher for ever.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let inFlight = InFlightRequest(method: request.method)
        do {
            var response = try await next(request, context)
            let (status, route, body) = (response.status, context.endpointPath ?? "Unknown", response.body)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { inFlight.end() }
                try await body.write(writer)
                Self.record(route: route, method: request.method, status: status, since: start)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            Self.record(route: context.endpointPath ?? "NotFound", method: request.method, status: status, since: start)
            Counter(
                label: "hb.request.errors",
                dimensions: Self.dimensions(context.endpointPath ?? "NotFound", request.method, status, statusKey: "error.type")
            )
            .increment()
            inFlight.end()
            throw error
        }
    }

    private static func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since start: UInt64) {
        let dimensions = dimensions(route, method, status, statusKey: "http.response.status_code")
        Counter(label: "hb.requests", dimensions: dimensions).increment()
        Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            .recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
    }

    private static func dimensions(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status, statusKey: String) -> [(
        String, String
    )] {
        [("http.route", route), ("http.request.method", method.rawValue), (statusKey, String(status.code))]
    }
}

/// One request in `http.server.active_requests`: counted when made, and uncounted once, by
/// ``end()`` or, for an answer that is never written (its client went away), when released.
private final class InFlightRequest: @unchecked Sendable {
    private let meter: Meter
    private var ended = false

    init(method: HTTPRequest.Method) {
        meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
        meter.increment()
    }

    /// Called by the one task that writes the answer.
    func end() {
        guard !ended else { return }
        ended = true
        meter.decrement()
    }

    deinit {
        if !ended { meter.decrement() }
    }
}
