// Wires the editor together: the scene and its history, the camera and canvas, pointer and
// keyboard input per tool, the selection frame and its bar, live recognition and the "Do you
// mean" strip, photos to trace over, documents (autosave, .sketchwise.json, ndjson, PNG, SVG),
// and window.sketchwise for tests and scripts.

import * as M from "./model.js";
import { Camera } from "./camera.js";
import { SceneCanvas, objectAt, measureText, renderBox, pictureURL } from "./canvas.js";
import { PointerInput, isTyping } from "./input.js";
import { SelectionFrame } from "./selection.js";
import { History } from "./history.js";
import { LiveClient } from "./live.js";
import { SuggestionPanel } from "./panel.js";
import { objectsBounds, corners, boundsOfPoints, isClosed, fitRect, centre } from "./geometry.js";
import { download, toSVG, toNdjson, parseNdjson } from "./export.js";
import { serialize, parseDocument, Autosave } from "./document.js";
import { PersonalClient, ShortcutDialog, shortcutPicture } from "./personal.js";
import { ModelInfo } from "./model-info.js";
import { readPhoto } from "./photo.js";

const $ = (sel) => document.querySelector(sel);

const canvasEl = $("#canvas");
const camera = new Camera();
const view = new SceneCanvas(canvasEl, camera, () => fitIfHidden());
const history = new History();

/** What the server recognises at most (its default limits); larger sketches get no guesses. */
const RECOGNITION_LIMITS = { strokes: 256, points: 20000 };
const PALETTE = [
  ["#1f2937", "Ink"], ["#dc2626", "Red"], ["#ea580c", "Orange"], ["#ca8a04", "Yellow"], ["#16a34a", "Green"],
  ["#0d9488", "Teal"], ["#2563eb", "Blue"], ["#7c3aed", "Purple"], ["#db2777", "Pink"], ["#92400e", "Brown"],
];

let state = M.emptyState();
let tool = "autodraw";
let shapeKind = "ellipse";
let selected = null;            // id of the selected object
let panelTarget = "sketch";     // "sketch": guesses for the current sketch; else the id of a selected object
let drawingStart = null;        // performance.now() at the drawing's first point
let overLimit = false;
let askedStrokes = null;        // the strokes last sent to recognition (unchanged sketches keep the same array)
let messageTimer = 0;
let picking = false;
let sceneMode = false;
let scene = { objects: [], strokes: [] };   // the current sketch's objects and the stroke items they number
let sceneTarget = null;        // {sketchId, strokes, trackingID}: the scene object whose pictures are shown

/** Who is told of each recognition result and each scene (window.sketchwise.onResult, onScene). */
const resultListeners = new Set();
const sceneListeners = new Set();

// ---- components -------------------------------------------------------------------------
// Made here, above every function that uses them, so that none is read before its declaration.

const screenPoint = (e) => {
  const r = canvasEl.getBoundingClientRect();
  return { x: e.clientX - r.left, y: e.clientY - r.top };
};

const frame = new SelectionFrame($("#selection"), camera, {
  toDocument: (e) => camera.toDocument(screenPoint(e)),
  onEditUpdate: (o) => { view.setPreview(o); placeObjectBar(o); },
  onEditEnd: (o) => {
    const patch = { x: o.x, y: o.y, w: o.w, h: o.h, rotation: o.rotation };
    if (o.type === "text") patch.size = o.size;
    commit(M.updateObject(state, o.id, patch));
  },
});

const styleSelect = $("#style");
const personal = new PersonalClient();
const panel = new SuggestionPanel($("#assist"), pick, (label, rank) => {
  // A guess chosen over the first is a correction of the recogniser (kept for training).
  if (rank > 0 && panelTarget === "sketch") personal.correct(label, M.toQuickDraw(M.recognitionStrokes(state)), "guess").catch(() => {});
});
const autosave = new Autosave((text) => say(text, "error"));
const shortcutDialog = new ShortcutDialog($("#my-shortcuts-dialog"), personal, () => panel.suggestions);
const modelInfo = new ModelInfo($("#model-info"));

const live = new LiveClient({
  onResult: (r) => {
    if (panelTarget !== "sketch" || !M.recognitionStrokes(state).length) return;   // a swap, clear or selection happened meanwhile
    panel.show(r);
    if (r.suggestions && r.suggestions.length && !firstRunDone()) $("#first-run").hidden = false;
    resultListeners.forEach((f) => f(r));
  },
  onStatus: (s, text, detail) => {
    const el = $("#status");
    el.dataset.state = s;
    el.textContent = text;
    el.title = detail || "";
    $("#offline-banner").hidden = s !== "offline";
    if (s === "offline" && panelTarget === "sketch" && panel.suggestions.length) panel.setStale(true);
  },
  onError: (text) => say(text, "error"),
  onPending: (on) => { if (panelTarget === "sketch") panel.setPending(on && M.recognitionStrokes(state).length > 0); },
  onScene: (objects, strokes) => {
    if (!sceneMode) return;
    scene = { objects, strokes };
    showScene();
    sceneListeners.forEach((f) => f(objects));
  },
});

