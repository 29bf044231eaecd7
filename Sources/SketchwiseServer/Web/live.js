// Keeps the server's view of the current sketch in sync and delivers its guesses and
// suggestions: WebSocket /api/live (stroke / sketch / clear messages with increasing seq, each
// with the pictures' style and the person's language) with automatic reconnect, and POST
// /api/suggest while the socket is down. Latest state wins: results for anything older than the
// last message sent are dropped. The server's limits on live messages (their size, how many a
// second) come from setLimits (GET /api/limits): until they do, a message the server closes the
// socket over (1009, too big) teaches the size, and a message refused as rate_limited is sent
// again shortly.

import { locale, t } from "./i18n.js";
import { request, ApiError } from "./server.js";

const TOO_BIG = 1009;   // the close code of a WebSocket message over the server's limit

/** The status line's words for each state of the connection, and their longer explanation. */
const STATUS = {
  connecting: () => ({ text: t("status.connecting"), detail: t("status.connecting.detail") }),
  connected: () => ({ text: t("status.connected"), detail: t("status.connected.detail") }),
  fallback: () => ({ text: t("status.fallback"), detail: t("status.fallback.detail") }),
  offline: () => ({ text: t("status.offline"), detail: t("status.offline.detail") }),
};

/** Quick, Draw! raw stroke [[x…],[y…],[t…]] of a stroke item. */
const raw = (s) => [s.x, s.y, s.t];

/** Whether two lists hold the same stroke items. */
const sameList = (a, b) => !!a && !!b && a.length === b.length && a.every((s, i) => s === b[i]);

