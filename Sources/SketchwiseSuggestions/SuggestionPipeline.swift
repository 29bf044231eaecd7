import SketchwiseCore
import SketchwiseLibrary

/// One answer of a ``SuggestionPipeline``: the result for the sketch submitted as `query`.
public struct PipelineUpdate: Sendable {
    /// The number the sketch was submitted with.
    public var query: UInt64
    public var outcome: Result<SuggestionResult, any Error>
}

/// The query pipeline of one canvas (a browser tab, a WebSocket connection): at most one query
/// in flight, and the latest sketch wins.
///
/// Each ``submit(_:query:labels:perLabel:style:)`` cancels the query before it, so the service stops
/// at its next stage boundary. Answers come out of ``updates`` in submission order, and an
/// answer is delivered only while its sketch is still the latest one submitted: once a newer
/// sketch has been submitted, no answer for an older one ever arrives.
public actor SuggestionPipeline {
    /// The service each query is answered with, asked at submission (a server switches
    /// models by answering a new one; a query in flight finishes on the one it started with).
    private let currentService: @Sendable () -> SuggestionService
    /// The service the next query is answered with.
    public nonisolated var service: SuggestionService { currentService() }
    /// How long each query may take (nil: no limit); past it the answer is ``SketchwiseWork/DeadlineExceeded``.
    public let timeout: Duration?
    /// The answers, in the order their sketches were submitted; finishes after ``finish()``.
    public nonisolated let updates: AsyncStream<PipelineUpdate>
    private let continuation: AsyncStream<PipelineUpdate>.Continuation
    private var latest: UInt64?
    private var running: Task<Void, Never>?

    public init(service: SuggestionService, timeout: Duration? = nil) {
        self.init(currentService: { service }, timeout: timeout)
    }

    /// A pipeline that answers each query with the service `currentService` gives at that moment.
    public init(currentService: @escaping @Sendable () -> SuggestionService, timeout: Duration? = nil) {
        self.currentService = currentService
        self.timeout = timeout
        (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
    }

    /// Starts a query for `sketch`, cancelling the one in flight. `query` numbers the sketch
    /// (a client's message number); a number not above the latest one is ignored, so a late
    /// duplicate cannot replace a newer sketch. `style` is the pictures' (nil: the default).
    /// - Returns: whether the sketch was taken.
    @discardableResult
    public func submit(
        _ sketch: StrokeSketch, query: UInt64, labels: Int = SuggestionLimits.defaultLabels,
        perLabel: Int = SuggestionLimits.defaultPerLabel, style: PictureStyle? = nil
    ) -> Bool {
        if let latest, query <= latest { return false }
        latest = query
        running?.cancel()
        let service = service
        let deadline = timeout.map { ContinuousClock.now + $0 }
        running = Task {
            let outcome: Result<SuggestionResult, any Error>
            do {
                outcome = .success(try await service.suggest(sketch, labels: labels, perLabel: perLabel, style: style, deadline: deadline))
            } catch is CancellationError {
                return
            } catch {
                outcome = .failure(error)
            }
            self.deliver(PipelineUpdate(query: query, outcome: outcome))
        }
        return true
    }

    /// Ends the stream after cancelling the query in flight.
    public func finish() {
        running?.cancel()
        running = nil
        continuation.finish()
    }

    /// Passes an answer on if its sketch is still the latest.
    private func deliver(_ update: PipelineUpdate) {
        guard update.query == latest else { return }
        continuation.yield(update)
    }
}
