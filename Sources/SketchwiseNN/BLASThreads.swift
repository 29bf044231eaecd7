import COpenBLAS

/// How many threads OpenBLAS uses inside one call, for the whole process. The runtime never sets
/// it itself: an app chooses. One thread is fastest for the runtime, whose throughput comes from
/// parallel sessions rather than threads inside one inference (the `sketchwise` command sets 1
/// unless `OPENBLAS_NUM_THREADS` says otherwise); OpenBLAS's own default is a thread per core.
public enum BLASThreads {
    /// The threads OpenBLAS uses now.
    public static var count: Int { Int(openblas_get_num_threads()) }

    /// Makes OpenBLAS use `count` threads (at least 1) in every call from now on, process-wide.
    public static func set(_ count: Int) {
        openblas_set_num_threads(Int32(clamping: max(1, count)))
    }
}