const input = new PointerInput(canvasEl, {
  tool: () => tool,
  pen: () => ({ color: $("#color").value, width: Number($("#width").value) }),
  shapeKind: () => shapeKind,
  timeOrigin: () => {
    if (drawingStart === null) drawingStart = performance.now() - 1;
    return drawingStart;
  },
  toDocument: (p) => camera.toDocument(p),
  zoom: () => camera.zoom,
  pan: (dx, dy) => { camera.panBy(dx, dy); cameraChanged(); },
  zoomAt: (factor, at) => { camera.zoomAt(factor, at); cameraChanged(); },
  objectAt: (p, slop) => objectAt(state.objects, p, slop),
  onStrokeUpdate: (s) => { view.setLive(s); penBusy(); },
  onStrokeEnd: (s) => {
    penBusy();
    if (panelTarget !== "sketch") select(null);
    commit(M.addStroke(state, s, tool === "autodraw"));
  },
  onShapeUpdate: (o) => view.setPreview(o),
  onShapeEnd: (o) => { const { id, ...shape } = o; commit(M.addObject(state, shape)); },
  onSelect: (o) => select(o ? o.id : null),
  onMoveUpdate: (m) => {
    if (!m) { view.setPreview(null); showSelection(); return; }
    const moved = M.movedObject(M.find(state, m.id), m.dx, m.dy);
    view.setPreview(moved);
    frame.show(moved);
    placeObjectBar(moved);
  },
  onMoveEnd: (m) => commit(M.moveObject(state, m.id, m.dx, m.dy)),
  onFill: (o) => fill(o),
  onText: (p) => openTextEditor(p),
});

// ---- state changes ----------------------------------------------------------------------

/** Makes `next` the current state; `record` keeps the old one for undo. */
function commit(next, { record = true } = {}) {
  if (next === state) return;
  if (record) history.record(state);
  state = next;
  refresh();
  saveLater();
}

/** Autosaves the current document soon. */
function saveLater() {
  autosave.schedule(() => serialize(state.objects, camera.toJSON()));
}

function refresh() {
  if (selected !== null && !M.find(state, selected)) select(null);
  view.setObjects(state.objects);
  const c = M.counts(state);
  canvasEl.dataset.strokeCount = String(c.strokes);
  canvasEl.dataset.pictureCount = String(c.pictures);
  canvasEl.dataset.photoCount = String(c.photos);
  canvasEl.dataset.objectCount = String(c.objects);
  $("#undo").disabled = !history.canUndo;
  $("#redo").disabled = !history.canRedo;
  showSelection();
  recognize();
}

/** Sends the current AutoDraw sketch to recognition (within the server's limits). */
function recognize() {
  const strokes = M.recognitionStrokes(state);
  const points = strokes.reduce((n, s) => n + s.x.length, 0);
  const over = strokes.length > RECOGNITION_LIMITS.strokes || points > RECOGNITION_LIMITS.points;
  if (over !== overLimit) {
    overLimit = over;
    if (over) say(`Guesses stop at ${RECOGNITION_LIMITS.strokes} strokes or ${RECOGNITION_LIMITS.points.toLocaleString("en")} points in one sketch. Keep drawing, or select part of it to work on.`, "error");
  }
  if (strokes === askedStrokes) return;   // the sketch did not change (another object did)
  askedStrokes = strokes;
  if (panelTarget === "sketch") {
    if (!strokes.length) { panel.show({ guesses: [], suggestions: [] }); panel.setPending(false); }
    else if (panel.suggestions.length || panel.guesses.length) panel.setStale(true);
  }
  if (!over) live.update(strokes);
  if (!over && strokes.length) askShortcut(strokes);
}

let shortcutAsk = 0;
/** Asks whether the sketch is one of the person's shortcuts; if so (and the sketch has not
 *  changed meanwhile) its picture replaces the sketch, over the sketch's box. Undoable. */
async function askShortcut(strokes) {
  if (!personal.shortcuts.length || tool !== "autodraw") return;
  const ask = ++shortcutAsk;
  let match = null;
  try { match = await personal.predict(M.toQuickDraw(strokes)); } catch { return; }
  const picture = match && shortcutPicture(match.label);
  const target = M.currentSketch(state, true);
  if (ask !== shortcutAsk || !picture || askedStrokes !== strokes || !target) return;
  if (!(await view.images.ready(picture.image))) { say(`The picture of your shortcut ${match.label} could not be loaded.`, "error"); return; }
  if (askedStrokes !== strokes || !M.find(state, target.id)) return;
  commit(M.swapForPicture(state, target.id, picture, null));
  say(`Your shortcut: ${match.label}`);
}

function undo() {
  input.cancel();
  closeTextEditor(false);
  const prev = history.undo(state);
  if (prev) { state = prev; refresh(); saveLater(); }
}

function redo() {
  input.cancel();
  closeTextEditor(false);
  const next = history.redo(state);
  if (next) { state = next; refresh(); saveLater(); }
}

function clearAll() {
  if (!state.objects.length) return;
  select(null);
  commit(M.clearAll(state));
  drawingStart = null;
}

function setTool(name) {
  closeTextEditor(true);
  tool = name;
  canvasEl.dataset.tool = name;
  for (const t of ["select", "autodraw", "draw", "shape", "text", "fill"]) $(`#tool-${t}`).setAttribute("aria-pressed", String(t === name));
  $("#shape-kinds").hidden = name !== "shape";
  if (name !== "select") select(null);
  if (name !== "autodraw" && name !== "select") state = M.closeSketch(state);
}

function setShapeKind(kind) {
  shapeKind = kind;
  for (const b of document.querySelectorAll("#shape-kinds button")) b.setAttribute("aria-checked", String(b.dataset.shape === kind));
}

// ---- selection --------------------------------------------------------------------------

/** Selects object `id` (null: nothing); a selected picture shows its other pictures again. */
function select(id) {
  selected = id;
  const o = id === null ? null : M.find(state, id);
  if (!o) {
    selected = null;
    if (panelTarget !== "sketch") { panelTarget = "sketch"; panel.show({ guesses: [], suggestions: [] }); live.resend(M.recognitionStrokes(state)); }
  } else if (o.type === "picture" && o.alternatives) {
    showAlternatives(o);
  } else if (o.type === "photo" && o.alternatives) {
    showPhoto(o);
  }
  showSelection();
}

function showSelection() {
  const o = selected === null ? null : M.find(state, selected);
  frame.show(o);
  placeObjectBar(o);
}

