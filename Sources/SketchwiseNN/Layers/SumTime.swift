/// `sumtime`: the sum of each channel over all time steps.
struct SumTime: TimeReducingLayer {
    static let typeName = "sumtime"
    static let reduction = TimeReduction.sum
}
