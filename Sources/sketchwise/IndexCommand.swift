import ArgumentParser

struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "The suggestion library's index of clip-art, emoji, line art and doodles.",
        subcommands: [IndexBuildCommand.self, IndexCoverageCommand.self, IndexDoodlesCommand.self]
    )
}
