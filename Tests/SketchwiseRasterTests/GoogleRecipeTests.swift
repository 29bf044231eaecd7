import Foundation
import SketchwiseCore
import SketchwiseFormats
import SketchwiseRaster
import SketchwiseTestSupport
import Testing

/// The rasteriser against the training-time renderer (bit for bit) and against Google's own
/// `numpy_bitmap` files (statistics: the drawings differ).
@Suite struct GoogleRecipeTests {
    struct Golden: Decodable {
        struct Case: Decodable {
            var name: String
            var size: Int
            /// `ink` or `order` (stroke-order shading).
            var channel: String
            var strokes: [[[Double]]]
            var pixels: [UInt8]
        }
        var cases: [Case]
    }

    @Test func swiftRendersEqualTheTrainingRendererByteForByte() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/golden-renders.json")
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
        #expect(golden.cases.count == 32)
        #expect(Set(golden.cases.map(\.channel)) == ["ink", "order"])
        // One rasteriser per size for every case, so a shaded render must not leak into the next.
        let rasterizers = [28: try SketchRasterizer(size: 28), 64: try SketchRasterizer(size: 64)]
        for c in golden.cases {
            let sketch = StrokeSketch(strokes: try c.strokes.map { try Stroke(xs: $0[0], ys: $0[1]) })
            let image = try #require(rasterizers[c.size]).render(sketch, shading: c.channel == "order" ? .byOrder : .uniform)
            let differing = zip(image.pixels, c.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "\(c.name) at \(c.size), \(c.channel): \(differing) pixels differ")
        }
    }

    /// Ink statistics of our renders of simplified drawings against Google's bitmaps of the same
    /// classes (at most 40 and 300 per class, so the two classes with thousands of drawings do not
    /// dominate): mean intensity, share of inked pixels and of dark pixels.
    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func rendersLookLikeGooglesBitmaps() throws {
        let classes = try FileManager.default.contentsOfDirectory(atPath: SharedData.quickDraw("bitmap").path)
            .filter { $0.hasSuffix(".npy") }.map { String($0.dropLast(4)) }.sorted()
        #expect(classes.count == 42)
        let rasterizer = try SketchRasterizer(size: 28)
        var ours = InkStatistics(), google = InkStatistics()
        for name in classes {
            var taken = 0
            try DrawingSource(path: SharedData.quickDraw("simplified/\(name).ndjson").path).forEach(onError: { throw $0 }) { drawing in
                guard taken < 40, case let .strokes(record) = drawing.content else { return }
                ours.add(rasterizer.render(record.drawing).pixels[...])
                taken += 1
            }
            let bitmaps = try NPYArray(contentsOf: SharedData.quickDraw("bitmap/\(name).npy").path)
            guard case let .numeric(_, bytes) = bitmaps.storage else { continue }
            for i in 0..<min(bitmaps.shape[0], 300) { google.add(bytes[i * 784..<(i + 1) * 784]) }
        }
        print(
            "renders vs Google bitmaps: mean \(ours.meanIntensity) vs \(google.meanIntensity), share > 0 \(ours.inkedShare) vs \(google.inkedShare), share > 127 \(ours.darkShare) vs \(google.darkShare)"
        )
        #expect(abs(ours.meanIntensity - google.meanIntensity) < 2.0, "mean \(ours.meanIntensity) vs Google \(google.meanIntensity)")
        #expect(abs(ours.inkedShare - google.inkedShare) < 0.01, "share > 0: \(ours.inkedShare) vs \(google.inkedShare)")
        #expect(abs(ours.darkShare - google.darkShare) < 0.01, "share > 127: \(ours.darkShare) vs \(google.darkShare)")
    }

    struct InkStatistics {
        var pixels = 0, sum = 0, inked = 0, dark = 0
        mutating func add(_ image: ArraySlice<UInt8>) {
            pixels += image.count
            for v in image {
                sum += Int(v)
                if v > 0 { inked += 1 }
                if v > 127 { dark += 1 }
            }
        }
        var meanIntensity: Double { Double(sum) / Double(pixels) }
        var inkedShare: Double { Double(inked) / Double(pixels) }
        var darkShare: Double { Double(dark) / Double(pixels) }
    }
}