/** Puts the selected object's bar above it (below when there is no room), inside the stage. */
function placeObjectBar(o) {
  const bar = $("#object-bar");
  if (!o) { bar.hidden = true; return; }
  bar.hidden = false;
  $("#object-suggest").hidden = o.type === "shape" || o.type === "text";
  const dim = $("#object-dim");
  dim.hidden = o.type !== "photo";
  dim.setAttribute("aria-pressed", String(o.opacity < 1));
  const colour = $("#object-colour");
  colour.hidden = !(o.type === "picture" && o.source === "openmoji");
  colour.setAttribute("aria-pressed", String(!!o.colour));
  const box = boundsOfPoints(corners(o).map((p) => camera.toScreen(p)));
  const stage = $("#stage").getBoundingClientRect();
  const w = bar.offsetWidth, h = bar.offsetHeight;
  const left = Math.min(Math.max(8, box.x + box.w / 2 - w / 2), stage.width - w - 8);
  let top = box.y - h - 40;
  if (top < 8 || coversStrip({ x: left, y: top, w, h }, stage)) top = box.y + box.h + 12;
  bar.style.left = `${left}px`;
  bar.style.top = `${Math.min(top, stage.height - h - 8)}px`;
}

/** Whether box `b` of the stage (whose place on the page is `stage`) overlaps the strip. */
function coversStrip(b, stage) {
  const s = $("#assist").getBoundingClientRect(), x = b.x + stage.left, y = b.y + stage.top;
  return x < s.right && x + b.w > s.left && y < s.bottom && y + b.h > s.top;
}

function showAlternatives(o) {
  panelTarget = o.id;
  const labels = [...new Set(o.alternatives.map((s) => s.label))].map((label) => ({ label }));
  panel.show({ guesses: labels, suggestions: o.alternatives }, { title: "Other pictures", current: o.libraryId });
  panel.setPending(false);
}

/** POSTs to the API (JSON, or a Blob as its own type): the JSON answer, or an Error with the
 *  server's message and `status` (none: the server could not be reached). */
async function post(path, body) {
  const raw = body instanceof Blob;
  const r = await fetch(path, {
    method: "POST", headers: { "Content-Type": raw ? body.type : "application/json" }, body: raw ? body : JSON.stringify(body),
  });
  const answer = await r.json().catch(() => null);
  if (r.ok && answer) return answer;
  throw Object.assign(new Error(answer && answer.error ? answer.error.message : `HTTP ${r.status}`), { status: r.status });
}

/** Opens the pictures for the selected object: those offered with it, or asks anew. */
async function reopenSuggestions() {
  const o = selected === null ? null : M.find(state, selected);
  if (!o) return;
  if (o.type === "photo") { reopenPhoto(o); return; }
  const strokes = o.type === "sketch" ? M.worldStrokes(o) : o.sketch;
  if (o.type === "picture" && o.alternatives && o.alternatives.length) { showAlternatives(o); focusStrip(); return; }
  if (!strokes || !strokes.length) { say("This picture has no sketch to find other pictures for."); return; }
  panelTarget = o.id;
  panel.show({ guesses: [], suggestions: [] }, { title: "Pictures for this", current: o.type === "picture" ? o.libraryId : null });
  panel.setPending(true);
  try {
    const body = await post("/api/suggest", { strokes: M.toQuickDraw(strokes.slice(0, RECOGNITION_LIMITS.strokes)), style: styleSelect.value, labels: 5 });
    if (panelTarget !== o.id) return;
    panel.show(body, { title: "Pictures for this", current: o.type === "picture" ? o.libraryId : null });
    focusStrip();
  } catch (e) {
    if (panelTarget === o.id) say(`No pictures: ${e.message}`, "error");
  } finally {
    if (panelTarget === o.id) panel.setPending(false);
  }
}

function focusStrip() {
  const first = $("#suggestions button[aria-current='true']") || $("#suggestions button[data-id]");
  if (first) first.focus({ preventScroll: true });
}

// ---- picking a picture ------------------------------------------------------------------

/** Replaces the current sketch (or the selected object) by a picture, once the picture has
 *  loaded; a picture that can't be loaded is never swapped in. Undoable. */
async function pick(suggestion, all) {
  if (picking) return;
  if (panelTarget === "scene") return pickForSceneObject(suggestion, all);
  const targetId = panelTarget === "sketch" ? (M.currentSketch(state, true) || {}).id : panelTarget;
  if (targetId === undefined) return;
  picking = true;
  $("#assist").dataset.loading = "true";
  try {
    const ok = await view.images.ready(suggestion.image);
    if (!ok) { say("That picture could not be loaded, so nothing was replaced. Try another one.", "error"); return; }
    if (!M.find(state, targetId)) return;   // undone or deleted meanwhile
    const target = M.find(state, targetId);
    if (target.type === "photo") { placeOverPhoto(target, suggestion, all); return; }
    const alternatives = target.type === "picture" ? target.alternatives || all : all;
    if (target.type === "sketch") personal.correct(suggestion.label, M.toQuickDraw(M.worldStrokes(target))).catch(() => {});
    commit(M.swapForPicture(state, targetId, suggestion, alternatives));
    finishFirstRun();
    if (tool === "select" || panelTarget !== "sketch") {
      select(targetId);
    } else {
      const picture = M.find(state, targetId);
      showAlternatives(picture);
      // A constant, written right after panelTarget was read afresh (above): no value from before
      // the await goes into it. ESLint 6's require-atomic-updates flags every write after an await
      // to a variable read before it, whatever is written (a false positive: eslint#11899).
      // eslint-disable-next-line require-atomic-updates
      panelTarget = "sketch";
    }
    // Focus stays on the button that was used: it now stands for the placed picture.
    const again = document.querySelector(`#suggestions button[data-id="${CSS.escape(suggestion.id)}"]`);
    if (again) again.focus({ preventScroll: true });
  } finally {
    // Releases the guard taken above (no other pick got past it meanwhile); a constant, not a
    // value computed from the one read before the await: a false positive of ESLint 6's
    // require-atomic-updates (eslint#12353, #11899).
    // eslint-disable-next-line require-atomic-updates
    picking = false;
    delete $("#assist").dataset.loading;
  }
}

