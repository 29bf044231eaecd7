import SketchwiseEvaluation
import Testing

@Suite struct SuggestTallyTests {
    @Test func aHitIsTheOwnClassAmongTheFirstEightSuggestions() {
        var tally = SuggestTally()
        #expect(tally.summary == "no drawings")
        tally.add(latency: .milliseconds(100), label: "cat", suggested: ["dog", "cat"])
        tally.add(latency: .milliseconds(2), label: "cat", suggested: Array(repeating: "dog", count: 8) + ["cat"])
        tally.add(latency: .milliseconds(4), label: "pig", suggested: [])
        #expect(
            tally.summary
                == "drawings: 3   own class among the first 8 suggestions: 1 (33.3%)   latency p50 4.00 ms, p99 4.00 ms")
    }
}
