import ArgumentParser
import Foundation
import SketchwiseFormats
import SketchwisePersonal
import SketchwisePostgres

struct CorrectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corrections",
        abstract: "The sketches people labelled by picking a suggestion or a lower guess.",
        subcommands: [CorrectionsExportCommand.self]
    )
}

struct CorrectionsExportCommand: AsyncParsableCommand {
    enum Format: String, ExpressibleByArgument { case ndjson }

    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the kept corrections as Quick, Draw! records, ready for training/train.py.",
        discussion: """
        One ndjson line per correction, oldest first: word (the chosen label), countrycode "ZZ", \
        timestamp, recognized false, a key_id of our own ("sw" and 16 hexadecimal digits, stable \
        for a correction) and the drawing with its times when the app sent them.
        """
    )

    @OptionGroup var database: DatabaseOption

    @Option(help: "Only this user's corrections (default: everyone's).")
    var user: String?

    @Option(help: "The output format.")
    var format: Format = .ndjson

    func run() async throws {
        let user = user
        let writer = Writer()
        // One correction at a time from the store's cursor: memory stays flat however many there are.
        try await database.withStore { store in try await store.forEachCorrection(user: user, writer.write) }
        StandardError.print("exported \(writer.count) corrections")
    }

    /// Writes corrections to standard output as they come, counting them.
    final class Writer: @unchecked Sendable {
        private let lock = NSLock()
        private let formatter = ISO8601DateFormatter()
        private var written = 0

        func write(_ correction: Correction) {
            lock.withLock {
                let record = QuickDrawRecord(
                    word: correction.label, countryCode: "ZZ",
                    timestamp: formatter.string(from: Date(timeIntervalSince1970: correction.created)),
                    recognized: false, keyID: CorrectionsExportCommand.keyID(correction), drawing: correction.sketch)
                print(record.ndjsonLine)
                written += 1
            }
        }

        var count: Int { lock.withLock { written } }
    }

    /// A stable id: FNV-1a of the user, the time and the label.
    static func keyID(_ correction: Correction) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(correction.user)|\(correction.created)|\(correction.label)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "sw" + String(format: "%016llx", hash)
    }
}
