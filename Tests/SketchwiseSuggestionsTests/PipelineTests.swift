import Foundation
import SketchwiseCore
import SketchwiseLibrary
import SketchwiseRecognition
import SketchwiseSuggestions
import SketchwiseTestSupport
import SketchwiseWork
import Synchronization
import Testing

/// The bundled models, loaded once.
enum Models {
    static let set = try! RecognizerSet.load(from: SharedData.packageRoot.appendingPathComponent("Models"))
}

/// A provider for pipeline tests: tells requests apart by their `labels` count (the tests give
/// each sketch its own), answers each with one suggestion naming it after a delay that depends
/// on it, and records which requests started and which were cancelled.
final class DelayedProvider: SuggestionProvider, @unchecked Sendable {
    let name = "delayed"
    private let lock = NSLock()
    private var cancelledCounts: [Int] = []
    private var startedCounts: [Int] = []
    /// The delay for a request with this `labels` count.
    let delay: @Sendable (Int) -> Duration

    init(delay: @escaping @Sendable (Int) -> Duration) { self.delay = delay }

    var cancelled: [Int] { lock.withLock { cancelledCounts } }
    var started: [Int] { lock.withLock { startedCounts } }

    func suggestions(for request: SuggestionRequest) async throws -> [Suggestion] {
        let strokes = request.labels
        lock.withLock { startedCounts.append(strokes) }
        do {
            try await Task.sleep(for: delay(strokes))
        } catch {
            lock.withLock { cancelledCounts.append(strokes) }
            throw error
        }
        return [Suggestion(
            label: "strokes-\(strokes)", score: 1, probability: 1, similarity: 1, source: .web, itemID: "item-\(strokes)",
            title: "", aspect: 1, reason: .webSearch
        )]
    }
}

/// A sketch of `n` short strokes.
func sketch(strokes n: Int) -> StrokeSketch {
    var strokes: [Stroke] = []
    for i in 0..<n {
        let x = Double(i * 10), y = Double(30 + i)
        strokes.append(try! Stroke(xs: [x, x + 40], ys: [0, y], ts: nil))
    }
    return StrokeSketch(strokes: strokes)
}

@Suite struct PipelineTests {
    func service(_ provider: DelayedProvider) -> SuggestionService {
        SuggestionService(recognizer: try! Models.set.recognizer(.raster), providers: [provider])
    }

    @Test func aNewerSketchCancelsTheOlderQueryAndOnlyTheNewerAnswerArrives() async throws {
        let provider = DelayedProvider { $0 == 1 ? .seconds(30) : .milliseconds(1) }
        let pipeline = SuggestionPipeline(service: service(provider))
        await pipeline.submit(sketch(strokes: 1), query: 1, labels: 1, perLabel: 1)
        // Let the slow query reach its provider before the newer sketch comes.
        while !provider.started.contains(1) { try await Task.sleep(for: .milliseconds(5)) }
        await pipeline.submit(sketch(strokes: 2), query: 2, labels: 2, perLabel: 1)
        var iterator = pipeline.updates.makeAsyncIterator()
        let update = try #require(await iterator.next())
        #expect(update.query == 2)
        #expect(try update.outcome.get().suggestions.map(\.itemID) == ["item-2"])
        #expect(provider.cancelled == [1], "the outdated query stopped at its provider")
        await pipeline.finish()
        #expect(await iterator.next() == nil, "nothing for the outdated sketch after the newer answer")
    }

