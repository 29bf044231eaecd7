/// The `type` of a message the server sends on `/api/live`.
enum LiveOutboundType: String, Codable, Sendable {
    /// The guesses and pictures for one state of the sketch (``SuggestBody``).
    case result
    /// The objects of one state of the canvas, for a connection in scene mode (``SceneMessage``).
    case scene
    /// A message refused or a query that failed (``SocketErrorBody``).
    case error
}
