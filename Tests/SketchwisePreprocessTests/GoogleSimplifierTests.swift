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

    /// A few hostile points whose scaled path is astronomically long are refused, not resampled.
    @Test func aHostileZigzagIsRefusedNotResampled() {
        let zigzag = (0..<40_000).map { i in (Double(i % 2) * 1000, Double(i) * 0.0001) }
        #expect(throws: SketchError.self) { try simplifier.simplify(sketch([zigzag])) }
    }

    @Test func simplifiedDrawingsAreRecognised() throws {
        let result = try simplifier.simplify(sketch([[(0, 0), (7, 3)]]))
        #expect(GoogleSimplifier.isSimplified(result))
        #expect(!GoogleSimplifier.isSimplified(sketch([[(0, 0), (7, 3)]])))
        #expect(!GoogleSimplifier.isSimplified(StrokeSketch()))
    }
}
