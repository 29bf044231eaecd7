import ArgumentParser
import Foundation
import SketchwiseConversion
import SketchwiseCore
import SketchwiseFormats
import SketchwisePersonal
import SketchwiseRecognition
import SketchwiseShortcuts

struct ShortcutsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortcuts",
        abstract: "Personal shortcuts: teach a drawing from a few examples, list, ask, remove.",
        discussion: """
        Shortcuts live in the personal database the server uses (DIR/personal.sqlite of \
        `serve --data-dir`), one set per user; a user named with --user is made on first use. \
        Every change is written in one transaction.
        """,
        subcommands: [ShortcutsAddCommand.self, ShortcutsListCommand.self, ShortcutsPredictCommand.self, ShortcutsRemoveCommand.self]
    )
}

/// The personal database and the user a shortcuts command works for.
struct PersonalOptions: ParsableArguments {
    @Option(help: "The personal database (the server's DIR/personal.sqlite).")
    var database = SQLitePersonalStore.defaultPath

    @Option(help: "Whose shortcuts.")
    var user: String

    @OptionGroup var modelOptions: ModelOptions

    func store() throws -> SQLitePersonalStore { try SQLitePersonalStore(path: database) }

    /// The shortcuts service over the folder's shortcut embedding.
    func shortcuts() throws -> PersonalShortcuts {
        PersonalShortcuts(store: try store(), embedder: try modelOptions.load().shortcutEmbedding)
    }

    /// The user's id; made when `create` is set and the user is new.
    func userID(in store: any PersonalStore, create: Bool) throws -> Int64 {
        if let found = try store.user(named: user) { return found.id }
        guard create else { throw ValidationError("no user \(user) in \(database)") }
        return try store.createUser(name: user).user.id
    }
}

struct ShortcutsAddCommand: ParsableCommand {
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

    func run() throws {
        var sketches: [StrokeSketch] = []
        for path in examples {
            _ = try forEachDrawing(in: try DrawingSource(path: path), policy: BadInputPolicy(skipBad: false) { _ in }, progress: { _ in }) { drawing in
                guard case let .strokes(record) = drawing.content else {
                    throw ValidationError("\(drawing.origin): a bitmap has no strokes; shortcuts are taught from stroke drawings")
                }
                sketches.append(record.drawing)
            }
        }
        let shortcuts = try personal.shortcuts()
        let task = ShortcutUpdateTask(user: try personal.userID(in: shortcuts.store, create: true), change: .teach(label: label, examples: sketches))
        let version = try shortcuts.apply(task) { event in
            if events { printEvent(event) }
            if case let .exampleEmbedded(done, total) = event { StandardError.progress("embedded \(done)/\(total) examples") }
        }
        StandardError.progress("")
        print("taught \(label) to \(personal.user) from \(sketches.count) examples (version \(version))")
    }
}

struct ShortcutsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's shortcuts.")

    @OptionGroup var personal: PersonalOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let store = try personal.store()
        let model = try store.model(user: try personal.userID(in: store, create: false))
        let labels = model.labels.map { label in ShortcutItem(label: label, examples: model.examples.count { $0.label == label }) }
        if json {
            try printJSON(ShortcutList(user: personal.user, version: model.version, shortcuts: labels))
        } else {
            for item in labels { print("\(item.label)\t\(item.examples) examples") }
        }
    }

    struct ShortcutItem: Encodable { let label: String; let examples: Int }
    struct ShortcutList: Encodable { let user: String; let version: Int64; let shortcuts: [ShortcutItem] }
}

struct ShortcutsPredictCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict", abstract: "The user's shortcut for each drawing of IN, or unknown.")

    @OptionGroup var personal: PersonalOptions
    @OptionGroup var input: InputOptions

    @Flag(help: "Print one JSON line per drawing: {\"label\": … or null, \"distance\": …}.")
    var json = false

    func run() throws {
        let shortcuts = try personal.shortcuts()
        let user = try personal.userID(in: shortcuts.store, create: false)
        _ = try forEachDrawing(in: try input.source(), policy: input.policy, progress: { _ in }) { drawing in
            guard case let .strokes(record) = drawing.content else { return }
            let prediction = try shortcuts.predict(user: user, sketch: record.drawing)
            if json {
                try printJSON(prediction)
            } else {
                print("\(drawing.origin)\t\(prediction.label ?? "unknown")\t\(String(format: "%.3f", prediction.distance))")
            }
        }
    }
}

struct ShortcutsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forget one of a user's shortcuts.")

    @OptionGroup var personal: PersonalOptions

    @Option(help: "The shortcut's label.")
    var label: String

    func run() throws {
        let shortcuts = try personal.shortcuts()
        let task = ShortcutUpdateTask(user: try personal.userID(in: shortcuts.store, create: false), change: .remove(label: label))
        let version = try shortcuts.apply(task)
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

