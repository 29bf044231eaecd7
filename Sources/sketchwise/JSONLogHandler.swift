import ArgumentParser
import Foundation
import Logging

/// Writes each log entry as one line of JSON to standard error, for log collectors:
/// `{"time", "level", "label", "message", "source", "metadata": {…}}` (`serve --log-format json`).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    /// Lines from concurrent tasks are written whole, one at a time.
    private static let output = NSLock()

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var entry: [String: Any] = [
            "time": Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)),
            "level": event.level.rawValue, "label": label, "message": "\(event.message)", "source": event.source,
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if !merged.isEmpty { entry["metadata"] = merged.mapValues(Self.plain) }
        guard var line = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        Self.output.withLock { FileHandle.standardError.write(line) }
    }

    /// A metadata value as JSON: strings, arrays and objects.
    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case let .string(text): text
        case let .stringConvertible(value): value.description
        case let .array(values): values.map(plain)
        case let .dictionary(values): values.mapValues(plain)
        }
    }
}

/// How `serve` writes its log.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// Lines for people (swift-log's default).
    case text
    /// One JSON object per line (``JSONLogHandler``).
    case json
}
