/// The parameters `conv1d` and `conv2d` share: channels, a square (or 1-D) kernel, stride and
/// zero padding (stride 1 and no padding when omitted): an `Int` for `conv1d`, a `Padding2D` for
/// `conv2d`.
struct ConvolutionParams<Padding: Decodable>: Decodable {
    let inChannels, outChannels, kernel: Int
    var stride: Int?
    var padding: Padding?
}
