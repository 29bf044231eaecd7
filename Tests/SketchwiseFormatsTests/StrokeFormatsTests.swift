import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

@Suite struct StrokeFormatsTests {
    let sketch = StrokeSketch(strokes: [
        Stroke(points: [Point(x: 10, y: 20), Point(x: 15, y: 25), Point(x: 30, y: 20)]),
        Stroke(points: [Point(x: 5, y: 5)]),
    ])

    @Test func stroke3IsLossless() {
        let rows = sketch.stroke3
        #expect(rows.first == Stroke3Row(dx: 10, dy: 20, penLifted: false))
        #expect(rows.map(\.penLifted) == [false, false, true, true])
        #expect(StrokeSketch(stroke3: rows).strokes.map(\.points) == sketch.strokes.map(\.points))
    }

    @Test func stroke5PadsWithEndOfSketchRowsAndDecodesBack() {
        let rows = sketch.stroke3
        let five = Stroke5.encode(rows, length: 6)
        #expect(five.count == 6)
        #expect(five[0] == [10, 20, 1, 0, 0])
        #expect(five[2] == [15, -5, 0, 1, 0])
        #expect(five[5] == [0, 0, 0, 0, 1])
        #expect(Stroke5.decode(five) == rows)
        #expect(Stroke5.encode(rows, length: 2).count == 2)
    }

    @Test func omniglotTextParsesStrokesAndFlipsY() throws {
        let text = "START\n1.5,-2,0\n3,-4,10\nBREAK\n7,-8,20\nBREAK\n"
        let parsed = try OmniglotStrokes.parse(text, label: "Greek/character01")
        #expect(parsed.strokes.count == 2)
        #expect(parsed.strokes[0].points[0] == Point(x: 1.5, y: 2, t: 0))
        #expect(try OmniglotStrokes.parse(OmniglotStrokes.text(of: parsed), label: nil).strokes == parsed.strokes)
        #expect(throws: RecordError.self) { try OmniglotStrokes.parse("START\n1,2\nBREAK\n", label: nil) }
        #expect(throws: RecordError.self) { try OmniglotStrokes.parse("START\nnan,2,3\nBREAK\n", label: nil) }
    }

    @Test func svgExportDrawsOnePolylinePerStroke() {
        var labeled = sketch
        labeled.label = "a <b> & \"c\""
        let svg = labeled.svgDocument(padding: 2)
        #expect(svg.components(separatedBy: "<polyline").count == 3)
        #expect(svg.contains(#"viewBox="3 3 29 24""#))
        #expect(svg.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"))
        #expect(svg.contains(#"stroke-linecap="round""#))
    }
}
