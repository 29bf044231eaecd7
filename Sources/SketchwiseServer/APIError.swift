import Foundation
import HTTPTypes
import Hummingbird

/// An error answered as JSON: `{"error": {"code", "message"}}` with its HTTP status.
public struct APIError: HTTPResponseError, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable {
        case badRequest = "bad_request"
        case tooLarge = "too_large"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case unsupportedMediaType = "unsupported_media_type"
        case rateLimited = "rate_limited"
        case timeout
        case internalError = "internal"

        var status: HTTPResponse.Status {
            switch self {
            case .badRequest: .badRequest
            case .tooLarge: .contentTooLarge
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .unsupportedMediaType: .unsupportedMediaType
            case .rateLimited: .tooManyRequests
            case .timeout: .serviceUnavailable
            case .internalError: .internalServerError
            }
        }
    }

    public var code: Code
    public var message: String
    /// For ``Code/methodNotAllowed``: the methods the path takes, sent as `Allow`.
    public var allowedMethods: [HTTPRequest.Method] = []

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
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

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = (try? jsonData(body)) ?? Data(#"{"error":{"code":"internal","message":"error"}}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if !allowedMethods.isEmpty { headers[.allow] = allowedMethods.map(\.rawValue).joined(separator: ", ") }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Answers every error as an ``APIError``: Hummingbird's own HTTP errors keep their status,
/// anything else is a 500 whose details go to the log, not to the client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            return try Self.translate(error, path: request.uri.path).response(from: request, context: context)
        } catch {
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
