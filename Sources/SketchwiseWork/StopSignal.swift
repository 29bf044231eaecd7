import Synchronization

/// Asks long synchronous work to stop: a ``WorkQueue`` raises it when a job's deadline passes or
/// its caller is cancelled, and the work checks it between its steps (strokes, model layers,
/// views) through ``StopSignal/current``. Once raised, the caller has been answered already, so
/// work may stop anywhere and return or throw anything: its result is thrown away.
public final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    /// Asks the work to stop.
    public func raise() { raised.store(true, ordering: .relaxed) }

    /// Whether ``raise()`` was called.
    public var isRaised: Bool { raised.load(ordering: .relaxed) }

    /// The signal of the work running on this thread (bound by ``WorkQueue``); nil outside a job.
    @TaskLocal public static var current: StopSignal?

    /// Whether the work running on this thread has been asked to stop.
    public static var shouldStop: Bool { current?.isRaised ?? false }

    /// Throws ``WorkStopped`` when the work running on this thread has been asked to stop.
    public static func check() throws(WorkStopped) {
        if shouldStop { throw WorkStopped() }
    }
}

/// Work stopped early because its ``StopSignal`` was raised.
public struct WorkStopped: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "the work was stopped" }
}

/// Work went on past its deadline.
public struct DeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "the deadline passed" }
}
