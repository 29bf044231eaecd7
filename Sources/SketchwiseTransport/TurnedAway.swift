/// Why a connection was closed as it arrived (``WebSocketEndpoint/turnsAway``).
struct TurnedAway: Error {}