    @Test func answersArriveInSubmissionOrderAndNeverForAnOutdatedSketch() async throws {
        // Later sketches are faster than earlier ones, the order that tempts a race.
        let provider = DelayedProvider { .milliseconds(max(1, 40 - 2 * $0)) }
        let pipeline = SuggestionPipeline(service: service(provider))
        // Collect until the latest sketch's answer; a watchdog ends the stream if it never comes.
        let collector = Task {
            var seen: [UInt64] = []
            for await update in pipeline.updates {
                seen.append(update.query)
                if update.query == 20 { break }
            }
            return seen
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            await pipeline.finish()
        }
        // Many submitters at once, each with its own query numbers, some arriving out of order.
        await withTaskGroup(of: Void.self) { group in
            for query in UInt64(1)...20 {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 0...15)))
                    await pipeline.submit(sketch(strokes: Int(query)), query: query, labels: Int(query), perLabel: 1)
                }
            }
        }
        let seen = await collector.value
        watchdog.cancel()
        await pipeline.finish()
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "strictly increasing: \(seen)")
        #expect(seen.last == 20, "the latest sketch is answered: \(seen)")
    }

    @Test func aStaleQueryNumberIsRefused() async {
        let pipeline = SuggestionPipeline(service: service(DelayedProvider { _ in .milliseconds(1) }))
        #expect(await pipeline.submit(sketch(strokes: 1), query: 5))
        #expect(!(await pipeline.submit(sketch(strokes: 2), query: 5)))
        #expect(!(await pipeline.submit(sketch(strokes: 2), query: 4)))
        await pipeline.finish()
    }

    @Test func anEmptySketchHasNoGuessesAndNoPictures() async throws {
        let provider = DelayedProvider { _ in .milliseconds(1) }
        let result = try await service(provider).suggest(StrokeSketch(), labels: 4, perLabel: 6)
        #expect(result == .empty)
        #expect(provider.started.isEmpty)
    }

    @Test func aFailingProviderIsReportedAndTheOthersStillAnswer() async throws {
        struct Broken: SuggestionProvider {
            let name = "broken"
            func suggestions(for request: SuggestionRequest) async throws -> [Suggestion] { throw FetchError("down") }
        }
        let service = SuggestionService(
            recognizer: try Models.set.recognizer(.raster), providers: [Broken(), DelayedProvider { _ in .milliseconds(1) }]
        )
        let result = try await service.suggest(sketch(strokes: 3), labels: 3, perLabel: 1)
        #expect(result.suggestions.map(\.itemID) == ["item-3"])
        #expect(result.problems.count == 1 && result.problems[0].hasPrefix("broken:"))
    }

    @Test func workPastItsDeadlineStopsAtTheNextStage() async throws {
        let slow = DelayedProvider { _ in .milliseconds(300) }
        await #expect(throws: DeadlineExceeded.self) {
            try await service(slow).suggest(sketch(strokes: 2), labels: 2, perLabel: 1, deadline: .now + .milliseconds(100))
        }
        #expect(slow.started == [2], "the recognition stage ran, the deadline stopped the answer after the pictures")
        let quick = DelayedProvider { _ in .milliseconds(1) }
        // A generous deadline: other suites can keep Swift's two pool threads busy for long.
        let result = try await service(quick).suggest(sketch(strokes: 2), labels: 2, perLabel: 1, deadline: .now + .seconds(600))
        #expect(result.suggestions.map(\.itemID) == ["item-2"])
        let late = DelayedProvider { _ in .milliseconds(1) }
        await #expect(throws: DeadlineExceeded.self) {
            try await service(late).suggest(sketch(strokes: 2), labels: 2, perLabel: 1, deadline: .now - .seconds(1))
        }
        #expect(late.started.isEmpty, "a deadline already past stops before the recogniser")
    }

    @Test func recognitionRunsOnTheWorkQueueWhichRefusesWhenFull() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 0)
        defer { queue.close() }
        let provider = DelayedProvider { _ in .milliseconds(1) }
        let queued = SuggestionService(recognizer: try Models.set.recognizer(.raster), providers: [provider], work: queue)
        let expected = try await service(provider).suggest(sketch(strokes: 3), labels: 3, perLabel: 1)
        #expect(try await queued.suggest(sketch(strokes: 3), labels: 3, perLabel: 1, deadline: .now + .seconds(600)) == expected)

        // The blocker holds the only thread until the refusal has been seen, however slow the machine.
        let started = Mutex(false)
        let released = Mutex(false)
        let blocker = Task {
            try await queue.run {
                started.withLock { $0 = true }
                while !released.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.002) }
            }
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        await #expect(throws: WorkQueue.Busy.self) {
            try await queued.suggest(sketch(strokes: 3), labels: 3, perLabel: 1)
        }
        released.withLock { $0 = true }
        try await blocker.value
    }
}
