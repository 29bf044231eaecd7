import Foundation
import SketchwiseCore
import SketchwisePreprocess
import Testing

@Suite struct GoogleSimplifierTests {
    let simplifier = GoogleSimplifier()

    func sketch(_ strokes: [[(Double, Double)]]) -> StrokeSketch {
        StrokeSketch(strokes: strokes.map { Stroke(points: $0.map { Point(x: $0.0, y: $0.1, t: 0) }) }, label: "x")
    }

    @Test func alignsScalesAndKeepsCornersOfAPolyline() throws {
        let result = try simplifier.simplify(sketch([[(100, 100), (500, 100), (500, 300)]]))
        #expect(result.strokes[0].points == [Point(x: 0, y: 0), Point(x: 255, y: 0), Point(x: 255, y: 128)])
        #expect(result.label == "x")
    }

    @Test func aStraightLineOfManyPointsBecomesItsEnds() throws {
        let result = try simplifier.simplify(sketch([(0..<500).map { (Double($0), Double($0) * 0.5) }]))
        #expect(result.strokes[0].points == [Point(x: 0, y: 0), Point(x: 255, y: 128)], "127.5 rounds to even")
    }

    @Test func aOnePointStrokeBecomesTwoEqualPointsAsInGooglesData() throws {
        let result = try simplifier.simplify(sketch([[(0, 0), (10, 10)], [(5, 5)]]))
        #expect(result.strokes[1].points == [Point(x: 128, y: 128), Point(x: 128, y: 128)])
    }

    @Test func aDrawingWithoutExtentCollapsesToTheOrigin() throws {
        let result = try simplifier.simplify(sketch([[(3, 3), (3, 3)], [(3, 3)]]))
        #expect(result.allPoints.allSatisfy { $0 == Point(x: 0, y: 0) })
        #expect(result.strokes.count == 2)
    }

    @Test func emptyAndUnusableDrawingsAreErrors() {
        #expect(throws: SketchError.empty) { try simplifier.simplify(StrokeSketch()) }
        #expect(throws: SketchError.empty) { try simplifier.simplify(StrokeSketch(strokes: [Stroke(points: [])])) }
        #expect(throws: SketchError.self) { try simplifier.simplify(sketch([[(0, 0), (.nan, 1)]])) }
        #expect(throws: SketchError.self) { try simplifier.simplify(sketch([[(0, 0), (1e300, 1)]])) }
    }

    /// A million-point spiral: bounded time and memory, and RDP runs without recursion.
    @Test func aStrokeOfAMillionPointsIsSimplified() throws {
        let points = (0..<1_000_000).map { i -> (Double, Double) in
            let a = Double(i) * 0.0002, r = 10 + Double(i) * 0.001
            return (r * cos(a), r * sin(a))
        }
        let result = try simplifier.simplify(sketch([points]))
        #expect(result.strokes[0].points.count > 50)
        #expect(result.strokes[0].points.count < 5_000)
    }

    /// A legal sketch (20,000 points, the server's limit) zig-zagging across the box is millions
    /// of units long: it is simplified on its own points instead of being resampled at 1 unit
    /// (issue 14: such sketches were refused with "4,327,132 points").
    @Test func aLongZigzagIsSimplifiedWithoutResampling() throws {
        let zigzag = (0..<20_000).map { i in (Double(i % 2) * 1000, Double(i) * 0.05) }
        let result = try simplifier.simplify(sketch([zigzag]))
        let points = result.strokes[0].points
        #expect(points.count > 100 && points.count <= 20_000)
        #expect(points.allSatisfy { (0...255).contains($0.x) && (0...255).contains($0.y) })
        #expect(points.first == Point(x: 0, y: 0) && points.last?.y == 255)
    }

    @Test func simplifiedDrawingsAreRecognized() throws {
        let result = try simplifier.simplify(sketch([[(0, 0), (7, 3)]]))
        #expect(GoogleSimplifier.isSimplified(result))
        #expect(!GoogleSimplifier.isSimplified(sketch([[(0, 0), (7, 3)]])))
        #expect(!GoogleSimplifier.isSimplified(StrokeSketch()))
    }
}
