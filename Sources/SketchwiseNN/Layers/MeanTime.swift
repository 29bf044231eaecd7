/// `meantime`: the mean of each channel over all time steps.
struct MeanTime: TimeReducingLayer {
    static let typeName = "meantime"
    static let reduction = TimeReduction.mean
}
