import Logging
import SketchwiseModels
import SketchwisePersonal

/// Stores an A/B test's counts off the request path, one after another in the order they were
/// given: a suggestion counted as served before it is answered is stored before the acceptance
/// that follows it, so the store's rule (a person's acceptances count only up to the
/// suggestions answered to them) sees them in order. A failure is only logged; past 10 000
/// waiting counts new ones are dropped (and logged).
package final class ExperimentRecorder: Sendable {
    private struct Entry: Sendable {
        let arm: ModelExperiment.Arm
        let user: Int64
        let served: Int
        let accepted: Int
    }

    private let continuation: AsyncStream<Entry>.Continuation

    package init(store: any PersonalStore, experiment: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self, bufferingPolicy: .bufferingOldest(10_000))
        self.continuation = continuation
        Task.detached(priority: .utility) {
            for await entry in stream {
                do {
                    try await store.count(
                        experiment: experiment, arm: entry.arm.rawValue, user: entry.user, served: entry.served, accepted: entry.accepted)
                } catch {
                    Logger(label: "sketchwise").warning("A/B counts of \(experiment) not stored: \(error)")
                }
            }
        }
    }

    deinit { continuation.finish() }

    /// Adds to the counts of `user`'s arm.
    package func record(_ arm: ModelExperiment.Arm, user: Int64, served: Int, accepted: Int) {
        if case .dropped = continuation.yield(Entry(arm: arm, user: user, served: served, accepted: accepted)) {
            Logger(label: "sketchwise").warning("A/B counts dropped: 10000 are waiting to be stored")
        }
    }
}
