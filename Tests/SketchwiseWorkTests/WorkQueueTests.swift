import Foundation
import SketchwiseWork
import Synchronization
import Testing

@Suite struct WorkQueueTests {
    /// Work that spins until its stop signal is raised (or `limit` passes), then records that it stopped.
    final class Spinner: Sendable {
        private let startedFlag = Atomic<Bool>(false)
        private let stoppedFlag = Atomic<Bool>(false)
        private let releasedFlag = Atomic<Bool>(false)
        private let stoppedAt = Mutex<ContinuousClock.Instant?>(nil)
        var started: Bool { startedFlag.load(ordering: .relaxed) }
        var stopped: Bool { stoppedFlag.load(ordering: .relaxed) }
        /// When the work saw its stop signal (on the queue's thread).
        var stopTime: ContinuousClock.Instant? { stoppedAt.withLock { $0 } }

        /// Spins until released, stopped or past `limit`. The stop signal is looked at before the
        /// clock, so that a thread the machine left unscheduled past the limit (the work threads run
        /// below the others, and the test suite loads every core) still sees a stop that came.
        func spin(limit: Duration = .seconds(5)) throws -> Int {
            startedFlag.store(true, ordering: .relaxed)
            let end = ContinuousClock.now + limit
            while !releasedFlag.load(ordering: .relaxed) {
                if StopSignal.shouldStop {
                    stoppedAt.withLock { $0 = .now }
                    stoppedFlag.store(true, ordering: .relaxed)
                    throw WorkStopped()
                }
                guard ContinuousClock.now < end else { break }
                Thread.sleep(forTimeInterval: 0.001)
            }
            return 1
        }

        /// Ends the spinning now (the job returns normally).
        func release() { releasedFlag.store(true, ordering: .relaxed) }

        func waitUntilStarted() async throws {
            while !started { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    @Test func runsWorkOnItsOwnThreads() async throws {
        let queue = WorkQueue(threads: 2, queueLimit: 4)
        defer { queue.close() }
        let (inTask, signaled) = try await queue.run { (withUnsafeCurrentTask { $0 != nil }, StopSignal.current != nil) }
        #expect(!inTask, "work runs on a plain thread, outside Swift's task executors")
        #expect(signaled, "work sees its job's stop signal")
        #expect(try await queue.run { 6 * 7 } == 42)
    }

    @Test func passesOnWhatTheWorkThrows() async {
        let queue = WorkQueue(threads: 1, queueLimit: 4)
        defer { queue.close() }
        struct Broken: Error {}
        await #expect(throws: Broken.self) { try await queue.run { () throws -> Int in throw Broken() } }
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 1)
        defer { queue.close() }
        let (running, waiting) = (Spinner(), Spinner())
        // Generous limits: other suites can keep Swift's pool, which resumes this test, busy for long.
        let first = Task { try await queue.run(deadline: .now + .seconds(600)) { try running.spin(limit: .seconds(600)) } }
        try await running.waitUntilStarted()
        let second = Task { try await queue.run(deadline: .now + .seconds(600)) { try waiting.spin() } }
        while queue.waitingCount < 1 { try await Task.sleep(for: .milliseconds(2)) }
        let start = ContinuousClock.now
        let refusal = await #expect(throws: WorkQueue.Busy.self) { try await queue.run { 1 } }
        #expect(refusal?.waiting == 1)
        // Far sooner than the 20 s the running job would take (the bound is loose: other suites
        // keep Swift's pool, which resumes this test, busy).
        #expect(ContinuousClock.now - start < .seconds(10), "a full queue answers without waiting")
        first.cancel()
        second.cancel()
    }

    @Test func theDeadlineAnswersAndStopsTheWorkUnderWay() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 4)
        defer { queue.close() }
        let spinner = Spinner()
        let start = ContinuousClock.now
        await #expect(throws: DeadlineExceeded.self) {
            try await queue.run(deadline: start + .milliseconds(200)) { try spinner.spin() }
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200), "not answered before the deadline")
        while !spinner.stopped && ContinuousClock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Timed on the queue's own threads: the watchdog raised the signal soon after the
        // deadline, whatever keeps Swift's pool busy (the tests over real sockets hold the answer
        // to the deadline + 0.1 s).
        let stoppedAfter = try #require(spinner.stopTime) - start
        #expect(stoppedAfter >= .milliseconds(200) && stoppedAfter < .seconds(1), "stopped after \(stoppedAfter)")
    }

    @Test func workPastItsDeadlineWhileWaitingNeverStarts() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 4)
        defer { queue.close() }
        let (blocker, late) = (Spinner(), Spinner())
        // The blocker holds the only thread until the late job has been answered, however slow
        // the machine is.
        let first = Task { try await queue.run { try blocker.spin(limit: .seconds(30)) } }
        try await blocker.waitUntilStarted()
        let start = ContinuousClock.now
        await #expect(throws: DeadlineExceeded.self) {
            try await queue.run(deadline: start + .milliseconds(100)) { try late.spin() }
        }
        blocker.release()
        #expect(try await first.value == 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!late.started, "a job answered before it started is skipped")
    }

    @Test func cancellingTheCallerStopsTheWork() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 4)
        defer { queue.close() }
        let spinner = Spinner()
        // The spinner outlasts any delay a loaded machine puts between its start and the cancel,
        // so only the stop signal can end it.
        let task = Task { try await queue.run { try spinner.spin(limit: .seconds(120)) } }
        try await spinner.waitUntilStarted()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let start = ContinuousClock.now
        while !spinner.stopped && ContinuousClock.now - start < .seconds(30) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(spinner.stopped)
    }

    @Test func aClosedQueueTakesNoWork() async {
        let queue = WorkQueue(threads: 1, queueLimit: 4)
        queue.close()
        await #expect(throws: WorkQueue.Closed.self) { try await queue.run { 1 } }
    }

    @Test func outsideAQueueNothingAsksToStop() throws {
        #expect(StopSignal.current == nil)
        try StopSignal.check()
        let signal = StopSignal()
        signal.raise()
        StopSignal.$current.withValue(signal) {
            #expect(StopSignal.shouldStop)
            #expect(throws: WorkStopped.self) { try StopSignal.check() }
        }
    }
}
