import HummingbirdCore
import Logging

/// The global connection limit (Hummingbird stops accepting past it), with a log line when it is
/// reached and when connections are accepted again.
package struct LoggedConnectionLimit: AvailableConnectionsDelegate {
    package let limit: Int
    package let logger: Logger
    private var count = 0

    package init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    package mutating func connectionOpened() {
        count += 1
        if count == limit {
            logger.warning("connection limit reached: new connections wait until one closes", metadata: ["limit": "\(limit)"])
        }
    }

    package mutating func connectionClosed() {
        count -= 1
        if count == limit - 1 { logger.info("accepting connections again", metadata: ["open": "\(count)"]) }
    }

    package func isAcceptingNewConnections() -> Bool { count < limit }
}
