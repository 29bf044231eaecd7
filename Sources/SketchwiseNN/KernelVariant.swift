import CKernels

/// The instruction set the runtime's C kernels (`CKernels`) run with. Each kernel is compiled for
/// every variant; the widest this CPU and its OS support is chosen at first use, unless one is forced.
public enum KernelVariant: String, CaseIterable, Sendable, Codable {
    /// SSE2 on x86-64, NEON on arm64.
    case baseline
    /// AVX2 with FMA (x86-64).
    case avx2
    /// AVX-512F with FMA (x86-64).
    case avx512

    /// The variant the kernels run now on the calling thread.
    public static var current: KernelVariant { KernelVariant(sk_variant()) }

    /// The widest variant this CPU can run.
    public static var bestSupported: KernelVariant { KernelVariant(sk_best_supported_variant()) }

    /// Whether int8 dense layers (``DensePrecision/int8``) use AVX-512 VNNI: the AVX-512 variant
    /// runs on a CPU that has it (otherwise AVX2 or portable C, with the same results).
    public static var int8UsesVNNI: Bool { sk_int8_uses_vnni() }

    /// Whether this CPU can run the variant.
    public var isSupported: Bool { cValue.rawValue <= sk_best_supported_variant().rawValue }

    /// Makes every kernel run this variant from now on, process-wide (tests and benchmarks compare
    /// variants); false, and nothing changes, when this CPU cannot run it.
    @discardableResult
    public func force() -> Bool { sk_force_variant(cValue) }

    /// Runs `body` with this variant's kernels on the calling thread only, while other threads keep
    /// theirs (tests compare variants while other suites run); nil, without running `body`, when this
    /// CPU cannot run the variant.
    public func forcedOnThisThread<Result>(_ body: () throws -> Result) rethrows -> Result? {
        guard sk_force_thread_variant(cValue) else { return nil }
        defer { sk_release_thread_variant() }
        return try body()
    }

    private init(_ variant: SKVariant) {
        switch variant {
        case SKVariantAVX512: self = .avx512
        case SKVariantAVX2: self = .avx2
        default: self = .baseline
        }
    }

    private var cValue: SKVariant {
        switch self {
        case .baseline: SKVariantBaseline
        case .avx2: SKVariantAVX2
        case .avx512: SKVariantAVX512
        }
    }
}
