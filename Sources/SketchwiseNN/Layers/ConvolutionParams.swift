/// The parameters `conv1d` and `conv2d` share: channels, a square (or 1-D) kernel, stride and
/// zero padding (stride 1 and padding 0 when omitted).
struct ConvolutionParams: Decodable {
    let inChannels, outChannels, kernel: Int
    var stride: Int? = 1
    var padding: Int? = 0
}
