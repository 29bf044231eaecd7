import Foundation
import SketchwiseCore
import SketchwiseRaster
import Testing

/// Images of pen lines traced back into strokes: thick lines become their centre lines, loops
/// stay closed, dots stay dots.
@Suite struct InkTracerTests {
    /// A 64 × 64 image with ink wherever `isInk(x, y)` holds for the pixel centre.
    func image(_ isInk: (Double, Double) -> Bool) -> GrayImage {
        var image = GrayImage(width: 64, height: 64)
        for y in 0..<64 {
            for x in 0..<64 where isInk(Double(x) + 0.5, Double(y) + 0.5) { image[x, y] = 255 }
        }
        return image
    }

    @Test func aThickBarBecomesItsCentreLine() {
        let strokes = InkTracer.strokes(in: image { x, y in (10...50).contains(x) && abs(y - 20) < 3 })
        let points = strokes.flatMap(\.points)
        #expect(!points.isEmpty)
        #expect(points.allSatisfy { abs($0.y - 20) <= 1 }, "every traced point lies on the bar's centre line")
        #expect(points.map(\.x).min()! <= 14 && points.map(\.x).max()! >= 46, "the bar less about its half width at each end")
        #expect(strokes.count == 1, "one walk from end to end")
    }

    @Test func aThickRingBecomesOneClosedLoopOnItsMiddleCircle() throws {
        let strokes = InkTracer.strokes(in: image { x, y in abs(((x - 32) * (x - 32) + (y - 32) * (y - 32)).squareRoot() - 20) < 2.5 })
        let loop = try #require(strokes.first)
        #expect(strokes.count == 1)
        #expect(loop.points.allSatisfy { abs($0.distance(to: Point(x: 32, y: 32)) - 20) <= 1.5 })
        #expect(loop.points.first!.distance(to: loop.points.last!) <= 1.5, "the walk comes back to where it began")
        #expect(loop.points.count >= 100, "around the whole circle (2π·20 ≈ 126 px)")
    }

    @Test func aCrossIsWalkedOverEveryArm() {
        let strokes = InkTracer.strokes(
            in: image { x, y in (abs(x - 32) < 2 && (8...56).contains(y)) || (abs(y - 32) < 2 && (8...56).contains(x)) })
        let points = strokes.flatMap(\.points)
        for end in [Point(x: 32, y: 10), Point(x: 32, y: 54), Point(x: 10, y: 32), Point(x: 54, y: 32)] {
            #expect(points.contains { $0.distance(to: end) <= 3 }, "an arm reaches \(end)")
        }
        #expect((2...4).contains(strokes.count), "walks go on through the junction")
    }

    @Test func aDotStaysAShortStrokeAndBlankPaperHasNone() throws {
        let dot = InkTracer.strokes(in: image { x, y in abs(x - 40.5) < 1.2 && abs(y - 12.5) < 1.2 })
        let stroke = try #require(dot.first)
        #expect(dot.count == 1)
        #expect(stroke.points.allSatisfy { $0.distance(to: Point(x: 40.5, y: 12.5)) <= 1.5 })
        let pixel = InkTracer.strokes(in: image { x, y in abs(x - 9.5) < 0.6 && abs(y - 50.5) < 0.6 })
        #expect(pixel.map(\.points) == [[Point(x: 9.5, y: 50.5)]])
        #expect(InkTracer.strokes(in: GrayImage(width: 64, height: 64)).isEmpty)
        #expect(InkTracer.strokes(in: image { _, _ in true }, threshold: 255).count >= 1, "ink at the threshold counts")
        #expect(InkTracer.strokes(in: GrayImage(width: 64, height: 64, pixels: Array(repeating: 127, count: 64 * 64))).isEmpty)
    }
}
