import SketchwiseCore
import Testing

@testable import SketchwiseScenes

/// The tracker asks for an object's embedding only where it can change the answer.
@Suite struct ObjectTrackerTests {
    /// How many embeddings were computed.
    final class Count {
        var value = 0
    }

    /// An observation of `strokes` (stroke shapes stand for strokes) whose embedding counts how
    /// often it is computed.
    static func observation(_ shapes: Set<Int>, x: Double, embedded: Count) -> ObjectTracker.Observation {
        ObjectTracker.Observation(
            frame: Rect(minX: x, minY: 0, width: 100, height: 100), shapes: shapes,
            embedding: LazyEmbedding {
                embedded.value += 1
                return [1, 0]
            })
    }

    @Test func aGrowingObjectKeepsItsIDWithoutItsEmbedding() throws {
        let tracker = ObjectTracker(), embedded = Count()
        let first = try tracker.update([Self.observation([1], x: 0, embedded: embedded)])
        #expect(try tracker.update([Self.observation([1, 2], x: 0, embedded: embedded)]) == first)
        #expect(embedded.value == 0, "the object continued its track whole")
        let second = try tracker.update([
            Self.observation([1, 2], x: 0, embedded: embedded), Self.observation([9], x: 500, embedded: embedded),
        ])
        #expect(second == [first[0], first[0] + 1])
        #expect(embedded.value == 2, "a new object is compared with the track by embedding")
        let merged = try tracker.update([Self.observation([1, 2, 9, 3], x: 0, embedded: embedded)])
        #expect(merged == [first[0]], "parts that merge keep the oldest ID")
        #expect(embedded.value == 2, "the merged object holds both tracks whole")
    }

    @Test func anObjectThatLostStrokesIsComparedByItsEmbedding() throws {
        let tracker = ObjectTracker(), embedded = Count()
        let first = try tracker.update([Self.observation([1, 2, 3], x: 0, embedded: embedded)])
        // One stroke erased and the rest moved away: no stroke set, no overlap; the embedding decides.
        let moved = try tracker.update([Self.observation([1], x: 800, embedded: embedded)])
        #expect(moved == first)
        #expect(embedded.value == 2, "the new object's and the track's, once each")
    }
}
