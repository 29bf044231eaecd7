/// The `type` of a message a client sends on `/api/live`: what it does to the connection's sketch.
enum LiveInboundType: String, CaseIterable, Sendable {
    /// Appends the message's `stroke`.
    case stroke
    /// Removes the last stroke.
    case undo
    /// Empties the sketch.
    case clear
    /// Replaces the sketch with the message's `strokes`.
    case sketch

    /// The types as an error message lists them: `stroke, undo, clear or sketch`.
    static let choices: String = {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }()
}
