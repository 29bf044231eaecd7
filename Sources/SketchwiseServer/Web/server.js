// Asks the server's JSON API: post() for one answer, and loadLimits() for the limits the server
// holds every sketch and live message to (GET /api/limits). The app keeps no copy of those limits:
// until the server has told them (or where it can't), the app checks nothing itself and shows the
// server's refusals.

/** POSTs to the API (JSON, or a Blob as its own type): the JSON answer, or an Error with the
 *  server's message, `status` (none: the server could not be reached) and `code`. */
export async function post(path, body) {
  const raw = body instanceof Blob;
  const r = await fetch(path, {
    method: "POST", headers: { "Content-Type": raw ? body.type : "application/json" }, body: raw ? body : JSON.stringify(body),
  });
  const answer = await r.json().catch(() => null);
  if (r.ok && answer) return answer;
  const error = answer && answer.error;
  throw Object.assign(new Error(error ? error.message : `HTTP ${r.status}`), { status: r.status, code: error ? error.code : undefined });
}

const positive = (v) => typeof v === "number" && Number.isFinite(v) && v > 0;

/**
 * The server's limits, {strokes, points, messageBytes, messagesPerSecond}: the most strokes and
 * points of one sketch, the largest live message in bytes and the live messages a second. null
 * when the server does not say (an older server answers 404) or can't be reached; a field the
 * answer lacks, or holds no positive number in, is left out.
 */
export async function loadLimits() {
  try {
    const r = await fetch("/api/limits", { cache: "no-store" });
    if (!r.ok) return null;
    const body = await r.json();
    if (!body || typeof body !== "object") return null;
    const limits = {};
    for (const key of ["strokes", "points", "messageBytes", "messagesPerSecond"]) if (positive(body[key])) limits[key] = body[key];
    return Object.freeze(limits);
  } catch {
    return null;
  }
}
