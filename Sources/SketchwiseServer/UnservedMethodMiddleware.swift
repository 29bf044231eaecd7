import Hummingbird

/// Answers the methods the server serves nowhere (`TRACE`, `CONNECT`, unknown ones)
/// `501 not_implemented`, instead of `404` for a path that exists. (`HEAD` is answered as `GET`
/// without the body: the router generates it for every `GET` route, the file middleware for files.)
struct UnservedMethodMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head, .post, .put, .patch, .delete, .options:
            return try await next(request, context)
        default:
            var error = APIError(.notImplemented, "the server does not serve \(request.method.rawValue.prefix(32)) requests")
            // After a CONNECT the parser takes what follows for a tunnel's bytes: nothing more
            // can be read as HTTP on this connection.
            if request.method == .connect { error.headers[.connection] = "close" }
            throw error
        }
    }
}
