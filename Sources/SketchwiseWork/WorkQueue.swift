import Foundation
import Synchronization

/// Runs CPU-heavy synchronous work (recognition, embedding, rendering) on a fixed set of threads
/// of its own, never on Swift's cooperative pool or an event loop, and at a lower scheduling
/// priority (``ThreadPriority``), so that cheap requests (health checks, static files) are never
/// stuck behind it.
///
/// Jobs wait in a bounded queue: when it is full, ``run(deadline:_:)`` throws ``Busy`` at once.
/// The queue is shared fairly between clients (``client``, a task-local value the server sets per
/// request): each client may have at most ``queueLimitPerClient`` jobs waiting, and a free thread
/// takes the oldest waiting job of the client with the fewest jobs running, so one client looping
/// costly requests delays another's by at most about one job.
/// A job's caller is answered by its deadline whatever the job does: a watchdog answers
/// ``DeadlineExceeded`` and raises the job's ``StopSignal``, so the job stops at its next check;
/// a job whose caller was answered before it started is skipped. Cancelling the calling task
/// does the same with `CancellationError`.
public final class WorkQueue: @unchecked Sendable {
    /// The queue was full: the work was refused without waiting.
    public struct Busy: Error, Sendable, CustomStringConvertible {
        /// Jobs waiting when it was refused.
        public let waiting: Int
        public init(waiting: Int) { self.waiting = waiting }
        public var description: String { "the server is busy (\(waiting) jobs waiting)" }
    }

