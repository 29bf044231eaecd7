import Foundation
import Testing

@testable import SketchwiseServer

@Suite struct LiveSocketAdmissionTests {
    @Test func slotsAreCountedPerClientAndInTotal() {
        let admission = LiveSocketAdmission(total: 3, perClient: 2)
        #expect(admission.admit("10.0.0.1"))
        #expect(admission.admit("10.0.0.1"))
        #expect(!admission.admit("10.0.0.1"), "the client's limit")
        #expect(admission.admit("10.0.0.2"))
        #expect(!admission.admit("10.0.0.3"), "the total")
        admission.release("10.0.0.1")
        #expect(admission.refusal(for: "10.0.0.3") == nil, "a closed socket gives its slot back")
    }

    @Test func aClientThatAsksAgainAtOnceIsTurnedAwayUntilItsRetryAfter() {
        let start = ContinuousClock.now
        let admission = LiveSocketAdmission(total: 100, perClient: 2, retryAfter: .seconds(10))
        #expect(admission.admit("10.0.0.1") && admission.admit("10.0.0.1"))
        #expect(admission.refusal(for: "10.0.0.1", now: start) != nil)
        #expect(!admission.ignoresRetryAfter("10.0.0.1", now: start), "one refusal is not ignoring it")
        #expect(admission.refusal(for: "10.0.0.1", now: start + .seconds(1)) != nil)
        #expect(admission.ignoresRetryAfter("10.0.0.1", now: start + .seconds(1)))
        #expect(!admission.ignoresRetryAfter("10.0.0.2", now: start + .seconds(1)), "other clients are not affected")
        #expect(!admission.ignoresRetryAfter("10.0.0.1", now: start + .seconds(10)), "once the wait is over")
        #expect(admission.refusal(for: "10.0.0.1", now: start + .seconds(10)) != nil)
        #expect(!admission.ignoresRetryAfter("10.0.0.1", now: start + .seconds(10)), "the count starts again")
    }

    @Test func newSocketsArePacedServerWide() throws {
        let start = ContinuousClock.now
        let admission = LiveSocketAdmission(total: 100, perClient: 100, perSecond: 4, now: start)
        for index in 0..<4 { #expect(admission.refusal(for: "10.0.0.\(index)", now: start) == nil, "a burst of 4") }
        let refusal = try #require(admission.refusal(for: "10.0.0.9", now: start), "whoever asks")
        #expect(refusal.retryAfter == .milliseconds(250), "4 a second: one every 250 ms")
        #expect(refusal.reason.contains("4 live sockets a second"))
        #expect(admission.refusal(for: "10.0.0.9", now: start + .milliseconds(250)) == nil)
        #expect(admission.refusal(for: "10.0.0.9", now: start + .milliseconds(250)) != nil)
        let full = LiveSocketAdmission(total: 1, perClient: 1, perSecond: 1, retryAfter: .seconds(10), now: start)
        #expect(full.admit("10.0.0.1"))
        #expect(full.refusal(for: "10.0.0.2", now: start)?.retryAfter == .seconds(10), "a full server is not paced")
        #expect(full.refusal(for: "10.0.0.2", now: start)?.retryAfter == .seconds(10), "a refusal for want of a slot takes no token")
        full.release("10.0.0.1")
        #expect(full.refusal(for: "10.0.0.2", now: start) == nil)
    }

    @Test func rememberedRefusalsAreBounded() {
        let start = ContinuousClock.now
        let admission = LiveSocketAdmission(total: 0, perClient: 1, retryAfter: .seconds(10))
        let clients = LiveSocketAdmission.rememberedClients + 10
        for index in 0..<clients {
            #expect(
                admission.refusal(for: "10.\(index / 65536).\(index / 256 % 256).\(index % 256)", now: start + .milliseconds(index)) != nil)
        }
        #expect(admission.rememberedRefusals <= LiveSocketAdmission.rememberedClients)
        #expect(
            admission.ignoresRetryAfter("10.0.\((clients - 1) / 256 % 256).\((clients - 1) % 256)", now: start + .seconds(5)),
            "the newest are kept")
    }
}
