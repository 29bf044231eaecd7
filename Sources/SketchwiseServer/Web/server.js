// Asks the server's JSON API in the person's language: request() and post() for one answer, with
// the language as "lang" in a JSON body, as ?lang= otherwise (apiURL), and as Accept-Language
// always (the browser's own may differ from the person's choice), so that guesses and pictures'
// names come in it; errorText() for what a refusal means to the person, by its stable code; and
// loadLimits() for the limits the server holds every sketch and live message to (GET
// /api/limits). The app keeps no copy of those limits: until the server has told them (or where
// it can't), the app checks nothing itself and shows the server's refusals.

import { locale, t } from "./i18n.js";

/** A refusal of the API: the server's `code` (one of ERROR_TEXT's, or none when the answer held no
 *  error) and English `message`, and the HTTP `status`. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error && error.message ? error.message : `HTTP ${status}`);
    this.status = status;
    this.code = error ? error.code : undefined;
  }
}

/** `path` with the entries of `query` that have a value. */
function withQuery(path, query) {
  const url = new URL(path, location.href);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) url.searchParams.set(key, value);
  }
  return url.pathname + url.search;
}

/** `path` with `query` and the language as ?lang= (a GET's way of telling it). */
export const apiURL = (path, query = {}) => withQuery(path, { ...query, lang: locale() });

/**
 * Calls the API: `body` is sent as JSON (with "lang") or, a Blob, as its own type (the language then
 * goes in the query). The JSON answer (null when it has none), or an ApiError; a server that can't
 * be reached throws the browser's TypeError (no `status`). A `keepalive` request outlives the page
 * (for what is sent as it goes away; the browser caps such bodies at 64 KB).
 */
export async function request(method, path, { body = null, query = {}, headers = {}, signal, keepalive = false } = {}) {
  const json = body !== null && !(body instanceof Blob);
  const r = await fetch(json ? withQuery(path, query) : apiURL(path, query), {
    method, signal, keepalive,
    headers: { "Accept-Language": locale(), ...(body !== null ? { "Content-Type": json ? "application/json" : body.type } : {}), ...headers },
    body: json ? JSON.stringify({ ...body, lang: locale() }) : body ?? undefined,
  });
  const answer = await r.json().catch(() => null);
  if (!r.ok) throw new ApiError(r.status, answer && answer.error);
  return answer;
}

/** POSTs to the API (JSON, or a Blob as its own type): the JSON answer, or an ApiError. */
export async function post(path, body, query = {}) {
  const answer = await request("POST", path, { body, query });
  if (!answer) throw new ApiError(200, null);
  return answer;
}

/** The person's words for each stable error code of the API. */
const ERROR_TEXT = {
  bad_request: () => t("error.bad_request"),
  too_large: () => t("error.too_large"),
  not_found: () => t("error.not_found"),
  method_not_allowed: () => t("error.method_not_allowed"),
  upgrade_required: () => t("error.upgrade_required"),
  unsupported_media_type: () => t("error.unsupported_media_type"),
  rate_limited: () => t("error.rate_limited"),
  unauthorized: () => t("error.unauthorized"),
  conflict: () => t("error.conflict"),
  quota_exceeded: () => t("error.quota_exceeded"),
  busy: () => t("error.busy"),
  timeout: () => t("error.timeout"),
  starting: () => t("error.starting"),
  internal: () => t("error.internal"),
  not_implemented: () => t("error.not_implemented"),
};

/**
 * What an error of the API ({code, message}, an ApiError, or the TypeError of a server not reached)
 * means to the person, in their language: the catalog's words for a known code; the server's own
 * (English) message for a code the app does not know; else what went wrong on the way.
 */
export function errorText(error) {
  const code = error && error.code;
  if (ERROR_TEXT[code]) return ERROR_TEXT[code]();
  if (code) return error.message || code;
  if (error instanceof ApiError) return t("error.http", { status: String(error.status) });
  return t("error.unreachable");
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
