import Foundation

/// The last lines a child wrote to its standard error, for the error that reports its failure.
final class LastLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func add(_ line: String) {
        lock.withLock {
            lines.append(line)
            if lines.count > 5 { lines.removeFirst() }
        }
    }

    var text: String { lock.withLock { lines.joined(separator: " | ") } }
}
