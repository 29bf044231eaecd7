import ArgumentParser
import SketchwisePersonal
import SketchwiseServer

/// The rates and per-person quotas of the personal API (`serve`).
struct QuotaOptions: ParsableArguments {
    @Option(
        help:
            "Users POST /api/users makes per client (IP address; IPv6 by /64) per minute; more are answered 429 with Retry-After (0: no limit)."
    )
    var usersPerClientPerMinute = ServerLimits().usersPerClientPerMinute

    @Option(help: "Shortcuts per person.")
    var maxShortcuts = ServerLimits().shortcuts.maximumLabels

    @Option(help: "Examples per shortcut.")
    var maxExamplesPerShortcut = ServerLimits().shortcuts.maximumExamplesPerLabel

    @Option(help: "Examples per person, all shortcuts together.")
    var maxExamples = ServerLimits().shortcuts.maximumExamples

    @Option(help: "Bytes of examples per person (labels and drawings as stored).")
    var maxExampleBytes = ServerLimits().shortcuts.maximumExampleBytes

    @Option(help: "Corrections kept per person.")
    var maxCorrections = ServerLimits().corrections.maximumCount

    @Option(help: "Bytes of corrections kept per person (labels and drawings as stored).")
    var maxCorrectionBytes = ServerLimits().corrections.maximumBytes

    func validate() throws {
        guard (0...1_000_000).contains(usersPerClientPerMinute) else {
            throw ValidationError("--users-per-client-per-minute must be within 0…1000000")
        }
        for (name, value) in [
            ("--max-shortcuts", maxShortcuts), ("--max-examples-per-shortcut", maxExamplesPerShortcut), ("--max-examples", maxExamples),
            ("--max-example-bytes", maxExampleBytes), ("--max-corrections", maxCorrections), ("--max-correction-bytes", maxCorrectionBytes),
        ] where !(1...(1 << 40)).contains(value) {
            throw ValidationError("\(name) must be within 1…\(1 << 40)")
        }
    }

    /// `limits` with these options applied.
    func applied(to limits: ServerLimits) -> ServerLimits {
        var limits = limits
        limits.usersPerClientPerMinute = usersPerClientPerMinute
        limits.shortcuts.maximumLabels = maxShortcuts
        limits.shortcuts.maximumExamplesPerLabel = maxExamplesPerShortcut
        limits.shortcuts.maximumExamples = maxExamples
        limits.shortcuts.maximumExampleBytes = maxExampleBytes
        limits.corrections.maximumCount = maxCorrections
        limits.corrections.maximumBytes = maxCorrectionBytes
        return limits
    }
}
