import Foundation
import Hummingbird

/// Refuses paths that hold a NUL or another control character (`/app.js%00.png`), before the
/// static files see them: the file system stops at the NUL while the content type follows the
/// rest, so such a path served a file with the wrong type. It throws `404 Not Found`, which the
/// server's error middleware answers as its own.
package struct ControlCharacterPathMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let decoded = path.removingPercentEncoding ?? path
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError(.notFound)
        }
        return try await next(request, context)
    }
}
