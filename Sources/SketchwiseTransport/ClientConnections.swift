import Foundation

/// How many connections each client (remote IP address) has open; shared by all connections.
package final class ClientConnections: @unchecked Sendable {
    package enum Admission: Equatable {
        case accepted
        /// Refused; `firstTime` is true when the client has just reached its limit (worth a log line).
        case refused(firstTime: Bool)
    }

    private let lock = NSLock()
    private var open: [String: Int] = [:]
    private var atLimit: Set<String> = []

    package init() {}

    /// Counts a new connection of `client`, unless it has `limit` open already.
    package func open(_ client: String, limit: Int) -> Admission {
        lock.withLock {
            let count = open[client, default: 0]
            guard count < limit else {
                return .refused(firstTime: atLimit.insert(client).inserted)
            }
            open[client] = count + 1
            return .accepted
        }
    }

    /// Counts a connection of `client` as closed.
    package func close(_ client: String) {
        lock.withLock {
            let count = open[client, default: 1] - 1
            open[client] = count > 0 ? count : nil
            atLimit.remove(client)
        }
    }
}
