/// Vectors scaled to unit length, so that the cosine of two of them is one dot product: the
/// ranker compares a sketch with hundreds of pictures per request. Kept in double precision, so
/// that near-identical embeddings still order as their exact cosines do.
package enum UnitVector {
    /// `vector / |vector|`; empty when the vector has no direction (empty, zero or not finite).
    package static func normalized(_ vector: [Float]) -> [Double] {
        let wide = vector.map(Double.init)
        let length = dot(wide, wide).squareRoot()
        guard length.isFinite, length > 0 else { return [] }
        return wide.map { $0 / length }
    }

    /// The dot product of two vectors of one length, summed in sixteen lanes: four independent
    /// sums of four, so that one addition need not wait for the last.
    package static func dot(_ a: [Double], _ b: [Double]) -> Double {
        precondition(a.count == b.count, "vectors of different lengths")
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                func load(_ vector: UnsafeBufferPointer<Double>, _ i: Int) -> SIMD4<Double> {
                    UnsafeRawPointer(vector.baseAddress! + i).loadUnaligned(as: SIMD4<Double>.self)
                }
                var sums = (SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>(), SIMD4<Double>())
                var i = 0
                while i + 16 <= a.count {
                    sums.0 += load(a, i) * load(b, i)
                    sums.1 += load(a, i + 4) * load(b, i + 4)
                    sums.2 += load(a, i + 8) * load(b, i + 8)
                    sums.3 += load(a, i + 12) * load(b, i + 12)
                    i += 16
                }
                while i + 4 <= a.count {
                    sums.0 += load(a, i) * load(b, i)
                    i += 4
                }
                var sum = ((sums.0 + sums.1) + (sums.2 + sums.3)).sum()
                while i < a.count {
                    sum += a[i] * b[i]
                    i += 1
                }
                return sum
            }
        }
    }

    /// Whether `unit` has a cosine above `similarity` with any of `chosen` (unit vectors; one of
    /// another length is never near): the near-duplicate test of picking diverse pictures.
    package static func isNear(_ unit: [Double], anyOf chosen: some Sequence<[Double]>, above similarity: Double) -> Bool {
        chosen.contains { $0.count == unit.count && dot($0, unit) > similarity }
    }
}