// ---- scene mode -------------------------------------------------------------------------

/** Turns scene mode on or off: the server boxes, labels and tracks each object of the sketch. */
function setSceneMode(on) {
  sceneMode = on;
  $("#scene-mode").setAttribute("aria-pressed", String(on));
  scene = { objects: [], strokes: [] };
  live.setScene(on);
  showScene();
}

/** While strokes follow one another, the scene's tags let the pen through (a stroke that starts
 *  on a tag draws instead of opening its pictures); they take clicks again once the pen has
 *  rested for TAG_REST_MS. */
const TAG_REST_MS = 600;
let tagRest = 0;
function penBusy() {
  const layer = $("#scene-boxes");
  layer.dataset.drawing = "true";
  clearTimeout(tagRest);
  tagRest = setTimeout(() => { delete layer.dataset.drawing; }, TAG_REST_MS);
}

/** Draws the scene's boxes over the canvas, each with a tag "#ID label" that opens its pictures. */
function showScene() {
  const layer = $("#scene-boxes");
  layer.replaceChildren();
  canvasEl.dataset.sceneObjects = String(sceneMode ? scene.objects.length : 0);
  if (!sceneMode) return;
  for (const o of scene.objects) {
    const a = camera.toScreen({ x: o.frame.x, y: o.frame.y });
    const b = camera.toScreen({ x: o.frame.x + o.frame.width, y: o.frame.y + o.frame.height });
    const box = document.createElement("div");
    box.className = "scene-box";
    box.dataset.trackingId = String(o.trackingID);
    Object.assign(box.style, { left: `${a.x}px`, top: `${a.y}px`, width: `${b.x - a.x}px`, height: `${b.y - a.y}px` });
    const tag = document.createElement("button");
    tag.type = "button";
    tag.className = "scene-tag";
    const label = o.labels.length ? o.labels[0].text : "?";
    tag.textContent = `#${o.trackingID} ${label}`;
    tag.title = `Object ${o.trackingID}: ${o.labels.slice(0, 3).map((l) => `${l.text} ${Math.round(l.confidence * 100)}%`).join(", ")}. Click for its pictures.`;
    tag.addEventListener("click", () => openSceneObject(o));
    box.append(tag);
    layer.append(box);
  }
}

/** Shows the pictures for one object of the scene (its own strokes only). */
async function openSceneObject(o) {
  const sketch = M.currentSketch(state, true);
  const strokes = o.strokes.map((i) => scene.strokes[i]).filter(Boolean);
  if (!sketch || !strokes.length || !strokes.every((s) => sketch.strokes.includes(s))) return;
  sceneTarget = { sketchId: sketch.id, strokes, trackingID: o.trackingID };
  panelTarget = "scene";
  const title = `Pictures for #${o.trackingID}`;
  panel.show({ guesses: [], suggestions: [] }, { title });
  panel.setPending(true);
  try {
    const body = await post("/api/suggest", { strokes: M.toQuickDraw(strokes), style: styleSelect.value, labels: 5 });
    if (panelTarget !== "scene" || sceneTarget.trackingID !== o.trackingID) return;
    panel.show(body, { title });
    focusStrip();
  } catch (e) {
    if (panelTarget === "scene") say(`No pictures: ${e.message}`, "error");
  } finally {
    if (panelTarget === "scene") panel.setPending(false);
  }
}

/** Swaps the chosen scene object's strokes (only those) for a picture. Undoable. */
async function pickForSceneObject(suggestion, all) {
  const target = sceneTarget;
  if (!target) return;
  picking = true;
  try {
    if (!(await view.images.ready(suggestion.image))) { say("That picture could not be loaded, so nothing was replaced. Try another one.", "error"); return; }
    const next = M.swapStrokesForPicture(state, target.sketchId, target.strokes, suggestion, all);
    if (next === state) { say("That object changed meanwhile; pick it again.", "error"); return; }
    commit(next);
    finishFirstRun();
    // A constant, not a value computed from the one read before the await: a false positive of
    // ESLint 6's require-atomic-updates, which flags every such write (eslint#11899).
    // eslint-disable-next-line require-atomic-updates
    sceneTarget = null;
    panelTarget = "sketch";
    panel.show({ guesses: [], suggestions: [] });
    live.resend(M.recognitionStrokes(state));
  } finally {
    picking = false;
  }
}

// ---- photos -----------------------------------------------------------------------------

const PHOTO_TITLE = "In your photo";
const PHOTO_DIMMED = 0.35;

/** Adds a photo file as a dimmed layer at the back, fitted into the view (selected with the Select
 *  tool; otherwise ready to trace over), then asks the server what it shows. A file that is not a
 *  usable photo changes nothing. */
async function addPhoto(file) {
  let photo;
  try {
    photo = await readPhoto(file);
  } catch (e) {
    say(`Could not add ${file.name || "the file"}: ${e.message}. Nothing was changed.`, "error");
    return;
  }
  const id = state.nextId;
  commit(M.addObject(state, {
    type: "photo", ...viewBox(photo.width / photo.height), src: photo.src, opacity: PHOTO_DIMMED,
    labels: [], classes: [], alternatives: null,
  }));
  if (tool === "select") select(id);
  await analyzePhoto(id, photo.blob);
}

/** The largest box of aspect `aspect` in the visible canvas, below the strip, with room for the
 *  rotation handle above it and the selected object's bar below it. */
