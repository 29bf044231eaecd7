// Wires the app together: drawing state + history, canvas, pointer input, live recognition,
// suggestions, toolbar, keyboard shortcuts, files, and window.sketchwise for tests and scripts.

import * as M from "./model.js";
import { SketchCanvas } from "./canvas.js";
import { PointerInput } from "./input.js";
import { History } from "./history.js";
import { LiveClient } from "./live.js";
import { SuggestionPanel } from "./panel.js";
import { download, toSVG, toNdjson, parseNdjson, fitStrokes } from "./export.js";

const $ = (sel) => document.querySelector(sel);
const canvasEl = $("#canvas");
const view = new SketchCanvas(canvasEl);
const history = new History();

let state = M.emptyState();
let tool = "draw";
let drawingStart = null;     // performance.now() at the drawing's first point
let messageTimer = 0;

// ---- state changes ----------------------------------------------------------------------

/** Makes `next` the current state; `record` keeps the old one for undo. */
function commit(next, { record = true } = {}) {
  if (next === state) return;
  if (record) history.record(state);
  state = next;
  refresh();
}

function refresh() {
  view.setState(state);
  const c = M.counts(state);
  canvasEl.dataset.strokeCount = String(c.strokes);
  canvasEl.dataset.pictureCount = String(c.pictures);
  $("#undo").disabled = !history.canUndo;
  $("#redo").disabled = !history.canRedo;
  const current = M.currentStrokes(state);
  if (!current.length) panel.show({ guesses: [], suggestions: [] });
  live.update(current);
}

function undo() {
  input.cancel();
  const prev = history.undo(state);
  if (prev) { state = prev; refresh(); }
}

function redo() {
  input.cancel();
  const next = history.redo(state);
  if (next) { state = next; refresh(); }
}

function clearAll() {
  if (!state.items.length) return;
  commit(M.clearAll(state));
  drawingStart = null;
}

function setTool(name) {
  tool = name;
  canvasEl.dataset.tool = name;
  $("#tool-draw").setAttribute("aria-pressed", String(name === "draw"));
  $("#tool-move").setAttribute("aria-pressed", String(name === "move"));
}

/** Replaces the current sketch by a suggested picture (undoable). */
function pick(suggestion) {
  const fallback = { x: view.width / 2 - 80, y: view.height / 2 - 80, w: 160, h: 160 };
  commit(M.swapForPicture(state, suggestion, fallback));
  view.image(suggestion.image);   // start loading the full picture now
}

// ---- messages ---------------------------------------------------------------------------

/** Shows a short message over the canvas; kind "error" stays longer. */
function say(text, kind = "info") {
  const el = $("#message");
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 8000 : 3000);
}

// ---- components -------------------------------------------------------------------------

const panel = new SuggestionPanel($("#guesses"), $("#suggestions"), pick);

const live = new LiveClient({
  onResult: (r) => {
    if (!M.currentStrokes(state).length) return;   // a swap/clear happened meanwhile
    panel.show(r);
    resultListeners.forEach((f) => f(r));
  },
  onStatus: (s, text, detail) => {
    const el = $("#status");
    el.dataset.state = s;
    el.textContent = text;
    el.title = detail || "";
  },
  onError: (text) => say(text, "error"),
});

const input = new PointerInput(canvasEl, {
  tool: () => tool,
  pen: () => ({ color: $("#color").value, width: Number($("#width").value) }),
  timeOrigin: () => {
    if (drawingStart === null) drawingStart = performance.now() - 1;
    return drawingStart;
  },
  hitTest: (x, y) => view.hitTest(x, y),
  onStrokeUpdate: (s) => view.setLive(s),
  onStrokeEnd: (s) => commit(M.addStroke(state, s)),
  onDragUpdate: (d) => view.setDrag(d),
  onDragEnd: (d) => commit(M.translateGroup(state, d.group, d.dx, d.dy)),
});

// ---- files ------------------------------------------------------------------------------

async function exportPNG() {
  try {
    await view.picturesReady();
    download(await view.toBlob(), "sketchwise.png");
  } catch (e) {
    say(`PNG export failed: ${e.message}`, "error");
  }
}

async function exportSVG() {
  const svg = await toSVG(state, view.width, view.height);
  download(new Blob([svg], { type: "image/svg+xml" }), "sketchwise.svg");
}

function saveNdjson() {
  const strokes = M.allStrokes(state);
  if (!strokes.length) { say("Nothing to save: draw something first."); return; }
  const word = panel.topLabel;
  download(new Blob([toNdjson(strokes, word)], { type: "application/x-ndjson" }), "sketchwise.ndjson");
  if (M.pictures(state).length) say("Saved the strokes (pictures are not part of the Quick, Draw! format).");
}

