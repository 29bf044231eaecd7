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
