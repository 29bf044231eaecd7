import SketchwiseCore
import Testing

@Suite struct SketchTests {
    let square = StrokeSketch(strokes: [
        Stroke(points: [Point(x: 10, y: 20), Point(x: 30, y: 20), Point(x: 30, y: 60)]),
        Stroke(points: [Point(x: 10, y: 60, t: 5)]),
    ], label: "square")

    @Test func boundingBoxEnclosesEveryPointWithPadding() throws {
        let box = try #require(square.boundingBox)
        #expect(box == Rect(minX: 10, minY: 20, width: 20, height: 40))
        let padded = try #require(square.boundingBox(padding: 5))
        #expect(padded == Rect(minX: 5, minY: 15, width: 30, height: 50))
    }

    @Test func settingTheCenterMovesEveryPointAndKeepsTime() {
        var moved = square
        moved.center = Point(x: 0, y: 0)
        #expect(moved.center == Point(x: 0, y: 0))
        #expect(moved.strokes[0].points[0] == Point(x: -10, y: -20))
        #expect(moved.strokes[1].points[0] == Point(x: -10, y: 20, t: 5))
        #expect(moved.boundingBox?.size == square.boundingBox?.size)
    }

    @Test func anEmptySketchHasNoBoxAndDoesNotMove() {
        var empty = StrokeSketch()
        #expect(empty.boundingBox == nil)
        empty.center = Point(x: 5, y: 5)
        #expect(empty.center == .zero)
        #expect(throws: SketchError.empty) { try empty.validate() }
    }

    @Test func imageSketchCenterMovesItsOrigin() {
        var image = ImageSketch(imageReference: "cat.svg", origin: Point(x: 0, y: 0), size: Size(width: 40, height: 20))
        #expect(image.center == Point(x: 20, y: 10))
        image.center = Point(x: 100, y: 100)
        #expect(image.origin == Point(x: 80, y: 90))
        #expect(image.boundingBox(padding: 1) == Rect(minX: 79, minY: 89, width: 42, height: 22))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300])
    func validationRejectsUnusableCoordinates(value: Double) {
        let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1), Point(x: value, y: 2)])])
        #expect(throws: SketchError.self) { try sketch.validate() }
    }

    @Test func validationRejectsUnusableTimes() {
        let sketch = StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1, t: .nan)])])
        let error = #expect(throws: SketchError.self) { try sketch.validate() }
        guard case let .invalidCoordinate(stroke, point, value)? = error else {
            Issue.record("expected invalidCoordinate, got \(String(describing: error))")
            return
        }
        #expect(stroke == 0 && point == 0 && value.isNaN)
    }

    @Test func strokesFromColumnsRequireEqualLengths() throws {
        #expect(throws: SketchError.mismatchedLengths(x: 2, y: 1, t: nil)) { try Stroke(xs: [1, 2], ys: [1]) }
        #expect(throws: SketchError.mismatchedLengths(x: 2, y: 2, t: 3)) { try Stroke(xs: [1, 2], ys: [1, 2], ts: [0, 1, 2]) }
        let stroke = try Stroke(xs: [1, 2], ys: [3, 4], ts: [0, 16])
        #expect(stroke.points == [Point(x: 1, y: 3, t: 0), Point(x: 2, y: 4, t: 16)])
        #expect(stroke.hasTimestamps)
    }
}
