import Logging

/// A connection's logger that reports a connection closed before its first request (Hummingbird
/// logs it as an error, "Error handling upgrade result", with the channel's state error) at
/// debug level: the guard closes such connections on purpose, by the thousand under a slow-loris
/// attack, and one error line each would flood the log.
struct ConnectionLogHandler: LogHandler {
    var base: any LogHandler

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if event.level == .error, event.message.description == "Error handling upgrade result",
            case let .string(error)? = event.metadata?["error.type"], error.hasPrefix("Inappropriate operation") || error.contains("closed")
        {
            guard base.logLevel <= .debug else { return }
            event.level = .debug
        }
        base.log(event: event)
    }
}
