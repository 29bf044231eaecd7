/// `maxtime`: the largest of each channel over all time steps.
struct MaxTime: TimeReducingLayer {
    static let typeName = "maxtime"
    static let reduction = TimeReduction.max
}
