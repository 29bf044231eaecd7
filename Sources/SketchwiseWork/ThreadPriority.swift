#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scheduling priority of the calling thread.
enum ThreadPriority {
    /// How much lower a job thread runs than the threads answering requests (a nice value).
    static let jobNiceness: Int32 = 5

    /// Lowers the calling thread below the threads that answer requests, so that a cheap answer
    /// (`/api/health`, a refusal) is never delayed by a job's computation when the cores are busy;
    /// jobs still get the cores whenever nothing else wants them. On Linux the nice value is per
    /// thread (`setpriority` with `who` 0 changes the calling thread only); on Darwin the thread's
    /// quality of service is lowered to utility.
    static func lowerForJobs() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, jobNiceness)
        #elseif canImport(Darwin)
        _ = pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0)
        #endif
    }
}
