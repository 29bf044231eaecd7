import Foundation
import SketchwiseWork
import Synchronization
import Testing

/// The queue's fair share between clients (``WorkQueue/client``): a client looping work cannot
/// make another wait behind all of its jobs, nor fill the queue for everyone.
@Suite struct WorkQueueFairnessTests {
    /// The order in which jobs started, by name.
    final class StartOrder: Sendable {
        private let names = Mutex<[String]>([])
        var started: [String] { names.withLock { $0 } }
        func record(_ name: String) { names.withLock { $0.append(name) } }
    }

    /// A gate the first job waits at, so that the others queue up behind it.
    final class Gate: Sendable {
        private let open = Atomic<Bool>(false)
        func pass() { while !open.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.001) } }
        func release() { open.store(true, ordering: .relaxed) }
    }

    /// Starts the flooder's first job, which holds `queue`'s one thread until `gate` opens, and
    /// returns once it runs: the jobs added next wait.
    func occupyTheThread(
        of queue: WorkQueue, in group: inout ThrowingTaskGroup<Void, any Error>, until gate: Gate, recordingIn order: StartOrder
    ) async throws {
        group.addTask {
            try await WorkQueue.$client.withValue("flooder") {
                try await queue.run {
                    order.record("flooder-0"); gate.pass()
                }
            }
        }
        while order.started.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
    }

    @Test func anotherClientsJobRunsBeforeTheRestOfAFloodingClients() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 64)
        defer { queue.close() }
        let order = StartOrder()
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            try await occupyTheThread(of: queue, in: &group, until: gate, recordingIn: order)
            for index in 1...8 {
                group.addTask {
                    try await WorkQueue.$client.withValue("flooder") { try await queue.run { order.record("flooder-\(index)") } }
                }
            }
            while queue.waitingCount < 8 { try await Task.sleep(for: .milliseconds(2)) }
            group.addTask { try await WorkQueue.$client.withValue("someone") { try await queue.run { order.record("someone") } } }
            while queue.waitingCount < 9 { try await Task.sleep(for: .milliseconds(2)) }
            gate.release()
            try await group.waitForAll()
        }
        #expect(order.started.count == 10)
        #expect(order.started.prefix(2) == ["flooder-0", "someone"], "the other client's job runs next: \(order.started)")
    }

    @Test func oneClientCannotFillTheQueueForEveryone() async throws {
        let queue = WorkQueue(threads: 1, queueLimit: 16, queueLimitPerClient: 2)
        defer { queue.close() }
        let gate = Gate()
        let order = StartOrder()
        try await withThrowingTaskGroup(of: Void.self) { group in
            try await occupyTheThread(of: queue, in: &group, until: gate, recordingIn: order)
            for _ in 1...2 {
                group.addTask { try await WorkQueue.$client.withValue("flooder") { try await queue.run {} } }
            }
            while queue.waitingCount < 2 { try await Task.sleep(for: .milliseconds(2)) }
            await #expect(throws: WorkQueue.Busy.self, "a third waiting job of one client is refused") {
                try await WorkQueue.$client.withValue("flooder") { try await queue.run {} }
            }
            group.addTask { try await WorkQueue.$client.withValue("someone") { try await queue.run {} } }
            while queue.waitingCount < 3 { try await Task.sleep(for: .milliseconds(2)) }
            gate.release()
            try await group.waitForAll()
        }
    }
}
