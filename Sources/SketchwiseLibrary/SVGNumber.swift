import Foundation

/// Numbers as the SVG documents the library writes spell them: rounded to a few decimals, no
/// exponent, no trailing zeros.
enum SVGNumber {
    static func text(_ value: Double, decimals: Int) -> String {
        let scale = pow(10, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.\(decimals)f", rounded)
            .replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    }
}
