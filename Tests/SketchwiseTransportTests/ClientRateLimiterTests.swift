import Foundation
import Testing

@testable import SketchwiseTransport

@Suite struct ClientRateLimiterTests {
    @Test func aClientGetsABurstThenOneTokenPerPeriod() throws {
        let start = ContinuousClock.now
        let limiter = ClientRateLimiter(perMinute: 30, maximumClients: 10, now: start)
        for _ in 0..<30 { #expect(limiter.take("10.0.0.1", now: start) == nil) }
        let wait = limiter.take("10.0.0.1", now: start)
        #expect(wait == .seconds(2), "30 a minute: one every 2 s")
        #expect(ClientRateLimiter.retryAfter(try #require(wait)) == "2")
        #expect(limiter.take("10.0.0.2", now: start) == nil, "another client has its own bucket")
        #expect(limiter.take("10.0.0.1", now: start + .seconds(2)) == nil)
        #expect(limiter.take("10.0.0.1", now: start + .seconds(2)) != nil)
    }

    @Test func aTokenBucketRefillsAtItsRateUpToItsCapacity() throws {
        let start = ContinuousClock.now
        var bucket = TokenBucket(capacity: 2, perSecond: 10, now: start)
        #expect(bucket.take(now: start) == nil && bucket.take(now: start) == nil)
        #expect(bucket.take(now: start) == .milliseconds(100))
        #expect(!bucket.isFull(at: start + .milliseconds(150)))
        #expect(bucket.isFull(at: start + .milliseconds(200)))
        #expect(bucket.take(now: start + .seconds(60)) == nil && bucket.take(now: start + .seconds(60)) == nil)
        #expect(bucket.take(now: start + .seconds(60)) != nil, "never more than its capacity")
    }

    @Test func memoryIsBoundedAndManyAddressesShareOneBucket() {
        let start = ContinuousClock.now
        let limiter = ClientRateLimiter(perMinute: 5, maximumClients: 100, now: start)
        var refused = 0
        for index in 0..<10_000 {
            let client = "10.\(index / 65536).\(index / 256 % 256).\(index % 256)"
            if limiter.take(client, now: start) != nil { refused += 1 }
        }
        #expect(limiter.clientCount == 100)
        #expect(refused == 10_000 - 100 - 5, "past 100 clients, the rest share one bucket of 5")
        // Once the kept buckets have refilled, they make room for new clients.
        #expect(limiter.take("192.168.0.1", now: start + .seconds(61)) == nil)
        #expect(limiter.clientCount == 1)
    }

    @Test func ipv6ClientsAreCountedByTheirNetwork() {
        #expect(ClientRateLimiter.key("2001:db8:1:2:aaaa::1") == ClientRateLimiter.key("2001:db8:1:2:bbbb::2"))
        #expect(ClientRateLimiter.key("2001:db8:1:2::1") != ClientRateLimiter.key("2001:db8:1:3::1"))
        #expect(ClientRateLimiter.key("::ffff:10.1.2.3") == "10.1.2.3")
        #expect(ClientRateLimiter.key("10.1.2.3") == "10.1.2.3")
        #expect(ClientRateLimiter.key("unknown") == "unknown")
        let limiter = ClientRateLimiter(perMinute: 2, maximumClients: 10)
        #expect(limiter.take("2001:db8::1") == nil && limiter.take("2001:db8::2") == nil)
        #expect(limiter.take("2001:db8::3") != nil)
    }

    @Test func zeroMeansNoLimit() {
        let limiter = ClientRateLimiter(perMinute: 0, maximumClients: 1)
        for _ in 0..<100 { #expect(limiter.take("10.0.0.1") == nil) }
    }
}
