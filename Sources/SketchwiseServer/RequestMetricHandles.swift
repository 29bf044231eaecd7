import HTTPTypes
import Metrics
import Synchronization

/// ``RequestMetricsMiddleware``'s metric handles, made once per route, method and status and then
/// reused: making one asks the metrics factory, which builds the label strings anew and looks the
/// metric up under a lock; per request that was about 3 % of the fast mode's server CPU under
/// load. At most ``maximumKeys`` handles of each kind are kept (a method is any token a client
/// sends); past that, a handle is made per request, as it was.
final class RequestMetricHandles: Sendable {
    /// The handles of one answer's route, method and status.
    struct Answer: Sendable {
        /// `hb.requests`.
        let requests: Counter
        /// `http.server.request.duration`.
        let duration: Timer
    }

    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    static let maximumKeys = 1024
    private let answers = Mutex<[Key: Answer]>([:])
    private let errors = Mutex<[Key: Counter]>([:])
    private let inFlight = Mutex<[HTTPRequest.Method: Meter]>([:])

    func answer(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Answer {
        Self.cached(in: answers, Key(route: route, method: method, status: status.code)) {
            let dimensions = Self.dimensions(route, method, status, statusKey: "http.response.status_code")
            return Answer(
                requests: Counter(label: "hb.requests", dimensions: dimensions),
                duration: Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds))
        }
    }

    /// `hb.request.errors`: answers that were thrown errors.
    func errors(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Counter {
        Self.cached(in: errors, Key(route: route, method: method, status: status.code)) {
            Counter(label: "hb.request.errors", dimensions: Self.dimensions(route, method, status, statusKey: "error.type"))
        }
    }

    /// `http.server.active_requests` of a method.
    func inFlight(method: HTTPRequest.Method) -> Meter {
        Self.cached(in: inFlight, method) {
            Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
        }
    }

    private static func dimensions(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status, statusKey: String) -> [(
        String, String
    )] {
        [("http.route", route), ("http.request.method", method.rawValue), (statusKey, String(status.code))]
    }

    /// The handle under `key`, made by `make` (outside the lock) and kept if there is room.
    private static func cached<Key: Hashable & Sendable, Handle: Sendable>(
        in cache: borrowing Mutex<[Key: Handle]>, _ key: Key, make: () -> Handle
    ) -> Handle {
        if let handle = cache.withLock({ $0[key] }) { return handle }
        let handle = make()
        cache.withLock { handles in
            if handles.count < maximumKeys, handles[key] == nil { handles[key] = handle }
        }
        return handle
    }
}
