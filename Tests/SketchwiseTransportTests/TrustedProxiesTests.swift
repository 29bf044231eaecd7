import Testing

@testable import SketchwiseTransport

/// `--trusted-proxies`: which addresses are believed, and which client a forwarded request is.
@Suite struct TrustedProxiesTests {
    @Test func addressesAndRangesAreParsed() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8,::1, fd00::/8")
        #expect(proxies.contains("127.0.0.1") && !proxies.contains("127.0.0.2"))
        #expect(proxies.contains("10.200.3.4") && !proxies.contains("11.0.0.1"))
        #expect(proxies.contains("::1") && proxies.contains("fd12::7") && !proxies.contains("fe80::1"))
        #expect(proxies.contains("::ffff:127.0.0.1"), "an IPv4-mapped IPv6 address is its IPv4 address")
        #expect(!TrustedProxies.none.contains("127.0.0.1"), "none is trusted by default")
    }

    @Test func entriesThatAreNotAddressesAreRefused() {
        for bad in ["localhost", "10.0.0.0/33", "1.2.3", "::1/129", "10.0.0.0/x", "1.2.3.4/-1"] {
            #expect(throws: TrustedProxies.ParseError.self, "\(bad)") { try TrustedProxies(parsing: bad) }
        }
    }

    @Test func theClientIsTheRightMostUntrustedHop() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1,10.0.0.0/8")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        #expect(
            proxies.client(peer: "127.0.0.1", forwardedFor: ["6.6.6.6, 203.0.113.9, 10.1.1.1"]) == "203.0.113.9",
            "a made-up address left of the real client is ignored")
        #expect(
            proxies.client(peer: "127.0.0.1", forwardedFor: ["6.6.6.6", "203.0.113.9"]) == "203.0.113.9", "several headers are one list")
        #expect(
            proxies.client(peer: "198.51.100.1", forwardedFor: ["203.0.113.9"]) == "198.51.100.1", "an untrusted peer's header is ignored")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["not an address"]) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["[2001:db8::1]"]) == "2001:db8::1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["2001:DB8:0::1"]) == "2001:db8::1", "addresses are made canonical")
    }
}
