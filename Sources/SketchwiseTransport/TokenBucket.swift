/// A rate: up to `capacity` at once, then `perSecond` a second. Not thread-safe; its owner locks.
package struct TokenBucket: Sendable {
    package let capacity: Double
    package let perSecond: Double
    private(set) var tokens: Double
    private var updated: ContinuousClock.Instant

    /// A full bucket.
    package init(capacity: Double, perSecond: Double, now: ContinuousClock.Instant = .now) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = capacity
        updated = now
    }

    /// Takes a token: nil when there was one, else how long until there is.
    package mutating func take(now: ContinuousClock.Instant = .now) -> Duration? {
        refill(now)
        guard tokens < 1 else {
            tokens -= 1
            return nil
        }
        return .milliseconds(Int64(((1 - tokens) / perSecond * 1000).rounded(.up)))
    }

    /// Whether the bucket has refilled by `now` (no different from a new one).
    package func isFull(at now: ContinuousClock.Instant) -> Bool {
        tokens + Self.seconds(now - updated) * perSecond >= capacity
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        tokens = min(capacity, tokens + Self.seconds(now - updated) * perSecond)
        updated = now
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
