import SketchwiseCore
import Testing

/// The swap rule: a picture replacing a sketch is centred on the sketch's bounding box and as
/// large as fits inside it with the picture's own aspect ratio.
@Suite struct FittingTests {
    func sketch(_ points: [(Double, Double)]) -> StrokeSketch {
        StrokeSketch(strokes: [Stroke(points: points.map { Point(x: $0.0, y: $0.1) })], label: "cat")
    }

    @Test func aWidePictureFillsTheWidthOfASquareBoxAndIsCentered() throws {
        let s = sketch([(0, 0), (100, 100)])
        let image = try #require(ImageSketch.replacing(s, imageReference: "x", imageSize: Size(width: 200, height: 100)))
        #expect(image.size == Size(width: 100, height: 50))
        #expect(image.center == Point(x: 50, y: 50))
        #expect(image.origin == Point(x: 0, y: 25))
        #expect(image.label == "cat")
    }

    @Test func aTallPictureFillsTheHeightOfAWideBox() throws {
        let s = sketch([(10, 10), (410, 110)])
        let image = try #require(ImageSketch.replacing(s, imageReference: "x", imageSize: Size(width: 50, height: 100), label: "tree"))
        #expect(image.size == Size(width: 50, height: 100))
        #expect(image.center == Point(x: 210, y: 60))
        #expect(image.label == "tree")
    }

    @Test func aFlatBoxIsFilledAlongItsLongSide() throws {
        let s = sketch([(0, 5), (300, 5)])
        let image = try #require(ImageSketch.replacing(s, imageReference: "x", imageSize: Size(width: 100, height: 20)))
        #expect(image.size == Size(width: 300, height: 60))
        #expect(image.center == Point(x: 150, y: 5))
    }

    @Test func aDotKeepsThePicturesOwnSize() throws {
        let s = sketch([(7, 7)])
        let image = try #require(ImageSketch.replacing(s, imageReference: "x", imageSize: Size(width: 64, height: 32)))
        #expect(image.size == Size(width: 64, height: 32))
        #expect(image.center == Point(x: 7, y: 7))
    }

    @Test func nothingReplacesAnEmptySketchOrUsesAnEmptyPicture() {
        #expect(ImageSketch.replacing(StrokeSketch(), imageReference: "x", imageSize: Size(width: 1, height: 1)) == nil)
        #expect(ImageSketch.replacing(sketch([(0, 0), (1, 1)]), imageReference: "x", imageSize: Size(width: 0, height: 1)) == nil)
    }
}
