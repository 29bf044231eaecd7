/// The zero padding of a 2-D layer's `padding` param: one number for every side, or
/// `[top, left, bottom, right]` (ONNX's order), as TensorFlow's "same" padding needs for strided
/// convolutions (one more row and column at the bottom and right).
struct Padding2D: Decodable, Equatable, Sendable {
    let top, left, bottom, right: Int

    init(top: Int, left: Int, bottom: Int, right: Int) { (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right) }

    init(all: Int) { self.init(top: all, left: all, bottom: all, right: all) }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let all = try? container.decode(Int.self) {
            self.init(all: all)
            return
        }
        let sides = try container.decode([Int].self)
        guard sides.count == 4 else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "padding must be a number or [top, left, bottom, right], has \(sides.count) values")
        }
        self.init(top: sides[0], left: sides[1], bottom: sides[2], right: sides[3])
    }

    /// The vertical and horizontal windows of a square `kernel` with `stride`; throws unless every
    /// side is in `0...maxParamValue`.
    func windows(kernel: Int, stride: Int) throws -> (rows: Window, columns: Window) {
        try requireParams(["padding top": top, "padding left": left, "padding bottom": bottom, "padding right": right], atLeast: 0)
        return (Window(kernel: kernel, stride: stride, padding: top, paddingEnd: bottom),
                Window(kernel: kernel, stride: stride, padding: left, paddingEnd: right))
    }
}
