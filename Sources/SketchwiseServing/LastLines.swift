import Foundation

/// What a child wrote to its standard error, for the error that reports its failure: the last
/// lines, and the head of a crash report (the Swift runtime's backtrace of a crashed child
/// starts with a line saying it crashed; its last lines only list the libraries loaded).
final class LastLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var crash: [String] = []
    /// Lines kept from the end, and from the start of a crash report.
    static let kept = 5, crashKept = 12

    func add(_ line: String) {
        lock.withLock {
            if crash.isEmpty ? line.contains("crashed") : crash.count < Self.crashKept { crash.append(line) }
            lines.append(line)
            if lines.count > Self.kept { lines.removeFirst() }
        }
    }

    var text: String { lock.withLock { lines.joined(separator: " | ") } }

    /// The first lines of the crash report, or "" when the child reported no crash.
    var crashReport: String { lock.withLock { crash.joined(separator: " | ") } }
}
