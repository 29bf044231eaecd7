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
            }, start: shapes.min() ?? 0)
    }

    /// An observation without an embedding, its first stroke the smallest shape.
    static func plain(_ shapes: Set<Int>, x: Double) -> ObjectTracker.Observation {
        ObjectTracker.Observation(
            frame: Rect(minX: x, minY: 0, width: 100, height: 100), shapes: shapes, embedding: nil, start: shapes.min() ?? 0)
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

    @Test func theExactStrokesOfAnEndedTrackTakeItsIDBack() throws {
        let tracker = ObjectTracker()
        let house = Self.plain([1, 2], x: 0), sun = Self.plain([3], x: 300), fish = Self.plain([4, 5], x: 600)
        let drawn = try tracker.update([house, sun, fish])
        // Undo the fish, then Redo it: its number comes back, not a new one.
        #expect(try tracker.update([house, sun]) == Array(drawn.prefix(2)))
        #expect(try tracker.update([house, sun, fish]) == drawn)
        // Undone again, then drawn again by hand (other strokes), or the same strokes elsewhere:
        // a new object.
        _ = try tracker.update([house, sun])
        let redrawn = try tracker.update([house, sun, Self.plain([6, 7], x: 600)])
        #expect(redrawn.prefix(2) == drawn.prefix(2) && !drawn.contains(redrawn[2]))
        _ = try tracker.update([house, sun])
        let elsewhere = try tracker.update([house, sun, Self.plain([4, 5], x: 900)])
        #expect(!drawn.contains(elsewhere[2]) && elsewhere[2] != redrawn[2])
    }

    @Test func partsOfAMergeSplitAgainKeepTheirIDs() throws {
        let tracker = ObjectTracker()
        let left = Self.plain([1, 2], x: 0), right = Self.plain([3], x: 150)
        let apart = try tracker.update([left, right])
        let joined = try tracker.update([Self.plain([1, 2, 3, 4], x: 0)])
        #expect(joined == [apart[0]], "the oldest part keeps its ID")
        #expect(try tracker.update([left, right]) == apart, "Undo of the joining stroke")
    }

    @Test func aResetTrackerGivesTheSameStrokesTheirIDs() throws {
        let tracker = ObjectTracker()
        let objects = [Self.plain([1], x: 0), Self.plain([2], x: 300)]
        let before = try tracker.update(objects)
        tracker.reset()
        #expect(try tracker.update(objects.reversed()) == before.reversed())
    }

    @Test func newObjectsAreNumberedInTheOrderTheyWereDrawn() throws {
        let tracker = ObjectTracker()
        // Largest first, as the detector lists them; the small one was drawn first.
        let ids = try tracker.update([Self.plain([5, 6], x: 0), Self.plain([1, 2], x: 300), Self.plain([3], x: 600)])
        #expect(ids == [3, 1, 2])
    }
}
