import Foundation
import Hummingbird

/// Refuses paths that hold a NUL or another control character (`/app.js%00.png`), before the
/// static files see them: the file system stops at the NUL while the content type follows the
/// rest, so such a path served a file with the wrong type.
struct ControlCharacterPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let decoded = path.removingPercentEncoding ?? path
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.notFound, "nothing at \(path)")
        }
        return try await next(request, context)
    }
}
