import SketchwiseCore
import Testing

@Suite struct CanvasTests {
    let line = Stroke(points: [Point(x: 0, y: 0), Point(x: 100, y: 50)])

    @Test func strokesGoToTheCurrentSketchUntilItIsFinished() {
        var canvas = Canvas()
        canvas.add(line)
        canvas.add(line)
        #expect(canvas.items.count == 1)
        #expect(canvas.currentSketch?.strokes.count == 2)
        canvas.finishCurrentSketch()
        canvas.add(line)
        #expect(canvas.items.count == 2)
        #expect(canvas.currentIndex == 1)
    }

    @Test func replacingTheCurrentSketchFitsThePictureAndCanBeUndone() throws {
        var canvas = Canvas()
        canvas.add(line)
        let replaced = canvas.replaceCurrentSketch(imageReference: "sun.svg", imageSize: Size(width: 10, height: 10), label: "sun")
        let placed = try #require(replaced)
        #expect(placed.size == Size(width: 50, height: 50))
        #expect(placed.center == Point(x: 50, y: 25))
        #expect(canvas.items == [.image(placed)])
        #expect(canvas.currentSketch == nil)
        canvas.undo()
        #expect(canvas.currentSketch?.strokes == [line])
        canvas.redo()
        #expect(canvas.items == [.image(placed)])
    }

    @Test func withoutACurrentSketchNothingIsReplaced() {
        var canvas = Canvas()
        let replaced = canvas.replaceCurrentSketch(imageReference: "x", imageSize: Size(width: 1, height: 1), label: nil)
        #expect(replaced == nil)
        #expect(!canvas.canUndo)
    }

    @Test func moveClearUndoAndRedoRestoreEveryState() {
        var canvas = Canvas()
        canvas.add(line)
        let drawn = canvas
        canvas.move(itemAt: 0, centerTo: Point(x: 0, y: 0))
        #expect(canvas.items[0].sketch.center == Point(x: 0, y: 0))
        canvas.clear()
        #expect(canvas.items.isEmpty)
        canvas.undo()
        canvas.undo()
        #expect(canvas.items == drawn.items)
        canvas.redo()
        #expect(canvas.items[0].sketch.center == Point(x: 0, y: 0))
        canvas.add(line)
        #expect(!canvas.canRedo)
    }
}
