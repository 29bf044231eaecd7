import SketchwiseCore
import SketchwisePreprocess
import Testing

@Suite struct StrokeSequenceTests {
    let sketch = StrokeSketch(strokes: [
        Stroke(points: [Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 20)]),
        Stroke(points: [Point(x: 0, y: 20), Point(x: 5, y: 10)]),
    ])

    @Test func rowsAreNormalizedOffsetsWithPenUpOnEachStrokesLastPoint() {
        let sequence = StrokeSequenceEncoder(length: 6, normalization: .perAxis).encode(sketch)
        #expect(sequence.validRows == 4)
        #expect(sequence.rows == 6)
        #expect(Array(sequence.values.prefix(12)) == [1, 0, 0, 0, 1, 1, -1, 0, 0, 0.5, -0.5, 1])
        #expect(sequence.values.suffix(6).allSatisfy { $0 == 0 })
    }

    @Test func uniformNormalizationKeepsTheAspect() {
        let sequence = StrokeSequenceEncoder(length: 4, normalization: .uniform).encode(sketch)
        #expect(Array(sequence.values.prefix(6)) == [0.5, 0, 0, 0, 1, 1])
    }

    @Test func theSeedsSeventyFiveStepsCutLongDrawings() {
        let long = StrokeSketch(strokes: [Stroke(points: (0..<200).map { Point(x: Double($0), y: Double($0 % 7)) })])
        let sequence = StrokeSequenceEncoder().encode(long)
        #expect(sequence.rows == 75)
        #expect(sequence.validRows == 75)
    }

    @Test func decodingGivesBackTheNormalizedDrawing() {
        let encoder = StrokeSequenceEncoder(length: 10, normalization: .uniform)
        let decoded = StrokeSequenceEncoder.decode(encoder.encode(sketch))
        #expect(decoded.strokes.count == 2)
        let expected = sketch.strokes.map { $0.points.map { Point(x: $0.x / 20, y: $0.y / 20) } }
        #expect(decoded.strokes.map(\.points) == expected)
    }

    @Test func emptyAndOnePointSketchesGiveNoRows() {
        #expect(StrokeSequenceEncoder().encode(StrokeSketch()).validRows == 0)
        #expect(StrokeSequenceEncoder().encode(StrokeSketch(strokes: [Stroke(points: [Point(x: 1, y: 1)])])).validRows == 0)
    }
}
