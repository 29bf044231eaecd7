import SketchwiseCore

/// Google's binary format of simplified Quick, Draw! drawings (`<class>.bin`), little-endian,
/// one record after another with nothing between them:
///
///     key_id u64, country code 2 bytes, recognized u8, timestamp u32 (Unix seconds),
///     stroke count u16, then per stroke: point count u16, x bytes, y bytes
///
/// Coordinates are the simplified drawing's integers 0…255. The class is not stored: it is the
/// file's name. ``QuickDrawBinaryReader`` streams a file; ``QuickDrawBinaryWriter`` writes one.
public enum QuickDrawBinary {
    /// The bytes of a record before its strokes.
    public static let headerSize = 17

    /// The most points one drawing may hold, all strokes together: a record declaring more is
    /// refused (its bytes are skipped, never held in memory).
    public static let maximumPoints = 1 << 20

    /// One record's bytes.
    /// - Throws: ``RecordError`` for a drawing that the format cannot hold: no strokes, a stroke
    ///   without points, more than 65,535 strokes or points in a stroke, or a coordinate that is
    ///   not an integer in 0…255 (simplify raw drawings first).
    public static func encode(_ record: QuickDrawRecord) throws(RecordError) -> [UInt8] {
        let strokes = record.drawing.strokes
        guard !strokes.isEmpty else { throw RecordError("a drawing with no strokes cannot be written to .bin") }
        guard strokes.count <= Int(UInt16.max) else {
            throw RecordError("\(strokes.count) strokes; .bin holds at most \(UInt16.max)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + strokes.count * 2 + record.drawing.pointCount * 2)
        append(UInt64(record.keyID ?? "") ?? 0, byteCount: 8, to: &bytes)
        let country = Array((record.countryCode ?? "").utf8.prefix(2))
        bytes += country + [UInt8](repeating: 0, count: 2 - country.count)
        bytes.append(record.recognized == true ? 1 : 0)
        append(UInt64(record.timestamp.flatMap(seconds(fromTimestamp:)) ?? 0), byteCount: 4, to: &bytes)
        append(UInt64(strokes.count), byteCount: 2, to: &bytes)
        for (index, stroke) in strokes.enumerated() {
            guard !stroke.points.isEmpty, stroke.points.count <= Int(UInt16.max) else {
                throw RecordError("stroke \(index) has \(stroke.points.count) points; .bin holds 1 to \(UInt16.max)")
            }
            append(UInt64(stroke.points.count), byteCount: 2, to: &bytes)
            for column in [stroke.points.map(\.x), stroke.points.map(\.y)] {
                for value in column {
                    guard value >= 0, value <= 255, value == value.rounded() else {
                        throw RecordError("stroke \(index) holds \(value), not an integer in 0…255 (simplify the drawing first)")
                    }
                    bytes.append(UInt8(value))
                }
            }
        }
        return bytes
    }

    /// Google's ndjson form of a Unix time, `2017-03-08 21:12:07 UTC` (the binary format keeps
    /// whole seconds).
    public static func timestamp(seconds: UInt32) -> String {
        let days = Int(seconds) / 86_400, secondOfDay = Int(seconds) % 86_400
        // Howard Hinnant's civil_from_days, for days since 1970-01-01 (never negative here).
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) UTC"
    }

    /// The Unix time of Google's `YYYY-MM-DD hh:mm:ss[.fraction] UTC`, whole seconds; nil for
    /// another form or a time outside 1970…2106.
    public static func seconds(fromTimestamp text: String) -> UInt32? {
        let digits = Array(text.utf8.prefix(19))
        guard digits.count == 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in digits[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let total = days * 86_400 + hour * 3600 + minute * 60 + second
        guard total >= 0, total <= Int(UInt32.max) else { return nil }
        return UInt32(total)
    }

    private static func append(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for i in 0..<byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}