function viewBox(aspect) {
  const m = 24, top = Math.min(stripBottom(), view.height / 2);
  const a = camera.toDocument({ x: m, y: top + 2 * m }), b = camera.toDocument({ x: view.width - m, y: view.height - 4 * m });
  return fitRect({ x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y }, aspect, 1, 32 / camera.zoom);
}

/** Where the strip ends (stage coordinates) once it shows a row of pictures. */
function stripBottom() {
  const strip = $("#assist"), end = strip.offsetTop + strip.offsetHeight;
  if (strip.dataset.empty === "false") return end;
  return end - $("#hint").offsetHeight + parseFloat(getComputedStyle($("#suggestions")).height);
}

/** Asks the server what photo `id` shows (sending the downscaled JPEG the photo keeps) and keeps
 *  the answer on the photo, outside undo; it shows while the photo is the strip's target. */
async function analyzePhoto(id, jpeg) {
  panelTarget = id;
  panel.show({ guesses: [], suggestions: [] }, { title: PHOTO_TITLE });
  panel.setPending(true);
  try {
    const answer = await post(`/api/photo?labels=4&perLabel=6&style=${encodeURIComponent(styleSelect.value)}`, jpeg);
    if (!M.find(state, id)) return;   // undone or deleted meanwhile
    commit(M.updateObject(state, id, {
      labels: answer.labels.map(({ text, confidence }) => ({ text, confidence })),
      classes: answer.classes.map(({ label, probability }) => ({ label, probability })),
      alternatives: answer.suggestions,
    }), { record: false });
    if (panelTarget === id) showPhoto(M.find(state, id));
  } catch (e) {
    say(photoProblem(e), "error");
    if (panelTarget === id) panel.show({ guesses: [], suggestions: [] }, { title: PHOTO_TITLE, note: "No pictures for it: trace over it instead." });
  } finally {
    if (panelTarget === id) panel.setPending(false);
  }
}

/** Why the server told nothing about a photo, for the person; the photo stays either way. */
function photoProblem(e) {
  const stays = "The photo stays on the canvas to trace over.";
  if (e.status === 404) return `Photos are not available on this server. ${stays}`;
  if (e.status === undefined || live.state === "offline") return `Offline: the photo can't be recognised now. ${stays}`;
  return `The photo could not be recognised: ${e.message}. ${stays}`;
}

/** Shows what photo `o` shows: the drawing classes as guesses with their pictures, and the photo
 *  model's own labels in the note. */
function showPhoto(o) {
  panelTarget = o.id;
  const labels = o.labels.slice(0, 2).map((l) => `${l.text} ${Math.round(l.confidence * 100)} %`).join(", ");
  const note = !labels ? "" : o.classes.length ? `Photo: ${labels}` : `Photo: ${labels} — no drawing of it`;
  panel.show({ guesses: o.classes, suggestions: o.alternatives }, { title: PHOTO_TITLE, note, action: "adds it over your photo" });
  panel.setPending(false);
}

/** The pictures of a selected photo: those it was offered, or asks the server again. */
async function reopenPhoto(o) {
  if (o.alternatives) { showPhoto(o); focusStrip(); return; }
  const jpeg = await (await fetch(o.src)).blob();
  await analyzePhoto(o.id, jpeg);
  focusStrip();
}

/** Adds a picture on top, over the middle of photo `p` at two fifths of its size, and selects it;
 *  the photo stays. Undoable. */
function placeOverPhoto(p, suggestion, all) {
  const side = Math.min(p.w, p.h) * 0.4, c = centre(p);
  const id = state.nextId;
  commit(M.swapForPicture(state, null, suggestion, all, { x: c.x - side / 2, y: c.y - side / 2, w: side, h: side, rotation: 0 }));
  finishFirstRun();
  select(id);
}

/** Dims the selected photo, or shows it at full strength. Undoable. */
function toggleDim() {
  const o = selected === null ? null : M.find(state, selected);
  if (o && o.type === "photo") commit(M.updateObject(state, o.id, { opacity: o.opacity < 1 ? 1 : PHOTO_DIMMED }));
}

// A file dropped anywhere on the page is taken as a photo; the stage shows where it goes while a
// file is dragged over the page (dragover repeats while it is, so the feedback ends by itself).
let dropTimer = 0;
function showDropTarget(on) {
  clearTimeout(dropTimer);
  $("#stage").dataset.dropping = String(on);
  if (on) dropTimer = setTimeout(() => showDropTarget(false), 400);
}
document.addEventListener("dragover", (e) => {
  if (!e.dataTransfer || !e.dataTransfer.types.includes("Files")) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = "copy";
  showDropTarget(true);
});
document.addEventListener("drop", (e) => {
  if (!e.dataTransfer || !e.dataTransfer.files.length) return;
  e.preventDefault();
  showDropTarget(false);
  addPhoto(e.dataTransfer.files[0]);
});

// ---- messages and states ----------------------------------------------------------------

/** Shows a short message over the canvas; kind "error" stays longer. */
function say(text, kind = "info") {
  const el = $("#message");
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 8000 : 3500);
}

const FIRST_RUN_KEY = "sketchwise.firstRunDone";
function firstRunDone() { try { return localStorage.getItem(FIRST_RUN_KEY) === "1"; } catch { return true; } }
function finishFirstRun() {
  $("#first-run").hidden = true;
  try { localStorage.setItem(FIRST_RUN_KEY, "1"); } catch { /* private mode */ }
}

canvasEl.addEventListener("dblclick", (e) => {
  if (tool !== "select") return;
  const o = objectAt(state.objects, camera.toDocument(screenPoint(e)), 8 / camera.zoom);
  if (o && o.type === "text") openTextEditor({ x: o.x, y: o.y }, o);
});

/** The Fill tool on an object: a closed shape or sketch takes the colour; an OpenMoji picture
 *  switches its colour mode; text takes the colour. */
