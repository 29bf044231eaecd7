import ArgumentParser
import Configuration
import Foundation

/// `serve`'s options from a settings file and from the environment.
///
/// Every option `--NAME` of the command can also be set as `SKETCHWISE_NAME` (upper case, dashes
/// as underscores: `--data-dir` is `SKETCHWISE_DATA_DIR`), in the environment or in the file of
/// `--config FILE` (or `$SKETCHWISE_CONFIG`), whose lines are `SKETCHWISE_NAME=VALUE` (the value
/// may be quoted), `#` for comments, the format of systemd's `EnvironmentFile=`. The command line wins over the
/// environment, which wins over the file. A flag is set by `true`, `yes`, `on` or `1`.
struct ServeSettings {
    /// The option that names the settings file.
    static let fileOption = "config"

    /// One option or flag of the command.
    struct Setting: Equatable {
        let name: String
        let isFlag: Bool

        /// Its environment variable.
        var variable: String { "SKETCHWISE_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// The long options and flags of `command` that can be settings (not `--help` nor `--config`).
    static func settings(of command: ParsableCommand.Type) -> [Setting] {
        struct Help: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            struct Argument: Decodable {
                struct Name: Decodable { let kind: String; let name: String }
                let kind: String
                let names: [Name]?
            }
            let command: Command
        }
        guard let help = try? JSONDecoder().decode(Help.self, from: Data(command._dumpHelp().utf8)) else { return [] }
        return (help.command.arguments ?? []).compactMap { argument in
            guard argument.kind == "option" || argument.kind == "flag",
                let long = argument.names?.first(where: { $0.kind == "long" })?.name,
                long != "help", long != fileOption
            else { return nil }
            return Setting(name: long, isFlag: argument.kind == "flag")
        }
    }

    /// `arguments` (the command's, after its name) with the settings of the file and the
    /// environment placed before them, so that the command line wins.
    /// - Throws: ``ValidationError`` for a missing or malformed file, a name in it that is not an
    ///   option of `command`, or a flag that is neither true nor false.
    static func arguments(
        _ arguments: [String], of command: ParsableCommand.Type,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> [String] {
        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment)]
        if let file = settingsFile(in: arguments) ?? environment["SKETCHWISE_CONFIG"] {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("the settings file \(file) does not exist or cannot be read")
            }
            providers.append(EnvironmentVariablesProvider(environmentVariables: try read(file, of: command)))
        }
        let reader = ConfigReader(providers: providers)
        var settled: [String] = []
        for setting in settings(of: command) {
            guard let value = reader.string(forKey: ConfigKey(["sketchwise", setting.name])) else { continue }
            guard setting.isFlag else {
                settled += ["--\(setting.name)", value]
                continue
            }
            switch value.lowercased() {
            case "true", "yes", "on", "1": settled.append("--\(setting.name)")
            case "false", "no", "off", "0", "": break
            default: throw ValidationError("\(setting.variable) must be true or false, not \(value)")
            }
        }
        return settled + arguments
    }

    /// The settings of the file `file`, read as systemd reads an `EnvironmentFile=`: lines of
    /// `SKETCHWISE_NAME=VALUE` (blanks around the name ignored, the value as ``unquoted(_:)``
    /// reads it), blank lines, and comments from `#` or `;`.
    /// - Throws: ``ValidationError`` for a line of another form, or a name that is no option of
    ///   `command` (a misspelt name would otherwise be ignored, and the server would start with
    ///   that option's default).
    private static func read(_ file: String, of command: ParsableCommand.Type) throws -> [String: String] {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ValidationError("the settings file \(file) cannot be read as UTF-8 text: \(error.localizedDescription)")
        }
        let known = Set(settings(of: command).map(\.variable))
        var values: [String: String] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";") else { continue }
            let place = "the settings file \(file), line \(index + 1)"
            guard let equals = line.firstIndex(of: "="), equals > line.startIndex else {
                throw ValidationError("\(place) is not SKETCHWISE_NAME=VALUE: \(line.prefix(80))")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard known.contains(name) else {
                throw ValidationError(
                    "\(place): \(name.prefix(80)) is not a setting of serve (each option --NAME of `sketchwise serve --help` is SKETCHWISE_NAME)"
                )
            }
            values[name] = unquoted(line[line.index(after: equals)...])
        }
        return values
    }

    /// A value as systemd reads one (its `env-file.c`): blanks before it and after an unquoted end
    /// dropped; `'…'` taken as written; in `"…"` a backslash before `"`, `\`, `` ` `` or `$` stands
    /// for that character and before any other is kept; outside quotes a backslash stands for the
    /// character after it. Quotes open only where a value (or a quoted part of it) begins.
    static func unquoted(_ text: Substring) -> String {
        enum Part { case between, plain, single, double }
        var result = "", part = Part.between, escaped = false, blanks = ""
        for character in text {
            if escaped {
                if part == .double, !"\"\\`$".contains(character) { result.append("\\") }
                result += blanks + String(character)
                blanks = ""
                escaped = false
                continue
            }
            switch part {
            case .between:
                if character == "'" {
                    part = .single
                } else if character == "\"" {
                    part = .double
                } else if character == "\\" {
                    (part, escaped) = (.plain, true)
                } else if !character.isWhitespace {
                    part = .plain
                    result.append(character)
                }
            case .plain:
                if character == "\\" {
                    escaped = true
                } else if character.isWhitespace {
                    blanks.append(character)
                } else {
                    result += blanks + String(character)
                    blanks = ""
                }
            case .single:
                if character == "'" { part = .between } else { result.append(character) }
            case .double:
                if character == "\"" { part = .between } else if character == "\\" { escaped = true } else { result.append(character) }
            }
        }
        return result
    }

    /// The value of `--config FILE` or `--config=FILE`.
    private static func settingsFile(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--\(fileOption)", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--\(fileOption)=") { return String(argument.dropFirst(fileOption.count + 3)) }
        }
        return nil
    }
}
