import Foundation

/// Processes jobs on worker threads, each with its own ``IndexWorker``, while the calling
/// thread takes the outcomes in job order, a batch at a time, to commit them: the workers never
/// wait for a commit or for each other at batch ends.
///
/// Every shared field is read and written under `condition`'s lock (hence `@unchecked Sendable`).
final class IndexPipeline: @unchecked Sendable {
    private let jobs: [IndexJob]
    private let workers: [IndexWorker]
    private let condition = NSCondition()
    private var next = 0
    private var outcomes: [IndexOutcome?]
    private var failure: LibraryError?
    private var stopping = false
    private var running = 0

    /// Starts one thread per worker.
    init(jobs: [IndexJob], workers: [IndexWorker]) {
        self.jobs = jobs
        self.workers = workers
        outcomes = Array(repeating: nil, count: jobs.count)
        running = workers.count
        for index in workers.indices {
            Thread.detachNewThread { [self] in work(on: index) }
        }
    }

    /// The outcomes of `range`, waiting for them; throws the first failure of any worker.
    func outcomes(_ range: Range<Int>) throws(LibraryError) -> [IndexOutcome] {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, outcomes[range].contains(where: { $0 == nil }) { condition.wait() }
        if let failure { throw failure }
        let ready = outcomes[range].compactMap { $0 }
        for index in range { outcomes[index] = nil }
        return ready
    }

    /// Lets the workers finish the job in hand, then waits for their threads to end.
    func stop() {
        condition.lock()
        stopping = true
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work(on thread: Int) {
        while let index = claim() {
            let outcome: IndexOutcome
            do throws(LibraryError) {
                outcome = try workers[thread].process(jobs[index])
            } catch {
                condition.lock()
                failure = failure ?? error
                condition.broadcast()
                condition.unlock()
                break
            }
            condition.lock()
            outcomes[index] = outcome
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, failure == nil, next < jobs.count else { return nil }
        next += 1
        return next - 1
    }
}
