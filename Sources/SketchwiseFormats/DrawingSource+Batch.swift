/// What to do with a bad drawing or file in a batch: stop at the first one, or skip it, count it
/// and go on.
public struct BadInputPolicy: Sendable {
    public var skipBad: Bool
    /// Called for every skipped drawing or file (for example to print it).
    public var onSkip: @Sendable (FormatError) -> Void

    public init(skipBad: Bool, onSkip: @escaping @Sendable (FormatError) -> Void = { _ in }) {
        self.skipBad = skipBad
        self.onSkip = onSkip
    }

    /// Applies the policy to `error`: with ``skipBad`` it is reported to ``onSkip`` and the work
    /// goes on; without, it is thrown.
    public func skip(_ error: FormatError) throws {
        guard skipBad else { throw error }
        onSkip(error)
    }
}

/// How a batch went.
public struct BatchReport: Sendable, Equatable {
    /// Drawings read and handled.
    public var processed = 0
    /// Drawings or files skipped as bad (only with ``BadInputPolicy/skipBad``).
    public var skipped = 0

    public init() {}
}

/// Runs `body` on every drawing of `source`, applying `policy` to bad input (including the
/// errors `body` throws as ``FormatError``), and reports progress every 1,000 drawings.
public func forEachDrawing(
    in source: DrawingSource, policy: BadInputPolicy, progress: (Int) -> Void,
    _ body: (LabeledDrawing) throws -> Void
) throws -> BatchReport {
    var report = BatchReport()
    let onError = { (error: FormatError) throws in
        try policy.skip(error)
        report.skipped += 1
    }
    try source.forEach(onError: onError) { drawing in
        do {
            try body(drawing)
            report.processed += 1
            if report.processed % 1000 == 0 { progress(report.processed) }
        } catch let error as FormatError {
            try onError(error)
        }
    }
    return report
}
