import Hummingbird
import SketchwiseLibrary

/// How a library picture is asked to be drawn: `?color=true` (OpenMoji's colour layers; `colour`
/// is the parameter's first name, still accepted) and `?weight=` (a line picture's line width as
/// a share of its longer side, 0.001…0.1).
struct PictureDrawing: Sendable {
    var color = false
    var weight: LineWeight?

    init() {}

    /// The drawing a request's query asks for.
    /// - Throws: ``APIError`` `bad_request` for a weight that is not a number in range.
    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        color = ["1", "true"].contains(query.get("color") ?? query.get("colour"))
        if let text = query.get("weight") {
            guard let share = Double(text), let weight = LineWeight(share: share) else {
                throw APIError(.badRequest, "weight must be a number from \(LineWeight.range.lowerBound) to \(LineWeight.range.upperBound)")
            }
            self.weight = weight
        }
    }
}
