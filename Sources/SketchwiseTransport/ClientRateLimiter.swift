import Foundation

/// A rate per client: a token bucket of `perMinute` tokens per key, refilled at `perMinute` a
/// minute (so a burst of `perMinute`, then one every `60 / perMinute` seconds).
///
/// Memory is bounded: at most `maximumClients` buckets are kept. A bucket that has refilled is
/// the same as none and is dropped when room is needed; when every kept bucket is still in use,
/// new clients share one overflow bucket, so that an attacker with many addresses gets no more
/// than one more client's rate. IPv6 clients are counted by their /64 network (one host usually
/// holds a whole /64).
package final class ClientRateLimiter: @unchecked Sendable {
    let perMinute: Int
    let maximumClients: Int
    private let lock = NSLock()
    private var buckets: [String: TokenBucket] = [:]
    private var overflow: TokenBucket
    /// When the buckets were last swept for refilled ones (at most once a second).
    private var lastSweep: ContinuousClock.Instant

    package init(perMinute: Int, maximumClients: Int, now: ContinuousClock.Instant = .now) {
        self.perMinute = perMinute
        self.maximumClients = max(1, maximumClients)
        overflow = Self.bucket(perMinute: perMinute, now: now)
        lastSweep = now
    }

    /// Takes a token for `client`: nil when there was one, else how long until there is.
    package func take(_ client: String, now: ContinuousClock.Instant = .now) -> Duration? {
        guard perMinute > 0 else { return nil }
        let key = Self.key(client)
        return lock.withLock {
            if buckets[key] == nil, buckets.count >= maximumClients { sweep(now) }
            if var bucket = buckets[key] ?? (buckets.count < maximumClients ? Self.bucket(perMinute: perMinute, now: now) : nil) {
                let wait = bucket.take(now: now)
                buckets[key] = bucket
                return wait
            }
            return overflow.take(now: now)
        }
    }

    /// Clients with a bucket now (for tests).
    var clientCount: Int { lock.withLock { buckets.count } }

    /// A full bucket of `perMinute`, refilled at `perMinute` a minute.
    private static func bucket(perMinute: Int, now: ContinuousClock.Instant) -> TokenBucket {
        TokenBucket(capacity: Double(perMinute), perSecond: Double(perMinute) / 60, now: now)
    }

    /// Drops the buckets that have refilled (no different from a client never seen).
    private func sweep(_ now: ContinuousClock.Instant) {
        guard now - lastSweep >= .seconds(1) else { return }
        lastSweep = now
        buckets = buckets.filter { !$0.value.isFull(at: now) }
    }

    /// The key of a client address: an IPv4 address as it is, an IPv6 address by its /64
    /// (an IPv4-mapped one as its IPv4 address), anything else as it is.
    static func key(_ client: String) -> String {
        var address = in6_addr()
        guard client.contains(":"), inet_pton(AF_INET6, client, &address) == 1 else { return client }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return bytes[0..<8].map { String(format: "%02x", $0) }.joined() + "::/64"
    }

    /// `Retry-After`'s value for a wait: whole seconds, at least 1.
    package static func retryAfter(_ wait: Duration) -> String {
        String(max(1, Int(TokenBucket.seconds(wait).rounded(.up))))
    }
}