/** Loads the first drawing of an ndjson text; a bad file leaves everything as it was. */
function loadNdjsonText(text, name = "file") {
  let parsed;
  try {
    parsed = parseNdjson(text);
  } catch (e) {
    const msg = `Could not load ${name}: ${e.message}`;
    say(msg, "error");
    return { ok: false, error: msg };
  }
  const color = $("#color").value, width = Number($("#width").value);
  const fitted = fitStrokes(parsed.strokes, view.width, view.height);
  commit(M.loadStrokes(state, fitted.map((s) => ({ color, width, x: s.x, y: s.y, t: s.t }))));
  const maxT = Math.max(0, ...fitted.map((s) => s.t[s.t.length - 1] || 0));
  drawingStart = performance.now() - maxT - 1000;
  say(`Loaded ${fitted.length} stroke${fitted.length === 1 ? "" : "s"}${parsed.word ? ` (“${parsed.word}”)` : ""}.`);
  return { ok: true, strokes: fitted.length };
}

async function loadFile(file) {
  if (!file) return;
  try {
    loadNdjsonText(await file.text(), file.name);
  } catch (e) {
    say(`Could not read ${file.name}: ${e.message}`, "error");
  }
}

// ---- toolbar and keys -------------------------------------------------------------------

$("#tool-draw").addEventListener("click", () => setTool("draw"));
$("#tool-move").addEventListener("click", () => setTool("move"));
$("#undo").addEventListener("click", undo);
$("#redo").addEventListener("click", redo);
$("#erase-last").addEventListener("click", () => commit(M.eraseLastStroke(state)));
$("#clear").addEventListener("click", clearAll);
$("#export-png").addEventListener("click", exportPNG);
$("#export-svg").addEventListener("click", exportSVG);
$("#save-ndjson").addEventListener("click", saveNdjson);
$("#load-ndjson").addEventListener("click", () => $("#load-file").click());
$("#load-file").addEventListener("change", (e) => {
  const file = e.target.files && e.target.files[0];
  loadFile(file).finally(() => { e.target.value = ""; });
});
$("#width").addEventListener("input", (e) => { $("#width-value").textContent = e.target.value; });

document.addEventListener("keydown", (e) => {
  const typing = e.target instanceof HTMLInputElement && e.target.type !== "range" && e.target.type !== "color";
  if (typing) return;
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.toLowerCase();
  if (mod && key === "z" && !e.shiftKey) { e.preventDefault(); undo(); }
  else if (mod && ((key === "z" && e.shiftKey) || key === "y")) { e.preventDefault(); redo(); }
  else if (!mod && !e.altKey && key === "d") setTool("draw");
  else if (!mod && !e.altKey && (key === "m" || key === "v")) setTool("move");
});

// ---- start ------------------------------------------------------------------------------

const resultListeners = new Set();

/** Read-only view and a few actions for tests and scripts. */
window.sketchwise = Object.freeze({
  /** PNG data URL of the drawing at the canvas's backing size. */
  exportPNGDataURL: () => view.toDataURL(),
  /** All strokes still drawn as strokes, Quick, Draw! raw form. */
  strokes: () => M.toQuickDraw(M.allStrokes(state)),
  /** The current sketch (strokes since the last swap/clear), Quick, Draw! raw form. */
  currentSketch: () => M.toQuickDraw(M.currentStrokes(state)),
  /** Placed pictures: {id, label, title, x, y, w, h}. */
  pictures: () => M.pictures(state).map(({ libId, label, title, x, y, w, h }) => ({ id: libId, label, title, x, y, w, h })),
  guesses: () => panel.guesses.slice(),
  suggestions: () => panel.suggestions.slice(),
  status: () => live.state,
  /** Picks the pictures' style (line, emoji, clipart, all) as the menu does. */
  setStyle: (style) => { styleSelect.value = style; styleSelect.dispatchEvent(new Event("change")); },
  canvasSize: () => ({ width: canvasEl.width, height: canvasEl.height, cssWidth: view.width, cssHeight: view.height }),
  /** Resolves when every placed picture has loaded (and been drawn). */
  picturesReady: () => view.picturesReady(),
  svg: () => toSVG(state, view.width, view.height),
  ndjson: () => toNdjson(M.allStrokes(state), panel.topLabel),
  loadNdjsonText,
  undo, redo, clear: clearAll, setTool,
  onResult: (f) => { resultListeners.add(f); return () => resultListeners.delete(f); },
});

// The pictures' style, kept for the next visit.
const styleSelect = $("#style");
const savedStyle = (() => { try { return localStorage.getItem("sketchwise.style"); } catch { return null; } })();
if (savedStyle && [...styleSelect.options].some((o) => o.value === savedStyle)) styleSelect.value = savedStyle;
live.setStyle(styleSelect.value);
styleSelect.addEventListener("change", () => {
  try { localStorage.setItem("sketchwise.style", styleSelect.value); } catch { /* private mode: not kept */ }
  live.setStyle(styleSelect.value);
});

setTool("draw");
refresh();
live.start();