    /// The queue was closed (``close()``): no more work is taken.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        public init() {}
        public var description: String { "the work queue is closed" }
    }

    /// Threads running jobs.
    public let threadCount: Int
    /// The threads a queue runs by default: one per core, and one more. Job threads run below the
    /// threads that answer requests (``ThreadPriority``), so on busy cores they get a smaller share
    /// than their number. On 2 cores, three job threads served 4,035 fast-mode suggestions a second
    /// against 3,528 with two (wrk at 64 connections as `bench/load.sh` runs it, medians of 8
    /// alternating rounds; three won 7), and the default mode about as many with either.
    public static var defaultThreadCount: Int { ProcessInfo.processInfo.activeProcessorCount + 1 }
    /// Most jobs waiting for a thread; more are refused with ``Busy``.
    public let queueLimit: Int
    /// Most jobs of one client waiting for a thread; more of that client's are refused with ``Busy``.
    public let queueLimitPerClient: Int

    /// The client on whose behalf the calling task queues work (an address, a user); nil for work
    /// of no client in particular, which is queued as one client of its own.
    @TaskLocal public static var client: String?
    /// How often the watchdog looks for jobs past their deadline.
    static let watchInterval: TimeInterval = 0.02

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var state = State()

    private struct State {
        var waiting: [Job] = []
        var runningJobs: [ObjectIdentifier: Job] = [:]
        var closed = false

        /// When each client with work queued or running last had a job started (a serial number).
        var lastStarted: [String?: UInt64] = [:]
        var starts: UInt64 = 0

        /// The next job to run: the oldest waiting one of the client with the fewest jobs running,
        /// among those the one whose last job started longest ago (a new client first).
        mutating func takeNext() -> Job? {
            guard !waiting.isEmpty else { return nil }
            var running: [String?: Int] = [:]
            for job in runningJobs.values { running[job.client, default: 0] += 1 }
            var best: (index: Int, running: Int, lastStarted: UInt64)?
            var seen: Set<String?> = []
            for (index, job) in waiting.enumerated() where seen.insert(job.client).inserted {
                let candidate = (index, running[job.client, default: 0], lastStarted[job.client].map { $0 + 1 } ?? 0)
                if let current = best, (current.running, current.lastStarted) <= (candidate.1, candidate.2) { continue }
                best = candidate
            }
            guard let best else { return nil }
            starts += 1
            lastStarted[waiting[best.index].client] = starts
            return waiting.remove(at: best.index)
        }

        /// Forgets a client with no job waiting or running.
        mutating func forget(_ client: String?) {
            guard !waiting.contains(where: { $0.client == client }), !runningJobs.values.contains(where: { $0.client == client }) else {
                return
            }
            lastStarted[client] = nil
        }
    }

    /// - Parameters:
    ///   - threads: threads running jobs (at least 1); by default ``defaultThreadCount``.
    ///   - queueLimit: most jobs waiting to start (at least 0).
    ///   - queueLimitPerClient: most jobs of one ``client`` waiting to start (at least 1).
    public init(threads: Int = WorkQueue.defaultThreadCount, queueLimit: Int = 256, queueLimitPerClient: Int = .max) {
        threadCount = max(1, threads)
        self.queueLimit = max(0, queueLimit)
        self.queueLimitPerClient = max(1, queueLimitPerClient)
        for index in 0..<threadCount {
            let thread = Thread { [self] in work() }
            thread.name = "sketchwise-work-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        let watchdog = Thread { [self] in watch() }
        watchdog.name = "sketchwise-work-watchdog"
        watchdog.start()
    }

    /// Jobs waiting to start.
    public var waitingCount: Int { condition.withLock { state.waiting.count } }

    /// Runs `work` on one of the queue's threads and returns its result.
    /// - Parameter deadline: when the caller is answered ``DeadlineExceeded`` if `work` has not
    ///   returned by then (within ``watchInterval``); nil waits for it.
    /// - Throws: ``Busy`` at once when the queue is full; ``Closed`` after ``close()``;
    ///   ``DeadlineExceeded``; `CancellationError` when the calling task is cancelled; or what
    ///   `work` throws.
    public func run<T: Sendable>(deadline: ContinuousClock.Instant? = nil, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        let answer = Answer<T>()
        let job = Job(deadline: deadline, client: Self.client) { signal in
            guard !answer.isAnswered else { return }
            answer.give(Result { try StopSignal.$current.withValue(signal) { try work() } })
        } expire: { error in
            answer.give(.failure(error))
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(with: continuation)
                do {
                    try enqueue(job)
                } catch {
                    answer.give(.failure(error))
                }
            }
        } onCancel: {
            stop(job, with: CancellationError())
        }
    }

    /// Stops taking work; the threads end once the jobs taken are done.
    public func close() {
        condition.withLock {
            state.closed = true
            condition.broadcast()
        }
    }

    private func enqueue(_ job: Job) throws {
        try condition.withLock {
            guard !state.closed else { throw Closed() }
            guard !job.signal.isRaised else { return }
            let idleThreads = threadCount - state.runningJobs.count
            guard state.waiting.count < queueLimit + idleThreads else { throw Busy(waiting: state.waiting.count) }
            let clientWaiting = state.waiting.reduce(0) { $0 + ($1.client == job.client ? 1 : 0) }
            guard clientWaiting - idleThreads < queueLimitPerClient else { throw Busy(waiting: clientWaiting) }
            state.waiting.append(job)
            condition.signal()
        }
    }

    /// Answers a job's caller with `error` and asks the job to stop; a job still waiting leaves
    /// the queue.
    private func stop(_ job: Job, with error: any Error) {
        job.signal.raise()
        job.expire(error)
        condition.withLock {
            state.waiting.removeAll { $0 === job }
            state.forget(job.client)
        }
    }

    /// A worker thread: takes jobs in order until the queue is closed and empty.
    private func work() {
        ThreadPriority.lowerForJobs()
        while true {
            condition.lock()
            while state.waiting.isEmpty && !state.closed { condition.wait() }
            guard let job = state.takeNext() else {
                condition.unlock()
                return
            }
            let id = ObjectIdentifier(job)
            state.runningJobs[id] = job
            condition.unlock()
            if !job.signal.isRaised { job.run(job.signal) }
            condition.withLock {
                state.runningJobs[id] = nil
                state.forget(job.client)
            }
        }
    }

    /// The watchdog thread: every ``watchInterval``, answers every job past its deadline, waiting
    /// or running.
    private func watch() {
        while true {
            let (jobs, closed) = condition.withLock { (state.waiting + state.runningJobs.values, state.closed) }
            if closed && jobs.isEmpty { return }
            let now = ContinuousClock.now
            for job in jobs where !job.signal.isRaised {
                if let deadline = job.deadline, deadline <= now { stop(job, with: DeadlineExceeded()) }
            }
            Thread.sleep(forTimeInterval: Self.watchInterval)
        }
    }
}

/// One piece of work and how its caller is answered.
private final class Job: Sendable {
    let deadline: ContinuousClock.Instant?
    /// Whose work it is (``WorkQueue/client`` when it was queued).
    let client: String?
    let signal = StopSignal()
    /// Runs the work and answers the caller (unless answered already).
    let run: @Sendable (StopSignal) -> Void
    /// Answers the caller with an error (unless answered already).
    let expire: @Sendable (any Error) -> Void

    init(
        deadline: ContinuousClock.Instant?, client: String?, run: @escaping @Sendable (StopSignal) -> Void,
        expire: @escaping @Sendable (any Error) -> Void
    ) {
        self.deadline = deadline
        self.client = client
        self.run = run
        self.expire = expire
    }
}

/// A caller's answer, given once: by the work, the watchdog or cancellation, whichever is first,
/// even before the caller starts waiting.
private final class Answer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var delivered = false
    }
    private let state = Mutex(State())

    var isAnswered: Bool { state.withLock { $0.result != nil || $0.delivered } }

    func wait(with continuation: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = state.withLock { state in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            state.delivered = true
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    func give(_ result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.result == nil, !state.delivered else { return nil }
            state.result = result
            guard let continuation = state.continuation else { return nil }
            state.delivered = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}
