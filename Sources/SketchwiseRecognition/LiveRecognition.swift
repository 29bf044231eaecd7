import SketchwiseCore

/// Guesses while a sketch is being drawn: one answer after every stroke. A stroke that adds no
/// point is answered from the previous result; each answer reuses the recogniser's warm sessions.
public struct LiveRecognition: Sendable {
    public let recognizer: SketchRecognizer
    public let top: Int
    public private(set) var sketch = StrokeSketch()
    private var lastGuesses: [Guess] = []

    public init(recognizer: SketchRecognizer, top: Int = 5) {
        self.recognizer = recognizer
        self.top = top
    }

    /// Adds a finished stroke and returns the guesses for the sketch so far.
    public mutating func add(_ stroke: Stroke) throws -> [Guess] {
        guard !stroke.points.isEmpty || sketch.isEmpty else { return lastGuesses }
        sketch.strokes.append(stroke)
        lastGuesses = try recognizer.classify(sketch, top: top)
        return lastGuesses
    }

    /// Removes the last stroke (undo) and returns the guesses for what remains (none when empty).
    public mutating func removeLastStroke() throws -> [Guess] {
        guard !sketch.strokes.isEmpty else { return [] }
        sketch.strokes.removeLast()
        lastGuesses = sketch.isEmpty ? [] : try recognizer.classify(sketch, top: top)
        return lastGuesses
    }
}
