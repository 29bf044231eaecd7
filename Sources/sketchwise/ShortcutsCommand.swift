import ArgumentParser
import Foundation
import Logging
import SketchwiseCore
import SketchwiseFormats
import SketchwisePersonal
import SketchwisePostgres
import SketchwiseRecognition
import SketchwiseShortcuts

struct ShortcutsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcuts",
        abstract: "Personal shortcuts: teach a drawing from a few examples, list, ask, remove.",
        discussion: """
            Shortcuts live in the personal database the server uses (DIR/personal.sqlite of \
            `serve --data-dir`, or the PostgreSQL database of `serve --database`), one set per user; \
            a user named with --user is made on first use. Every change is written in one transaction.
            """,
        subcommands: [ShortcutsAddCommand.self, ShortcutsListCommand.self, ShortcutsPredictCommand.self, ShortcutsRemoveCommand.self]
    )
}

/// The personal database and the user a shortcuts command works for.
struct PersonalOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOption

    @Option(help: "Whose shortcuts.")
    var user: String

    @OptionGroup var modelOptions: ModelOptions

    /// Runs `body` with the shortcuts service over the folder's shortcut embedding and the user's
    /// id (the user is made when `create` is set and new).
    func withShortcuts<T>(createUser create: Bool, _ body: (PersonalShortcuts, Int64) async throws -> T) async throws -> T {
        let embedder = try modelOptions.load().shortcutEmbedding
        return try await database.withStore { store in
            let id: Int64
            if let found = try await store.user(named: user) {
                id = found.id
            } else {
                guard create else { throw ValidationError("no user \(user) in \(try database.location().description)") }
                id = try await store.createUser(name: user).user.id
            }
            return try await body(try PersonalShortcuts(store: store, embedder: embedder), id)
        }
    }
}

struct ShortcutsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Teach a shortcut from example drawings (every drawing of every EXAMPLE file).",
        discussion: "A new shortcut needs at least 3 examples; adding a label again replaces its examples."
    )

    @OptionGroup var personal: PersonalOptions

    @Option(help: "The shortcut's label: an emoji, a picture id or a word.")
    var label: String

    @Argument(help: "Drawing files (any supported format).", completion: .file())
    var examples: [String]

    @Flag(help: "Print the update task's events as JSON lines: began, exampleEmbedded, completed, failed, cancelled.")
    var events = false

    func run() async throws {
        var sketches: [StrokeSketch] = []
        for path in examples {
            _ = try forEachDrawing(in: try DrawingSource(path: path), policy: BadInputPolicy(skipBad: false) { _ in }, progress: { _ in }) {
                drawing in
                guard case let .strokes(record) = drawing.content else {
                    throw ValidationError("\(drawing.origin): a bitmap has no strokes; shortcuts are taught from stroke drawings")
                }
                sketches.append(record.drawing)
            }
        }
        let printsEvents = events
        let version = try await personal.withShortcuts(createUser: true) { shortcuts, user in
            try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .teach(label: label, examples: sketches))) { event in
                if printsEvents { printEvent(event) }
                if case let .exampleEmbedded(done, total) = event { StandardError.progress("embedded \(done)/\(total) examples") }
            }
        }
        StandardError.progress("")
        print("taught \(label) to \(personal.user) from \(sketches.count) examples (version \(version))")
    }
}

struct ShortcutsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's shortcuts.")

    @OptionGroup var personal: PersonalOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        // The labels and their counts only (not the drawings), old labels shown repaired.
        let (version, labels) = try await personal.withShortcuts(createUser: false) { shortcuts, user in
            (
                try await shortcuts.store.modelVersion(user: user),
                try await shortcuts.labels(user: user).map { ShortcutItem(label: $0.label, examples: $0.examples) }
            )
        }
        if json {
            try printJSON(ShortcutList(user: personal.user, version: version, shortcuts: labels))
        } else {
            for item in labels { print("\(item.label)\t\(item.examples) examples") }
        }
    }

    struct ShortcutItem: Encodable { let label: String; let examples: Int }
    struct ShortcutList: Encodable { let user: String; let version: Int64; let shortcuts: [ShortcutItem] }
}

struct ShortcutsPredictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict", abstract: "The user's shortcut for each drawing of IN, or unknown.")

    @OptionGroup var personal: PersonalOptions
    @OptionGroup var input: InputOptions

    @Flag(help: "Print one JSON line per drawing: {\"label\": … or null, \"distance\": …}.")
    var json = false

    func run() async throws {
        var drawings: [(origin: String, sketch: StrokeSketch)] = []
        _ = try forEachDrawing(in: try input.source(), policy: input.policy, progress: { _ in }) { drawing in
            if case let .strokes(record) = drawing.content { drawings.append(("\(drawing.origin)", record.drawing)) }
        }
        try await personal.withShortcuts(createUser: false) { shortcuts, user in
            for drawing in drawings {
                let prediction = try await shortcuts.predict(user: user, sketch: drawing.sketch)
                if json {
                    try printJSON(prediction)
                } else {
                    print("\(drawing.origin)\t\(prediction.label ?? "unknown")\t\(String(format: "%.3f", prediction.distance))")
                }
            }
        }
    }
}

struct ShortcutsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forget one of a user's shortcuts.")

    @OptionGroup var personal: PersonalOptions

    @Option(help: "The shortcut's label.")
    var label: String

    func run() async throws {
        let version = try await personal.withShortcuts(createUser: false) { shortcuts, user in
            try await shortcuts.apply(ShortcutUpdateTask(user: user, change: .remove(label: label)))
        }
        print("removed \(label) from \(personal.user) (version \(version))")
    }
}

/// Prints an update task's event as one JSON line, flushed at once (scripts watch for them).
func printEvent(_ event: ShortcutUpdateTask.Event) {
    let line: String
    switch event {
    case let .began(examples): line = #"{"event":"began","examples":\#(examples)}"#
    case let .exampleEmbedded(done, total): line = #"{"event":"exampleEmbedded","done":\#(done),"of":\#(total)}"#
    case let .completed(version): line = #"{"event":"completed","version":\#(version)}"#
    case let .failed(message): line = #"{"event":"failed","message":\#(JSONValue.string(message).jsonText)}"#
    case .cancelled: line = #"{"event":"cancelled"}"#
    }
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `--database`: the personal database of the server and of these commands.
struct DatabaseOption: ParsableArguments {
    @Option(
        name: .customLong("database"),
        help: ArgumentHelp(
            "The personal database: a SQLite file path or postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: $SKETCHWISE_DATABASE, else personal.sqlite in serve's --data-dir, out).",
            valueName: "path-or-url"))
    var value: String?

    /// Where the database is, given `fallback` when neither the option nor the environment says.
    /// - Throws: ``PersonalError`` for a malformed URL (the command stops with exit code 1, as
    ///   for a database that cannot be reached).
    func location(fallback: String = SQLitePersonalStore.defaultPath) throws -> PersonalDatabase {
        try PersonalDatabase.resolve(value, fallback: fallback)
    }

    /// Opens the store, runs `body`, closes it.
    func withStore<T>(fallback: String = SQLitePersonalStore.defaultPath, _ body: (any PersonalStore) async throws -> T) async throws -> T {
        try await location(fallback: fallback).withStore(logger: Logger(label: "sketchwise"), body)
    }
}
