/// Why a request cannot be answered yet: the server is starting (loading the models, building or
/// checking the library index). The server answers it `503 starting` with `Retry-After`.
package struct ServingNotReady: Error, Sendable, CustomStringConvertible {
    /// What start-up is doing.
    package let step: String

    package init(step: String) {
        self.step = step
    }

    package var description: String { "the server is starting (\(step))" }
}
