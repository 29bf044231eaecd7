import Foundation

/// A value shared between threads, behind a lock.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Stores `new` and returns the value it replaces.
    package func exchange(_ new: Value) -> Value {
        lock.withLock {
            defer { value = new }
            return value
        }
    }
}
