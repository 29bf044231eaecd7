import Foundation
import SketchwiseTransport
import Synchronization

/// Counts the live sockets open, in total and per client, and admits new ones under
/// ``ServerLimits/maximumLiveSockets`` and ``ServerLimits/maximumLiveSocketsPerClient``.
/// A slot is taken when a handshake is accepted and given back when its connection closes, so
/// that sockets can never hold the connections plain HTTP needs. Thread-safe.
///
/// New sockets are also paced server-wide (``ServerLimits/newLiveSocketsPerSecond``): an upgrade
/// costs far more than a request, and a burst of hundreds at once from many addresses would
/// starve every other connection on the event loops for a fraction of a second.
///
/// It also remembers refusals: a client refused ``perClient`` times within one ``retryAfter``
/// (it was told to wait, and asks again at once) ``ignoresRetryAfter(_:)`` until that time has
/// passed, so that its new connections can be closed as they arrive instead of each costing a
/// parsed handshake and an answer.
final class LiveSocketAdmission: Sendable {
    let total: Int
    let perClient: Int
    /// How long a client refused for want of a slot is asked to wait; also how long its
    /// refusals are remembered.
    let retryAfter: Duration
    private let state: Mutex<State>

    private struct State {
        var open = 0
        var byClient: [String: Int] = [:]
        var refusals: [String: Refusals] = [:]
        /// New sockets allowed now, server-wide; nil: no pace.
        var opening: TokenBucket?
    }

    /// Why a new socket is refused, and how long to wait before asking again.
    struct Refusal: Equatable {
        let reason: String
        let retryAfter: Duration
    }

    /// A client's refusals since `since`.
    private struct Refusals {
        var since: ContinuousClock.Instant
        var count: Int
    }

    /// The most clients whose refusals are remembered at once (the oldest are forgotten first).
    static let rememberedClients = 16384

    /// `perSecond` new sockets a second at most, server-wide, in bursts of as many; 0: no pace.
    init(
        total: Int, perClient: Int, perSecond: Int = 0, retryAfter: Duration = .seconds(10), now: ContinuousClock.Instant = .now
    ) {
        self.total = total
        self.perClient = perClient
        self.retryAfter = retryAfter
        let opening = perSecond > 0 ? TokenBucket(capacity: Double(perSecond), perSecond: Double(perSecond), now: now) : nil
        state = Mutex(State(opening: opening))
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
    /// be admitted, which takes its share of the server-wide pace.
    func refusal(for client: String, now: ContinuousClock.Instant = .now) -> Refusal? {
        state.withLock { state in
            guard let refusal = problem(state, client) ?? paced(&state, now) else { return nil }
            if let last = state.refusals[client], now - last.since < retryAfter {
                state.refusals[client]?.count += 1
            } else {
                if state.refusals.count >= Self.rememberedClients { forgetOldRefusals(&state, now: now) }
                state.refusals[client] = Refusals(since: now, count: 1)
            }
            return refusal
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
    private func problem(_ state: State, _ client: String) -> Refusal? {
        if state.byClient[client, default: 0] >= perClient {
            return Refusal(reason: "this client has \(perClient) live sockets open, the most allowed", retryAfter: retryAfter)
        }
        if state.open >= total {
            return Refusal(reason: "the server has \(total) live sockets open, the most it takes", retryAfter: retryAfter)
        }
        return nil
    }

    /// Takes a token of the server-wide pace; a refusal when there is none.
    private func paced(_ state: inout State, _ now: ContinuousClock.Instant) -> Refusal? {
        guard let wait = state.opening?.take(now: now), let perSecond = state.opening?.perSecond else { return nil }
        return Refusal(reason: "the server opens at most \(Int(perSecond)) live sockets a second", retryAfter: wait)
    }
}