export class LiveClient {
  /**
   * @param {{
   *   onResult: (r: {guesses: object[], suggestions: object[]}) => void,
   *   onStatus: (state: "connecting"|"connected"|"fallback"|"offline", text: string, detail: string) => void,
   *   onError?: (error: {code?: string, message?: string}) => void,
   *   onPending?: (pending: boolean) => void,
   *   onScene?: (objects: object[], strokes: object[]) => void,
   * }} handlers
   */
  constructor(handlers, base = location) {
    this.h = handlers;
    this.wsURL = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}/api/live`;
    this.ws = null;
    this.seq = 0;
    this.lastSent = 0;        // seq of the last message sent on the socket
    this.synced = null;       // the stroke items the server's sketch holds (null = unknown)
    this.latest = [];         // the stroke items the client wants recognised
    this.retry = 0;
    this.retryTimer = 0;
    this.flushTimer = 0;
    this.lastFlush = 0;
    this.httpGen = 0;
    this.httpAbort = null;
    this.answered = null;      // the last answer delivered and the stroke items it is for: {strokes, result}
    this.state = "";
    this.style = "line";       // the pictures' style (line, emoji, clipart, all)
    this.lang = locale();      // the language the server answers in (its names of guesses and pictures)
    this.scene = false;        // whether the server also finds the sketch's objects
    this.sentStrokes = [];     // the stroke items of the last message sent
    this.sentBytes = 0;        // the size of the last message sent, in bytes
    this.maxBytes = Infinity;  // the largest message the socket takes (setLimits, or learnt)
    this.interval = 0;         // ms between messages, to stay well under the server's rate
  }

  /** The server's limits ({messageBytes?, messagesPerSecond?}): larger messages go over HTTP,
   *  and messages are spaced to half the rate allowed. */
  setLimits({ messageBytes, messagesPerSecond }) {
    if (messageBytes) this.maxBytes = messageBytes;
    if (messagesPerSecond) this.interval = 2000 / messagesPerSecond;
  }

  /** Turns scene detection on or off: each state's objects come to onScene (WebSocket only). */
  setScene(on) {
    if (on === this.scene) return;
    this.scene = on;
    this.synced = null;
    if (this.latest.length || !on) this.flush();
  }

  /** Picks the pictures' style; the current sketch is asked again in it. */
  setStyle(style) {
    if (style === this.style) return;
    this.style = style;
    this.synced = null;
    this.answered = null;
    if (this.latest.length) this.update(this.latest);
  }

  /** The person chose another language: the status is said in it, and the sketch asked again in it. */
  setLanguage(lang) {
    if (this.state) this.setStatus(this.state);
    if (lang === this.lang) return;
    this.lang = lang;
    this.resend(this.latest);
  }

  /** Asks again for `strokes` even if they were answered (the answer is wanted once more). */
  resend(strokes) {
    this.synced = null;
    this.answered = null;
    this.update(strokes);
  }

  /** Opens the connection (and reopens it whenever it drops). */
  start() {
    this.connect();
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.reconnectNow(); });
  }

  /** The current sketch changed: send it (coalesced, latest wins). */
  update(strokes) {
    this.latest = strokes;
    if (this.flushTimer) return;
    const wait = Math.max(0, this.lastFlush + this.interval - performance.now());
    this.flushTimer = setTimeout(() => { this.flushTimer = 0; this.flush(); }, wait);
  }

  get connected() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  setStatus(state) {
    this.state = state;
    const { text, detail } = STATUS[state]();
    this.h.onStatus(state, text, detail);
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    if (this.ws) return;
    if (!this.state || this.state === "connecting") this.setStatus("connecting");
    let ws;
    try { ws = new WebSocket(this.wsURL); } catch { this.scheduleReconnect(); return; }
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.synced = null;
      this.setStatus("connected");
      this.flush();
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      // Refused as too big: messages as large go over HTTP from now on.
      if (ev && ev.code === TOO_BIG && this.sentBytes) this.maxBytes = Math.min(this.maxBytes, this.sentBytes - 1);
      this.synced = null;
      this.scheduleReconnect();
      this.probe();
      this.flush();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  reconnectNow() {
    if (this.ws) return;
    this.retry = 0;
    this.connect();
  }

  scheduleReconnect() {
    if (this.retryTimer) return;
    const delay = Math.min(10000, 500 * 2 ** this.retry) * (0.8 + Math.random() * 0.4);
    this.retry = Math.min(this.retry + 1, 5);
    this.retryTimer = setTimeout(() => { this.retryTimer = 0; this.connect(); }, delay);
  }

  /** While the socket is down: is the HTTP API reachable? */
  async probe() {
    try {
      const r = await fetch("/api/health", { cache: "no-store" });
      if (this.connected) return;
      if (r.ok) this.setStatus("fallback");
      else this.setStatus("offline");
    } catch {
      if (!this.connected) this.setStatus("offline");
    }
  }

  flush() {
    this.lastFlush = performance.now();
    const strokes = this.latest;
    if (!this.connected) { this.viaHTTP(strokes); return; }
    const prev = this.synced;
    let msg;
    if (sameList(prev, strokes)) { this.deliverAgain(strokes); return; }
    if (prev && strokes.length === prev.length + 1 && prev.every((s, i) => s === strokes[i])) {
      msg = { type: "stroke", stroke: raw(strokes[strokes.length - 1]) };
    } else if (strokes.length === 0) {
      msg = { type: "clear" };
    } else {
      msg = { type: "sketch", strokes: strokes.map(raw) };
    }
    msg = { ...msg, seq: ++this.seq, style: this.style, lang: this.lang, scene: this.scene };
    const text = JSON.stringify(msg);
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > this.maxBytes) {   // too big for one socket message: ask over HTTP
      this.synced = null;
      this.lastSent = msg.seq;
      this.viaHTTP(strokes);
      return;
    }
    this.httpGen++;                        // any HTTP answer in flight is now stale
    this.ws.send(text);
    this.synced = strokes;
    this.sentStrokes = strokes;
    this.sentBytes = bytes;
    this.lastSent = msg.seq;
    this.pending(true);
  }

  /** Delivers an answer to the app and remembers it for `strokes`. */
  deliver(strokes, result) {
    this.answered = { strokes, result };
    this.h.onResult(result);
  }

  /** The sketch came back to `strokes` (an undo and a redo within one message's time): if their
   *  answer has come, it is delivered again, since no new one will (the server's sketch never
   *  changed). Returns whether it was. */
  deliverAgain(strokes) {
    if (!this.answered || !sameList(this.answered.strokes, strokes)) return false;
    this.h.onResult(this.answered.result);
    return true;
  }

  /** Tells the app whether an answer is on its way. */
  pending(on) {
    if (this.h.onPending) this.h.onPending(on);
  }

  receive(data) {
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    if (msg.type === "result") {
      if (typeof msg.seq === "number" && msg.seq < this.lastSent) return;   // stale
      this.pending(false);
      this.deliver(this.sentStrokes, { guesses: msg.guesses || [], suggestions: msg.suggestions || [] });
    } else if (msg.type === "scene") {
      // The objects' stroke numbers refer to the strokes of that message: only the latest counts.
      if (msg.seq === this.lastSent && this.h.onScene) this.h.onScene(msg.objects || [], this.sentStrokes);
    } else if (msg.type === "error") {
      this.pending(false);
      const code = msg.error && msg.error.code;
      if (code === "rate_limited") {       // dropped: resend the whole sketch shortly
        this.synced = null;
        setTimeout(() => this.update(this.latest), 300);
      } else if (this.h.onError) {
        this.h.onError(msg.error || {});
      }
    }
  }

  async viaHTTP(strokes) {
    if (this.deliverAgain(strokes)) return;   // already answered (e.g. before the socket dropped)
    const gen = ++this.httpGen;
    if (this.httpAbort) this.httpAbort.abort();
    if (!strokes.length) { this.pending(false); this.h.onResult({ guesses: [], suggestions: [] }); return; }
    const abort = new AbortController();
    this.httpAbort = abort;
    this.pending(true);
    try {
      const body = await request("POST", "/api/suggest", {
        body: { strokes: strokes.map(raw), style: this.style, labels: 5 },   // pictures for every guess shown
        signal: abort.signal,
      });
      if (gen !== this.httpGen) return;
      if (!body) { if (!this.connected) this.setStatus("offline"); return; }
      if (!this.connected) this.setStatus("fallback");
      this.deliver(strokes, { guesses: body.guesses || [], suggestions: body.suggestions || [] });
    } catch (e) {
      if ((e && e.name === "AbortError") || gen !== this.httpGen) return;
      // The server refused this sketch: said; the server is away, or failing: the status says so.
      const refused = e instanceof ApiError && e.code && e.status < 500 && e.status !== 404;
      if (refused && this.h.onError) this.h.onError(e);
      else if (!refused && !this.connected) this.setStatus("offline");
    } finally {
      if (this.httpAbort === abort) this.httpAbort = null;
      if (gen === this.httpGen) this.pending(false);
    }
  }
}
