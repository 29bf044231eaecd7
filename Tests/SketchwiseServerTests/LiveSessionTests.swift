import Foundation
import Hummingbird
import SketchwiseCore
import SketchwiseLocalization
import Testing

@testable import SketchwiseServer

/// What `/api/live` messages do to a connection's sketch, and the limits on them.
@Suite struct LiveSessionTests {
    func session(limits: ServerLimits = ServerLimits()) -> LiveSession {
        LiveSession(input: SketchInput(limits: limits), rate: RateLimiter(perSecond: limits.messagesPerSecond))
    }

    let start = ContinuousClock.now
    /// The instant `i` tenths of a second after the start: slow enough for any rate.
    func at(_ i: Int) -> ContinuousClock.Instant { start + .milliseconds(100 * i) }

    func message(_ text: String) -> Data { Data(text.utf8) }

    @Test func strokesUndoClearAndWholeSketchesChangeTheSketch() throws {
        var live = session()
        let stroke = #"[[0,10,20],[0,5,0],[0,16,32]]"#
        var answer = try #require(try live.receive(message(#"{"type":"stroke","seq":1,"stroke":\#(stroke)}"#), now: at(1)))
        #expect(answer.0 == 1 && answer.1.strokes.count == 1)
        answer = try #require(try live.receive(message(#"{"type":"stroke","seq":2,"stroke":[[5],[5]]}"#), now: at(2)))
        #expect(answer.1.strokes.count == 2)
        answer = try #require(try live.receive(message(#"{"type":"undo","seq":3}"#), now: at(3)))
        #expect(answer.1.strokes.count == 1 && answer.1.strokes[0].points.count == 3)
        answer = try #require(
            try live.receive(message(#"{"type":"sketch","seq":4,"strokes":[\#(stroke),\#(stroke),\#(stroke)]}"#), now: at(4)))
        #expect(answer.1.strokes.count == 3)
        answer = try #require(try live.receive(message(#"{"type":"clear","seq":5}"#), now: at(5)))
        #expect(answer.1.strokes.isEmpty)
    }

    @Test func aMessagesLangIsKeptAndAnUnknownTagLeavesItAsItWas() throws {
        var live = session()
        _ = try live.receive(message(#"{"type":"clear","seq":1}"#), now: at(1))
        #expect(live.locale == nil, "the handshake's language holds until a message names one")
        _ = try live.receive(message(#"{"type":"clear","seq":2,"lang":"fr-CA"}"#), now: at(2))
        #expect(live.locale == .french)
        _ = try live.receive(message(#"{"type":"clear","seq":3}"#), now: at(3))
        #expect(live.locale == .french)
        _ = try live.receive(message(#"{"type":"clear","seq":4,"lang":"pt"}"#), now: at(4))
        #expect(live.locale == .french)
        for (i, bad) in [#"7"#, #"["he"]"#, "\"\(String(repeating: "x", count: 36))\""].enumerated() {
            do {
                _ = try live.receive(message(#"{"type":"clear","seq":\#(5 + i),"lang":\#(bad)}"#), now: at(5 + i))
                Issue.record("lang \(bad) was accepted")
            } catch {
                #expect(error.error.code == .badRequest && error.error.message.contains("lang"))
            }
        }
        #expect(live.locale == .french)
    }

    @Test func badMessagesAreRefusedAndLeaveTheSketchAlone() throws {
        var live = session()
        _ = try live.receive(message(#"{"type":"stroke","seq":1,"stroke":[[0,1],[0,1]]}"#), now: at(1))
        let bad: [(String, APIError.Code)] = [
            ("not json", .badRequest),
            (#"{"type":"stroke","stroke":[[0],[0]]}"#, .badRequest),  // no seq
            (#"{"type":"stroke","seq":1,"stroke":[[0],[0]]}"#, .badRequest),  // seq not above the last
            (#"{"type":"dance","seq":7}"#, .badRequest),
            (#"{"type":"stroke","seq":8,"stroke":[[0,1],[0]]}"#, .badRequest),  // mismatched lengths
            (#"{"type":"stroke","seq":9,"stroke":[[1e300],[0]]}"#, .badRequest),  // beyond ±1e9
            (#"{"type":"sketch","seq":10}"#, .badRequest),
        ]
        for (i, (text, code)) in bad.enumerated() {
            #expect(throws: LiveSession.Refusal.self, "\(text)") { try live.receive(message(text), now: at(2 + i)) }
            do { _ = try live.receive(message(text), now: at(20 + i)) } catch { #expect(error.error.code == code, "\(text)") }
        }
        #expect(live.strokes.count == 1, "refused messages change nothing")
        let next = try #require(try live.receive(message(#"{"type":"undo","seq":11}"#), now: at(40)))
        #expect(next.0 == 11 && next.1.strokes.isEmpty)
    }

    @Test func aMissingOrUnknownTypeIsRefusedNamingTheTypes() {
        var live = session()
        for (i, text) in [#"{"type":"dance","seq":1}"#, #"{"seq":2}"#, #"{"type":3,"seq":3}"#].enumerated() {
            do {
                _ = try live.receive(message(text), now: at(i))
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.error.body.error.message == #""type" must be stroke, undo, clear or sketch"#, "\(text)")
            }
        }
    }

    @Test func sketchesOverTheLimitsAreRefused() throws {
        var limits = ServerLimits()
        limits.maximumStrokes = 2
        limits.maximumPoints = 5
        var live = session(limits: limits)
        _ = try live.receive(message(#"{"type":"stroke","seq":1,"stroke":[[0,1],[0,1]]}"#), now: at(1))
        _ = try live.receive(message(#"{"type":"stroke","seq":2,"stroke":[[0,1],[0,1]]}"#), now: at(2))
        do {
            _ = try live.receive(message(#"{"type":"stroke","seq":3,"stroke":[[0],[0]]}"#), now: at(3))
            Issue.record("a third stroke was accepted")
        } catch {
            #expect(error.error.code == .tooLarge)
        }
        do {
            _ = try live.receive(message(#"{"type":"sketch","seq":4,"strokes":[[[0,1,2,3,4,5],[0,1,2,3,4,5]]]}"#), now: at(4))
            Issue.record("six points were accepted")
        } catch {
            #expect(error.error.code == .tooLarge)
        }
        #expect(live.strokes.count == 2)
    }

    @Test func moreThanTheRateIsRefusedUntilTimePasses() throws {
        var limits = ServerLimits()
        limits.messagesPerSecond = 10
        var live = session(limits: limits)
        var accepted = 0, refused = 0
        for seq in 1...30 {
            do {
                _ = try live.receive(message(#"{"type":"clear","seq":\#(seq)}"#), now: start + .milliseconds(seq))
                accepted += 1
            } catch {
                #expect(error.error.code == .rateLimited)
                refused += 1
            }
        }
        #expect(accepted == 10 && refused == 20, "a burst of one second's worth: \(accepted) accepted")
        #expect(try live.receive(message(#"{"type":"clear","seq":31}"#), now: start + .seconds(2)) != nil, "the bucket refills")
    }

    @Test func hummingbirdErrorsBecomeAPIErrors() {
        #expect(ErrorMiddleware<BasicRequestContext>.translate(.init(.contentTooLarge), path: "/api/suggest").code == .tooLarge)
        #expect(ErrorMiddleware<BasicRequestContext>.translate(.init(.badRequest), path: "/../etc/passwd").code == .notFound)
        #expect(ErrorMiddleware<BasicRequestContext>.translate(.init(.badRequest), path: "/api/classify").code == .badRequest)
        #expect(ErrorMiddleware<BasicRequestContext>.translate(.init(.badRequest), path: "/api/library/%2e%2e/image").code == .notFound)
    }
}