function fill(o) {
  const colour = $("#color").value;
  if (!o) { say("Click a closed shape to fill it, or a picture for its colour mode."); return; }
  if (o.type === "shape" && o.shape !== "line") commit(M.updateObject(state, o.id, { fill: colour }));
  else if (o.type === "sketch" && o.strokes.some(isClosed)) commit(M.updateObject(state, o.id, { fill: colour }));
  else if (o.type === "picture") toggleColour(o);
  else if (o.type === "text") commit(M.updateObject(state, o.id, { color: colour }));
  else say("Fill needs a closed shape: draw one whose ends meet.");
}

function toggleColour(o) {
  if (o.source !== "openmoji") { say("Only OpenMoji line art has a colour mode."); return; }
  const next = { ...o, colour: !o.colour };
  view.images.ready(pictureURL(next)).then((ok) => {
    if (!ok) { say("The picture's colour mode could not be loaded.", "error"); return; }
    if (M.find(state, o.id)) commit(M.updateObject(state, o.id, { colour: next.colour }));
  });
}

// ---- text -------------------------------------------------------------------------------

const TEXT_SIZE = 28;
let textEditing = null;   // {p, object?}

function openTextEditor(p, object = null) {
  closeTextEditor(true);
  const el = $("#text-editor");
  textEditing = { p, object };
  const size = object ? object.size : TEXT_SIZE;
  const s = camera.toScreen(p);
  Object.assign(el.style, { left: `${s.x}px`, top: `${s.y}px`, fontSize: `${size * camera.zoom}px`, color: object ? object.color : $("#color").value });
  el.value = object ? object.text : "";
  el.hidden = false;
  el.rows = Math.max(1, el.value.split("\n").length);
  el.focus();
}

/** Places (keep) or drops the text being typed. */
function closeTextEditor(keep) {
  const el = $("#text-editor");
  if (!textEditing) return;
  const { p, object } = textEditing;
  textEditing = null;
  el.hidden = true;
  const text = el.value.replace(/\s+$/, "");
  if (!keep) return;
  if (object) {
    if (!text) { commit(M.removeObject(state, object.id)); return; }
    if (text === object.text) return;
    const m = measureText(text, object.size);
    commit(M.updateObject(state, object.id, { text, w: m.w, h: m.h }));
  } else if (text) {
    const m = measureText(text, TEXT_SIZE);
    commit(M.addObject(state, { type: "text", x: p.x, y: p.y, w: m.w, h: m.h, text, color: $("#color").value, size: TEXT_SIZE }));
  }
}

$("#text-editor").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); closeTextEditor(true); canvasEl.focus?.(); }
  else if (e.key === "Escape") { e.preventDefault(); closeTextEditor(false); }
  e.stopPropagation();
});
$("#text-editor").addEventListener("input", (e) => { e.target.rows = Math.max(1, e.target.value.split("\n").length); });
$("#text-editor").addEventListener("blur", () => closeTextEditor(true));

// ---- camera -----------------------------------------------------------------------------

function cameraChanged() {
  view.invalidate();
  showScene();
  showSelection();
  if (textEditing) closeTextEditor(true);
  $("#zoom-value").textContent = `${Math.round(camera.zoom * 100)}%`;
}

/** The box of everything drawn, or null. */
const contentBounds = () => objectsBounds(state.objects);

/** Fits the drawing to the view (zooming in too when `grow`). */
function fitToView(grow = false) {
  const box = contentBounds();
  if (!box) { camera.x = 0; camera.y = 0; camera.zoom = 1; }
  else camera.fit(box, view.width, view.height, { grow, margin: Math.min(48, view.width / 10) });
  cameraChanged();
}

/** After a resize or rotation: the whole drawing stays in view. */
function fitIfHidden() {
  const box = contentBounds();
  if (box && !camera.shows(box, view.width, view.height)) fitToView(false);
  else cameraChanged();
}

function zoomBy(factor) {
  camera.zoomAt(factor, { x: view.width / 2, y: view.height / 2 });
  cameraChanged();
}

// ---- files ------------------------------------------------------------------------------

/** The document box exported: the drawing's bounds with a margin, or the view when empty. */
function exportBox() {
  const box = contentBounds();
  if (!box) return { ...camera.toDocument({ x: 0, y: 0 }), w: view.width / camera.zoom, h: view.height / camera.zoom };
  const m = 16;
  return { x: box.x - m, y: box.y - m, w: box.w + 2 * m, h: box.h + 2 * m };
}

async function croppedPNG() {
  await view.picturesReady();
  return renderBox(state.objects, view.images, exportBox(), 2);
}

async function exportPNG() {
  try {
    const canvas = await croppedPNG();
    const blob = await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the browser made no PNG"))), "image/png"));
    download(blob, "sketchwise.png");
  } catch (e) {
    say(`PNG export failed: ${e.message}`, "error");
  }
}

async function exportSVG() {
  download(new Blob([await toSVG(state.objects, exportBox())], { type: "image/svg+xml" }), "sketchwise.svg");
}

function saveNdjson() {
  const strokes = M.allStrokes(state);
  if (!strokes.length) { say("Nothing to export: draw something first."); return; }
  download(new Blob([toNdjson(strokes, panel.topLabel)], { type: "application/x-ndjson" }), "sketchwise.ndjson");
  if (state.objects.some((o) => o.type !== "sketch")) say("Exported the strokes; pictures, shapes and text are kept only by Save (.sketchwise.json).");
}

function saveDocument() {
  autosave.flush();
  download(new Blob([serialize(state.objects, camera.toJSON())], { type: "application/json" }), "drawing.sketchwise.json");
}

