import Foundation
import Metrics
import Prometheus
import SketchwiseModels
import SketchwiseServing
import SketchwiseWork

/// The server's metrics, for `GET /metrics` in Prometheus' text format.
///
/// Events are recorded through swift-metrics as they happen: every request by route, method and
/// status (`http_server_requests_total`, `http_server_request_duration_seconds`, from
/// ``RequestMetricsMiddleware``) and every model run (`sketchwise_inference_duration_seconds`
/// by model). State is read when scraped: the work queue's depth, the library's size, the active
/// model versions and the process's memory.
public final class ServerMetrics: Sendable {
    /// Where everything is recorded.
    public let registry: PrometheusCollectorRegistry
    /// The label sets of `sketchwise_model_info` last emitted (to drop those of switched models).
    private let modelLabels = LockedValue<Set<[String]>>([])

    /// Buckets of request and inference durations: 1 ms to 30 s.
    static let durationBuckets: [Duration] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000].map {
        .microseconds(Int64($0 * 1000))
    }

    /// The Prometheus names of Hummingbird's metrics (the sanitizer runs at every request: no
    /// Foundation string work there).
    private static let prometheusNames = [
        "hb.requests": "http_server_requests_total", "hb.request.errors": "http_server_request_errors_total",
        "http.server.request.duration": "http_server_request_duration_seconds",
    ]

    private init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Makes swift-metrics record into a new registry and returns it. Once per process (swift-
    /// metrics has one back end), before the models load: `sketchwise serve` calls it.
    public static func bootstrap() -> ServerMetrics {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        factory.nameAndLabelSanitizer = { name, labels in
            (prometheusNames[name] ?? name, labels.map { (String($0.0.map { $0 == "." ? "_" : $0 }), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return ServerMetrics(registry: registry)
    }

    /// The text of a scrape, with the state gauges read now.
    func exposition(snapshot: ServingSnapshot?, work: WorkQueue) -> [UInt8] {
        gauge("sketchwise_ready", help: "1 once the library index is loaded and the API answers").set(snapshot == nil ? 0.0 : 1.0)
        gauge("sketchwise_work_queue_waiting", help: "Jobs waiting for a worker thread").set(Double(work.waitingCount))
        if let snapshot {
            gauge("sketchwise_library_items", help: "Pictures in the library index").set(Double(snapshot.libraryItems))
            let active = Set(snapshot.models.filter { $0.status == .active }.map { [$0.name, $0.version, $0.source.rawValue] })
            for stale in modelLabels.exchange(active).subtracting(active) {
                registry.unregisterGauge(gauge("sketchwise_model_info", labels: Self.modelLabels(stale)))
            }
            for labels in active {
                gauge("sketchwise_model_info", labels: Self.modelLabels(labels)).set(1.0)
            }
        }
        if let resident = Self.residentBytes() {
            gauge("process_resident_memory_bytes", help: "Resident memory of the server process").set(Double(resident))
        }
        return registry.emitToBuffer()
    }

    /// The registry's gauge of this name and labels (made at the first call).
    private func gauge(_ name: String, help: String = "", labels: [(String, String)] = []) -> Prometheus.Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
    }

    private static func modelLabels(_ values: [String]) -> [(String, String)] {
        [("name", values[0]), ("version", values[1]), ("source", values[2])]
    }

    /// The process's resident memory, where the system tells (`/proc/self/statm` on Linux).
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Counts a refused personal request in `sketchwise_personal_refusals_total` by `reason`: a
    /// rate (`users_per_client`) or a quota (`shortcuts`, `examples`, `example_bytes`,
    /// `corrections`, `correction_bytes`).
    static func personalRefusal(_ reason: String) {
        Counter(label: "sketchwise_personal_refusals_total", dimensions: [("reason", reason)]).increment()
    }
}
