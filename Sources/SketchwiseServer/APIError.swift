import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SketchwiseCore
import SketchwisePersonal
import SketchwisePhotos
import SketchwiseServing
import SketchwiseTransport
import SketchwiseWork

/// An error answered as JSON: `{"error": {"code", "message"}}` with its HTTP status.
public struct APIError: HTTPResponseError, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable, CaseIterable {
        case badRequest = "bad_request"
        case tooLarge = "too_large"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        /// `/api/live` asked for without a WebSocket upgrade, or with a WebSocket version other than 13.
        case upgradeRequired = "upgrade_required"
        case unsupportedMediaType = "unsupported_media_type"
        case rateLimited = "rate_limited"
        /// A personal call without a valid `Authorization: Bearer TOKEN`.
        case unauthorized
        /// A personal change that lost a race with another.
        case conflict
        /// A personal change that would pass a per-person quota; with `Retry-After`
        /// (``quotaRetryAfter``), though only the person's deletions free it.
        case quotaExceeded = "quota_exceeded"
        /// The work queue is full: try again after `Retry-After` seconds.
        case busy
        case timeout
        /// The server is starting (building or checking the library index): try again after `Retry-After` seconds.
        case starting
        case internalError = "internal"
        /// A method the server does not serve at all (TRACE, CONNECT, an unknown one).
        case notImplemented = "not_implemented"

        var status: HTTPResponse.Status {
            switch self {
            case .badRequest: .badRequest
            case .tooLarge: .contentTooLarge
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .upgradeRequired: .upgradeRequired
            case .unsupportedMediaType: .unsupportedMediaType
            case .rateLimited, .quotaExceeded: .tooManyRequests
            case .unauthorized: .unauthorized
            case .conflict: .conflict
            case .busy, .timeout, .starting: .serviceUnavailable
            case .internalError: .internalServerError
            case .notImplemented: .notImplemented
            }
        }
    }

    public var code: Code
    public var message: String
    /// Headers sent with the error: `Allow` (405), `Retry-After` (503), `Upgrade` (426).
    public var headers: HTTPFields = [:]

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The answer to an error of the work behind a request: unusable coordinates (`400`), an
    /// unusable photo (`415` not PNG or JPEG, `413` too large, `400` corrupt), a full
    /// work queue (`503 busy`, `Retry-After: 1`), a deadline passed (`503 timeout`); nil for others.
    public init?(work error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as ServingNotReady: self = .starting(error.step)
        case let error as SketchError: self.init(.badRequest, error.description)
        case let error as WorkQueue.Busy:
            self.init(.busy, "\(error); try again shortly")
            headers[.retryAfter] = "1"
        case let error as PersonalError:
            switch error.kind {
            case .invalid: self.init(.badRequest, error.description)
            case .notFound: self.init(.notFound, error.description)
            case .limit: self = .quotaExceeded(error.description)
            case .conflict, .cancelled: self.init(.conflict, error.description)
            case .unavailable:
                self.init(.busy, "\(error.description); try again shortly")
                headers[.retryAfter] = "5"
            }
        case let error as PhotoError:
            switch error.kind {
            case .unsupportedFormat: self.init(.unsupportedMediaType, error.message)
            case .tooLarge: self.init(.tooLarge, error.message)
            case .unreadable: self.init(.badRequest, error.message)
            case .wrongModel: self.init(.internalError, error.message)
            }
        case is DeadlineExceeded:
            self.init(.timeout, "the request was not answered within its time limit")
            headers[.retryAfter] = "1"
        default: return nil
        }
    }

    /// The seconds a client is asked to wait after a quota refusal: long, since a quota does not
    /// free itself, so that a client obeying `Retry-After` does not ask again at once.
    static let quotaRetryAfter = 3600

    /// `429 quota_exceeded` with `Retry-After` (``quotaRetryAfter``).
    static func quotaExceeded(_ message: String) -> APIError {
        var error = APIError(.quotaExceeded, message)
        error.headers[.retryAfter] = String(quotaRetryAfter)
        return error
    }

    /// The answer while the server starts: `503 starting` with what it is doing and `Retry-After: 5`.
    static func starting(_ step: String) -> APIError {
        var error = APIError(.starting, "the server is starting (\(step)); try again shortly")
        error.headers[.retryAfter] = "5"
        return error
    }

    public var status: HTTPResponse.Status { code.status }
    public var description: String { "\(code.rawValue): \(message)" }

    /// The JSON body.
    public var body: ErrorBody { ErrorBody(error: .init(code: code.rawValue, message: message)) }

    public struct ErrorBody: Codable, Sendable {
        public struct Detail: Codable, Sendable {
            public var code: String
            public var message: String
        }
        public var error: Detail
    }

    /// The error as the connection pipeline answers it (a refused WebSocket handshake).
    var pipelineRefusal: PipelineRefusal {
        PipelineRefusal(status: status, code: code.rawValue, message: message, headers: headers)
    }

    /// The JSON body, encoded.
    var jsonBytes: Data {
        (try? jsonData(body)) ?? Data(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jsonBytes)))
    }
}

/// Answers every error as an ``APIError``: Hummingbird's own HTTP errors keep their status,
/// anything else is a 500 whose details go to the log, not to the client.
package struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return try Self.translate(error, path: request.uri.path).response(from: request, context: context)
        } catch {
            if let answer = APIError(work: error) { return try answer.response(from: request, context: context) }
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return try APIError(.internalError, "the server failed to answer").response(from: request, context: context)
        }
    }

    /// An API error for one of Hummingbird's. A bad request for a path with `..` (decoded) or
    /// outside `/api` is one the static files refuse: it is not found.
    static func translate(_ error: HTTPError, path: String) -> APIError {
        let message = error.body ?? error.status.reasonPhrase
        switch error.status {
        case .contentTooLarge: return APIError(.tooLarge, "the request body is larger than the limit")
        case .notFound: return APIError(.notFound, "nothing at \(path)")
        case .methodNotAllowed: return APIError(.methodNotAllowed, message)
        case .badRequest where !path.hasPrefix("/api/") || (path.removingPercentEncoding ?? path).contains(".."):
            return APIError(.notFound, "nothing at \(path)")
        case let status where status.code < 500: return APIError(.badRequest, message)
        default: return APIError(.internalError, message)
        }
    }
}
