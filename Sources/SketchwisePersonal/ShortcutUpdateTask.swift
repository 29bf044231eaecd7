import Foundation
import SketchwiseCore
import SketchwiseWork

/// One change to a person's shortcuts, after Core ML's `MLUpdateTask`: it embeds the new
/// examples, builds the new personal model and writes it in one transaction, reporting
/// progress as it goes. ``PersonalShortcuts/apply(_:deadline:events:)`` runs it (the embedding on
/// the work queue); ``cancel()`` stops it before anything is written.
public final class ShortcutUpdateTask: Sendable {
    /// What a task reports, in this order: `began`, one `exampleEmbedded` per new example (the
    /// k-NN's "epochs"), then `completed`, `failed` or `cancelled`.
    public enum Event: Sendable, Equatable {
        case began(examples: Int)
        case exampleEmbedded(Int, of: Int)
        /// The new personal model was written; its version.
        case completed(version: Int64)
        case failed(String)
        case cancelled
    }

    /// What changes.
    public enum Change: Sendable, Equatable {
        /// Teach `label` from these drawings, replacing any examples it had.
        case teach(label: String, examples: [StrokeSketch])
        /// Forget `label`.
        case remove(label: String)
        /// The shortcut `label` fired on `drawing` and the person undid it at once: keep the drawing
        /// as a misfire (`NearestNeighborClassifier.misfireLabel`), so that drawings like it stay
        /// unknown; past ``ShortcutLimits/maximumMisfires`` the oldest is forgotten.
        case misfire(label: String, drawing: StrokeSketch)
    }

    public let user: Int64
    public let change: Change
    let stop = StopSignal()

    public init(user: Int64, change: Change) {
        self.user = user
        self.change = change
    }

    /// Asks the task to stop; one that has not yet written its model writes nothing.
    public func cancel() { stop.raise() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { stop.isRaised }
}