/** Opens a document's text (a .sketchwise.json, else ndjson); a bad file changes nothing. */
function openText(text, name = "file") {
  let next;
  try {
    const trimmed = text.trimStart();
    if (trimmed.startsWith("{") && /"format"\s*:\s*"sketchwise"/.test(trimmed.slice(0, 4096))) {
      next = M.fromObjects(parseDocument(text).objects);
    } else {
      const parsed = parseNdjson(text);
      const color = $("#color").value, width = Number($("#width").value);
      next = M.emptyState();
      for (const s of parsed.strokes) next = M.addStroke(next, { color, width, x: s.x, y: s.y, t: s.t }, true);
    }
  } catch (e) {
    const msg = `Could not open ${name}: ${e.message}. Nothing was changed.`;
    say(msg, "error");
    return { ok: false, error: msg };
  }
  select(null);
  const c = M.counts(next);
  say(`Opened ${name}: ${c.objects} object${c.objects === 1 ? "" : "s"}.`);   // a limit message from commit goes over it
  commit(next);
  fitToView(false);
  drawingStart = performance.now() - 1000 - Math.max(0, ...M.allStrokes(state).map((s) => s.t[s.t.length - 1] || 0));
  return { ok: true, objects: c.objects, strokes: c.strokes };
}

async function openFile(file) {
  if (!file) return;
  try {
    openText(await file.text(), file.name);
  } catch (e) {
    say(`Could not read ${file.name}: ${e.message}`, "error");
  }
}

// ---- toolbar and keys -------------------------------------------------------------------

for (const t of ["select", "autodraw", "draw", "shape", "text", "fill"]) $(`#tool-${t}`).addEventListener("click", () => setTool(t));
for (const b of document.querySelectorAll("#shape-kinds button")) b.addEventListener("click", () => setShapeKind(b.dataset.shape));
$("#scene-mode").addEventListener("click", () => setSceneMode(!sceneMode));
$("#undo").addEventListener("click", undo);
$("#redo").addEventListener("click", redo);
$("#erase-last").addEventListener("click", () => {
  const sketch = [...state.objects].reverse().find((o) => o.type === "sketch");
  if (!sketch) return;
  commit(sketch.strokes.length > 1 ? M.removeLastStroke(state, sketch.id) : M.removeObject(state, sketch.id));
});
$("#clear").addEventListener("click", clearAll);
$("#export-png").addEventListener("click", exportPNG);
$("#export-svg").addEventListener("click", exportSVG);
$("#save-ndjson").addEventListener("click", saveNdjson);
$("#save-document").addEventListener("click", saveDocument);
$("#load-ndjson").addEventListener("click", () => $("#load-file").click());
$("#load-file").addEventListener("change", (e) => {
  const file = e.target.files && e.target.files[0];
  openFile(file).finally(() => { e.target.value = ""; });
});
$("#add-photo").addEventListener("click", () => $("#photo-file").click());
$("#photo-file").addEventListener("change", (e) => {
  const file = e.target.files && e.target.files[0];
  if (file) addPhoto(file).finally(() => { e.target.value = ""; });
});
$("#width").addEventListener("input", (e) => { $("#width-value").textContent = e.target.value; });
$("#zoom-in").addEventListener("click", () => zoomBy(1.25));
$("#zoom-out").addEventListener("click", () => zoomBy(0.8));
$("#zoom-fit").addEventListener("click", () => fitToView(true));
$("#help").addEventListener("click", () => $("#shortcuts").showModal());
$("#my-shortcuts").addEventListener("click", () => shortcutDialog.open());
$("#first-run-ok").addEventListener("click", finishFirstRun);
$("#object-suggest").addEventListener("click", reopenSuggestions);
$("#object-colour").addEventListener("click", () => { const o = M.find(state, selected); if (o) toggleColour(o); });
$("#object-dim").addEventListener("click", toggleDim);
$("#object-duplicate").addEventListener("click", duplicateSelected);
$("#object-forward").addEventListener("click", () => selected !== null && commit(M.reorder(state, selected, 1)));
$("#object-back").addEventListener("click", () => selected !== null && commit(M.reorder(state, selected, -1)));
$("#object-delete").addEventListener("click", deleteSelected);

function duplicateSelected() {
  if (selected === null) return;
  const [next, id] = M.duplicateObject(state, selected);
  commit(next);
  select(id);
}

function deleteSelected() {
  if (selected === null) return;
  const id = selected;
  select(null);
  commit(M.removeObject(state, id));
}

/** The colour palette: a swatch sets the pen's colour, and recolours the selected object. */
function setColour(value) {
  $("#color").value = value;
  for (const b of document.querySelectorAll("#palette button")) b.setAttribute("aria-pressed", String(b.dataset.color === value));
  const o = selected === null ? null : M.find(state, selected);
  if (!o) return;
  if (o.type === "sketch") commit(M.updateObject(state, o.id, { strokes: Object.freeze(o.strokes.map((s) => Object.freeze({ ...s, color: value }))) }));
  else if (o.type === "shape" || o.type === "text") commit(M.updateObject(state, o.id, { color: value }));
}
$("#palette").replaceChildren(...PALETTE.map(([value, name]) => {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.color = value;
  b.style.background = value;
  b.title = name;
  b.setAttribute("aria-label", name);
  b.setAttribute("aria-pressed", String(value === $("#color").value));
  b.addEventListener("click", () => setColour(value));
  return b;
}));
$("#color").addEventListener("change", (e) => setColour(e.target.value));

