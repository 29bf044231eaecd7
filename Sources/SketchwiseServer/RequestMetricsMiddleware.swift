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
    let handles = RequestMetricHandles()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let inFlight = InFlightRequest(handles.inFlight(method: request.method))
        do {
            var response = try await next(request, context)
            let (status, route, body) = (response.status, context.endpointPath ?? "Unknown", response.body)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { inFlight.end() }
                try await body.write(writer)
                record(route: route, method: request.method, status: status, since: start)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let route = context.endpointPath ?? "NotFound"
            record(route: route, method: request.method, status: status, since: start)
            handles.errors(route: route, method: request.method, status: status).increment()
            inFlight.end()
            throw error
        }
    }

    private func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since start: UInt64) {
        let answer = handles.answer(route: route, method: method, status: status)
        answer.requests.increment()
        answer.duration.recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
    }
}

/// One request in `http.server.active_requests`: counted when made, and uncounted once, by
/// ``end()`` or, for an answer that is never written (its client went away), when released.
private final class InFlightRequest: @unchecked Sendable {
    private let meter: Meter
    private var ended = false

    init(_ meter: Meter) {
        self.meter = meter
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
