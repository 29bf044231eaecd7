import Foundation
import Synchronization

/// Counts the live sockets open, in total and per client, and admits new ones under
/// ``ServerLimits/maximumLiveSockets`` and ``ServerLimits/maximumLiveSocketsPerClient``.
/// A slot is taken when a handshake is accepted and given back when its connection closes, so
/// that sockets can never hold the connections plain HTTP needs. Thread-safe.
///
/// It also remembers refusals: a client refused ``perClient`` times within one ``retryAfter``
/// (it was told to wait, and asks again at once) ``ignoresRetryAfter(_:)`` until that time has
/// passed, so that its new connections can be closed as they arrive instead of each costing a
/// parsed handshake and an answer.
final class LiveSocketAdmission: Sendable {
    let total: Int
    let perClient: Int
    /// How long a refused client is asked to wait (the `Retry-After` of a refusal).
    let retryAfter: Duration
    private let state = Mutex(State())

    private struct State {
        var open = 0
        var byClient: [String: Int] = [:]
        var refusals: [String: Refusals] = [:]
    }

    /// A client's refusals since `since`.
    private struct Refusals {
        var since: ContinuousClock.Instant
        var count: Int
    }

    /// The most clients whose refusals are remembered at once (the oldest are forgotten first).
    static let rememberedClients = 16384

    init(total: Int, perClient: Int, retryAfter: Duration = .seconds(10)) {
        self.total = total
        self.perClient = perClient
        self.retryAfter = retryAfter
    }

    /// Takes a slot for `client`; false when the total or the client's limit is reached.
    func admit(_ client: String) -> Bool {
        state.withLock { state in
            guard problem(state, client) == nil else { return false }
            state.open += 1
            state.byClient[client, default: 0] += 1
            return true
        }
    }

    /// Gives back a slot of `client`.
    func release(_ client: String) {
        state.withLock { state in
            state.open = max(0, state.open - 1)
            let left = state.byClient[client, default: 1] - 1
            state.byClient[client] = left > 0 ? left : nil
        }
    }

    /// Why a new socket of `client` is refused now (the refusal is remembered); nil when it would
    /// be admitted.
    func refusal(for client: String, now: ContinuousClock.Instant = .now) -> String? {
        state.withLock { state in
            guard let reason = problem(state, client) else { return nil }
            if let last = state.refusals[client], now - last.since < retryAfter {
                state.refusals[client]?.count += 1
            } else {
                if state.refusals.count >= Self.rememberedClients { forgetOldRefusals(&state, now: now) }
                state.refusals[client] = Refusals(since: now, count: 1)
            }
            return reason
        }
    }

    /// Whether `client` was refused ``perClient`` times or more within the last ``retryAfter``.
    func ignoresRetryAfter(_ client: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard let refusals = state.refusals[client], now - refusals.since < retryAfter else { return false }
            return refusals.count >= perClient
        }
    }

    /// How many clients' refusals are remembered now.
    var rememberedRefusals: Int { state.withLock { $0.refusals.count } }

    /// Drops the refusals older than ``retryAfter``, and if every one is recent, the older half.
    private func forgetOldRefusals(_ state: inout State, now: ContinuousClock.Instant) {
        state.refusals = state.refusals.filter { now - $0.value.since < retryAfter }
        guard state.refusals.count >= Self.rememberedClients else { return }
        let cut = state.refusals.values.map(\.since).sorted()[state.refusals.count / 2]
        state.refusals = state.refusals.filter { $0.value.since > cut }
    }

    /// What a new socket of `client` would pass; nil when it fits.
    private func problem(_ state: State, _ client: String) -> String? {
        if state.byClient[client, default: 0] >= perClient { return "this client has \(perClient) live sockets open, the most allowed" }
        if state.open >= total { return "the server has \(total) live sockets open, the most it takes" }
        return nil
    }
}
