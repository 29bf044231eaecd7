import Foundation
import SketchwiseConversion
import SketchwiseFormats
import SketchwiseTestSupport
import Testing

/// Google-exact simplification, proven on every drawing of the shared data that exists both raw
/// and simplified.
@Suite struct SimplificationComparisonTests {
    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func rawDrawingsSimplifyToGooglesSimplifiedDrawings() throws {
        let report = try SimplificationComparison.run(
            raw: DrawingSource(path: SharedData.quickDraw("raw").path),
            reference: DrawingSource(path: SharedData.quickDraw("simplified").path)
        )
        print(
            "simplification vs Google: \(report.exact)/\(report.pairs) exact, median \(report.medianDistance), p95 \(report.p95Distance), mean \(report.meanDistance) px, point ratio \(report.pointCountRatio)"
        )
        #expect(report.pairs > 5000)
        #expect(report.exactShare >= 0.85)
        #expect(report.medianDistance <= 0.05)
        #expect(report.p95Distance <= 0.5)
    }

    @Test func distancesMeasureHowFarApartTwoDrawingsAre() throws {
        let folder = TemporaryFolder()
        try #"{"word":"a","key_id":"1","drawing":[[[0,100],[0,0],[0,1]]]}"#.write(
            toFile: folder.path("raw.ndjson"), atomically: true, encoding: .utf8)
        try #"{"word":"a","key_id":"1","drawing":[[[0,255],[2,2]]]}"#.write(
            toFile: folder.path("ref.ndjson"), atomically: true, encoding: .utf8)
        let report = try SimplificationComparison.run(
            raw: DrawingSource(path: folder.path("raw.ndjson")), reference: DrawingSource(path: folder.path("ref.ndjson")))
        #expect(report.pairs == 1 && report.exact == 0)
        #expect(report.medianDistance == 2)
        #expect(report.pointCountRatio == 1)
    }
}
