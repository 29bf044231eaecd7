/// One item on a canvas.
public enum CanvasItem: Hashable, Sendable {
    case strokes(StrokeSketch)
    case image(ImageSketch)

    /// The item as a ``Sketch``.
    public var sketch: any Sketch {
        switch self {
        case let .strokes(s): s
        case let .image(i): i
        }
    }
}

/// An ordered list of sketches (back to front) with the sketch being drawn ("current") and an
/// undo history. Value semantics: copy it to keep a snapshot.
public struct Canvas: Hashable, Sendable {
    public private(set) var items: [CanvasItem] = []
    /// Index in ``items`` of the stroke sketch new strokes go to; nil until the next stroke starts one.
    public private(set) var currentIndex: Int?
    private var undoStack: [State] = []
    private var redoStack: [State] = []

    private struct State: Hashable, Sendable {
        var items: [CanvasItem]
        var currentIndex: Int?
    }

    public init() {}

    /// The stroke sketch being drawn, if any.
    public var currentSketch: StrokeSketch? {
        guard let i = currentIndex, case let .strokes(s) = items[i] else { return nil }
        return s
    }

    /// Adds a stroke to the current sketch, starting a new sketch when there is none.
    public mutating func add(_ stroke: Stroke) {
        recordUndo()
        if let i = currentIndex, case var .strokes(s) = items[i] {
            s.strokes.append(stroke)
            items[i] = .strokes(s)
        } else {
            items.append(.strokes(StrokeSketch(strokes: [stroke])))
            currentIndex = items.count - 1
        }
    }

    /// Ends the current sketch: the next stroke starts a new one.
    public mutating func finishCurrentSketch() {
        currentIndex = nil
    }

    /// Replaces the current stroke sketch by a picture fitted to it (see
    /// ``ImageSketch/replacing(_:imageReference:imageSize:label:)``) and ends the sketch.
    /// - Returns: the placed picture, or nil when there is no current sketch to replace.
    @discardableResult
    public mutating func replaceCurrentSketch(imageReference: String, imageSize: Size, label: String?) -> ImageSketch? {
        guard let i = currentIndex, case let .strokes(s) = items[i],
              let image = ImageSketch.replacing(s, imageReference: imageReference, imageSize: imageSize, label: label)
        else { return nil }
        recordUndo()
        items[i] = .image(image)
        currentIndex = nil
        return image
    }

    /// Moves the item at `index` so that its centre is at `center`.
    public mutating func move(itemAt index: Int, centerTo center: Point) {
        guard items.indices.contains(index) else { return }
        recordUndo()
        switch items[index] {
        case var .strokes(s): s.center = center; items[index] = .strokes(s)
        case var .image(i): i.center = center; items[index] = .image(i)
        }
    }

    /// Removes every item.
    public mutating func clear() {
        guard !items.isEmpty else { return }
        recordUndo()
        items = []
        currentIndex = nil
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Restores the state before the last change.
    public mutating func undo() {
        guard let previous = undoStack.popLast() else { return }
        redoStack.append(State(items: items, currentIndex: currentIndex))
        (items, currentIndex) = (previous.items, previous.currentIndex)
    }

    /// Re-applies the last undone change.
    public mutating func redo() {
        guard let next = redoStack.popLast() else { return }
        undoStack.append(State(items: items, currentIndex: currentIndex))
        (items, currentIndex) = (next.items, next.currentIndex)
    }

    private mutating func recordUndo() {
        undoStack.append(State(items: items, currentIndex: currentIndex))
        redoStack.removeAll()
    }
}
