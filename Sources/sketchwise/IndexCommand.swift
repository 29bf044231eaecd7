import ArgumentParser

struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "The suggestion library's index of clip-art and emoji.",
        subcommands: [IndexBuildCommand.self, IndexCoverageCommand.self]
    )
}
