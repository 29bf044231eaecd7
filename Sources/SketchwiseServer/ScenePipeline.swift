import SketchwiseCore
import SketchwiseScenes

/// The scene detection of one live connection, off its read loop: the states of the canvas are
/// detected one at a time and in order by one stream detector (which tracks the objects from
/// state to state), so that the connection's next message is read, and answered, meanwhile. As
/// for the guesses (`SuggestionPipeline`), the latest state wins: a state still waiting is
/// replaced by a newer one, and a state's objects are delivered only while no newer state has
/// been submitted.
actor ScenePipeline {
    /// The objects of one state of the canvas, or why they could not be found.
    struct Update: Sendable {
        var seq: UInt64
        var outcome: Result<[DetectedObject], any Error>
    }

    /// A new stream detector over the models serving now.
    private let makeDetector: @Sendable () throws -> SceneDetector
    /// Runs one detection (on the server's work queue, within its deadline).
    private let detect: @Sendable (SceneDetector, StrokeSketch) async throws -> [DetectedObject]
    /// The updates, in the order their states were submitted; finishes after ``finish()``.
    nonisolated let updates: AsyncStream<Update>
    private let continuation: AsyncStream<Update>.Continuation
    private var detector: SceneDetector?
    /// The detector forgets its tracks before its next state (it may be detecting one now).
    private var forgetsTracks = false
    private var latest: UInt64?
    private var waiting: (seq: UInt64, sketch: StrokeSketch)?
    private var running = false

    init(
        makeDetector: @escaping @Sendable () throws -> SceneDetector,
        detect: @escaping @Sendable (SceneDetector, StrokeSketch) async throws -> [DetectedObject]
    ) {
        (self.makeDetector, self.detect) = (makeDetector, detect)
        (updates, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
    }

    /// Detects the objects of the canvas state `seq`, after the state being detected now; a
    /// state that was still waiting is dropped.
    func submit(_ sketch: StrokeSketch, seq: UInt64) {
        latest = seq
        waiting = (seq, sketch)
        if !running { startNext() }
    }

    /// Scene detection was turned off: nothing waiting or under way is delivered, and the
    /// detector's tracks end before the next state. Objects that come back unchanged when it is
    /// turned on again keep their IDs (``SceneDetector/reset()``).
    func reset() {
        latest = nil
        waiting = nil
        forgetsTracks = true
    }

    /// Ends the updates; a detection under way finishes unseen.
    func finish() {
        reset()
        detector = nil
        continuation.finish()
    }

    private func startNext() {
        guard let next = waiting else {
            running = false
            return
        }
        waiting = nil
        running = true
        let made: SceneDetector
        do {
            made = try detector ?? makeDetector()
        } catch {
            finished(Update(seq: next.seq, outcome: .failure(error)))
            return
        }
        detector = made
        if forgetsTracks {
            made.reset()
            forgetsTracks = false
        }
        Task {
            let outcome: Result<[DetectedObject], any Error>
            do {
                outcome = .success(try await self.detect(made, next.sketch))
            } catch {
                outcome = .failure(error)
            }
            self.finished(Update(seq: next.seq, outcome: outcome))
        }
    }

    private func finished(_ update: Update) {
        if update.seq == latest { continuation.yield(update) }
        startNext()
    }
}