document.addEventListener("keydown", (e) => {
  if (isTyping(e.target) || $("#shortcuts").open) return;
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const act = (f) => { e.preventDefault(); f(); };
  if (mod && key === "z" && !e.shiftKey) act(undo);
  else if (mod && ((key === "z" && e.shiftKey) || key === "y")) act(redo);
  else if (mod && key === "s") act(saveDocument);
  else if (mod && key === "o") act(() => $("#load-file").click());
  else if (mod && key === "d") act(duplicateSelected);
  else if (mod && key === "]") act(() => selected !== null && commit(M.reorder(state, selected, 1)));
  else if (mod && key === "[") act(() => selected !== null && commit(M.reorder(state, selected, -1)));
  else if (mod || e.altKey) return;
  else if ((key === "Delete" || key === "Backspace") && selected !== null) act(deleteSelected);
  else if (key === "Escape") { input.cancel(); select(null); $("#first-run").hidden = firstRunDone() || $("#first-run").hidden; }
  else if (key === "Enter" && selected !== null && e.target === document.body) act(reopenSuggestions);
  else if (key.startsWith("Arrow")) {
    const step = e.shiftKey ? 10 : 1;
    const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
    if (selected !== null) act(() => commit(M.moveObject(state, selected, (dx * step) / camera.zoom, (dy * step) / camera.zoom)));
    else if (e.target === document.body) act(() => { camera.panBy(-dx * 40, -dy * 40); cameraChanged(); });
  } else if (key === "?") act(() => $("#shortcuts").showModal());
  else if (key === "+" || key === "=") act(() => zoomBy(1.25));
  else if (key === "-") act(() => zoomBy(0.8));
  else if (key === "0") act(() => fitToView(true));
  else {
    const tools = { v: "select", a: "autodraw", d: "draw", s: "shape", t: "text", f: "fill" };
    if (tools[key]) act(() => setTool(tools[key]));
  }
});

// ---- start ------------------------------------------------------------------------------

/** Read-only views and a few actions for tests and scripts. */
window.sketchwise = Object.freeze({
  /** PNG data URL of what the canvas shows, at its backing size. */
  exportPNGDataURL: () => view.toDataURL(),
  /** PNG data URL of the export: the drawing cropped to its content, at 2× scale. */
  exportedPNGDataURL: async () => (await croppedPNG()).toDataURL("image/png"),
  /** All strokes on the page, Quick, Draw! raw form. */
  strokes: () => M.toQuickDraw(M.allStrokes(state)),
  /** The current AutoDraw sketch, Quick, Draw! raw form. */
  currentSketch: () => M.toQuickDraw(M.recognitionStrokes(state)),
  /** Placed pictures: {id, label, title, colour, x, y, w, h, rotation}. */
  pictures: () => state.objects.filter((o) => o.type === "picture").map(({ libraryId, label, title, colour, x, y, w, h, rotation }) => ({ id: libraryId, label, title, colour, x, y, w, h, rotation })),
  /** Photos on the canvas: {id, src, opacity, labels, classes, pictures (how many offered), x, y, w, h, rotation}. */
  photos: () => state.objects.filter((o) => o.type === "photo").map(({ alternatives, ...rest }) => ({ ...rest, pictures: alternatives ? alternatives.length : null })),
  /** Every object, back to front (strokes left out): {id, type, x, y, w, h, rotation, …}. */
  objects: () => state.objects.map(({ strokes, sketch, alternatives, ...rest }) => ({ ...rest, strokeCount: strokes ? strokes.length : 0 })),
  selected: () => selected,
  select: (id) => { setTool("select"); select(id); },
  /** Where a document point is on the page (client coordinates). */
  clientPoint: (x, y) => { const r = canvasEl.getBoundingClientRect(), s = camera.toScreen({ x, y }); return { x: r.left + s.x, y: r.top + s.y }; },
  camera: () => camera.toJSON(),
  guesses: () => panel.guesses.slice(),
  suggestions: () => panel.suggestions.slice(),
  status: () => live.state,
  /** Picks the pictures' style (line, emoji, clipart, all) as the menu does. */
  setStyle: (style) => { styleSelect.value = style; styleSelect.dispatchEvent(new Event("change")); },
  canvasSize: () => ({ width: canvasEl.width, height: canvasEl.height, cssWidth: view.width, cssHeight: view.height }),
  /** Resolves when every placed picture has loaded (and been drawn). */
  picturesReady: () => view.picturesReady(),
  svg: () => toSVG(state.objects, exportBox()),
  ndjson: () => toNdjson(M.allStrokes(state), panel.topLabel),
  documentText: () => serialize(state.objects, camera.toJSON()),
  loadNdjsonText: (text, name) => openText(text, name),
  openText,
  undo, redo, clear: clearAll, setTool,
  onResult: (f) => { resultListeners.add(f); return () => resultListeners.delete(f); },
  /** The person's shortcuts as last listed: [{label, examples}]. */
  shortcuts: () => personal.shortcuts.slice(),
  refreshModelInfo: () => modelInfo.refresh(),
  setSceneMode,
  /** The objects of the scene as last found: [{frame, trackingID, labels, strokes}]. */
  sceneObjects: () => scene.objects.slice(),
  onScene: (f) => { sceneListeners.add(f); return () => sceneListeners.delete(f); },
});

// The pictures' style, kept for the next visit.
const savedStyle = (() => { try { return localStorage.getItem("sketchwise.style"); } catch { return null; } })();
if (savedStyle && [...styleSelect.options].some((o) => o.value === savedStyle)) styleSelect.value = savedStyle;
live.setStyle(styleSelect.value);
styleSelect.addEventListener("change", () => {
  try { localStorage.setItem("sketchwise.style", styleSelect.value); } catch { /* private mode: not kept */ }
  live.setStyle(styleSelect.value);
});

// The autosaved drawing comes back; one that can't be read is set aside, not lost.
const saved = Autosave.load();
if (saved) {
  try {
    const doc = parseDocument(saved);
    state = M.fromObjects(doc.objects);
    camera.restore(doc.camera);
  } catch (e) {
    Autosave.setAside(saved);
    say(`The autosaved drawing could not be restored (${e.message}); it was kept aside in the browser's storage.`, "error");
  }
}

setTool("autodraw");
refresh();
personal.refresh().catch(() => {});
modelInfo.start();
fitIfHidden();
live.start();
