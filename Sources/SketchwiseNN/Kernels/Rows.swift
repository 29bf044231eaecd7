/// Copying and loading short runs of floats inside kernels: inline 4- and 8-float moves, no calls
/// (memmove calls cost more than the work on 7–28-float rows).
enum Rows {
    /// The 8 floats at `p`, which need no alignment.
    @inline(__always)
    static func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }

    /// Copies `count` floats; from 4 on with 4-float moves only, the last one overlapping the one
    /// before (no scalar tail loop, whose exits mispredict on short rows).
    @inline(__always)
    static func copy(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
        guard count >= 4 else {
            for i in 0..<count { destination[i] = source[i] }
            return
        }
        var i = 0
        while i &+ 4 < count {
            move4(source + i, destination + i)
            i &+= 4
        }
        move4(source + (count &- 4), destination + (count &- 4))
    }

    @inline(__always)
    private static func move4(_ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(destination).storeBytes(
            of: UnsafeRawPointer(source).loadUnaligned(as: SIMD4<Float>.self), as: SIMD4<Float>.self)
    }
}
