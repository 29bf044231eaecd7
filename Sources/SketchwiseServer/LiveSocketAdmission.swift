import Foundation
import Synchronization

/// Counts the live sockets open, in total and per client, and admits new ones under
/// ``ServerLimits/maximumLiveSockets`` and ``ServerLimits/maximumLiveSocketsPerClient``.
/// A slot is taken when a handshake is accepted and given back when its connection closes, so
/// that sockets can never hold the connections plain HTTP needs. Thread-safe.
final class LiveSocketAdmission: Sendable {
    let total: Int
    let perClient: Int
    private let state = Mutex(State())

    private struct State {
        var open = 0
        var byClient: [String: Int] = [:]
    }

    init(total: Int, perClient: Int) {
        self.total = total
        self.perClient = perClient
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

    /// Why a new socket of `client` would be refused now; nil when it would be admitted.
    func refusal(for client: String) -> String? {
        state.withLock { problem($0, client) }
    }

    /// What a new socket of `client` would pass; nil when it fits.
    private func problem(_ state: State, _ client: String) -> String? {
        if state.byClient[client, default: 0] >= perClient { return "this client has \(perClient) live sockets open, the most allowed" }
        if state.open >= total { return "the server has \(total) live sockets open, the most it takes" }
        return nil
    }
}
