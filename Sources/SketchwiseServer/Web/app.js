// The composition root of the editor: makes the parts (the one UI state, the camera and canvas,
// pointer input, the selection frame, live recognition and the strip, the person's shortcuts,
// autosave) and the modules that work on them, wires them together, tells each listener of the UI
// state what to draw after a commit, and starts: the autosaved drawing, the server's limits, the
// live connection. What each module does is in its header; ui-state.js says how state changes.

import * as M from "./model.js";
import { UIState, Tool } from "./ui-state.js";
import { Camera } from "./camera.js";
import { SceneCanvas, objectAt } from "./canvas.js";
import { PointerInput, letGoAfterPointerChoice } from "./input.js";
import { SelectionFrame } from "./selection.js";
import { History } from "./history.js";
import { LiveClient } from "./live.js";
import { SuggestionPanel } from "./panel.js";
import { parseDocument, Autosave } from "./document.js";
import { PersonalClient, ShortcutDialog } from "./personal.js";
import { ModelInfo } from "./model-info.js";
import { loadLimits } from "./server.js";
import { Notices } from "./notices.js";
import { Editor } from "./editor.js";
import { Recognition } from "./recognition.js";
import { Strip } from "./strip.js";
import { SceneMode } from "./scene-mode.js";
import { Photos } from "./photos.js";
import { TextEditing } from "./text-editing.js";
import { Viewport } from "./viewport.js";
import { Files } from "./files.js";
import { Toolbar } from "./toolbar.js";
import { OverflowMenu } from "./overflow.js";
import { PictureSearch } from "./search.js";
import { keepAppShell } from "./offline.js";
import { installTestHook } from "./test-hook.js";
import { setLocale, preferredLocale, onLocaleChange, t } from "./i18n.js";
import { kept, keep } from "./storage.js";

const $ = (sel) => document.querySelector(sel);

// The person's language first: every part says what it says in it.
await setLocale(preferredLocale());

// The autosaved drawing comes back; one that can't be read is set aside (and said, below), not lost.
const saved = Autosave.load();
let restored = null, restoreError = null;
if (saved) {
  try {
    const doc = parseDocument(saved);
    restored = { doc: M.fromObjects(doc.objects), camera: doc.camera };
  } catch (e) {
    restoreError = e;
  }
}

/** The app's parts, shared by every module (each reads the others' at call time). */
const ctx = {
  $,
  ui: new UIState(restored ? restored.doc : M.emptyState()),
  canvasEl: $("#canvas"),
  camera: new Camera(),
  history: new History(),
  styleSelect: $("#style"),
  personal: new PersonalClient(),
  modelInfo: new ModelInfo($("#model-info"), $("#model-list")),
  resultListeners: new Set(),   // window.sketchwise.onResult
  sceneListeners: new Set(),    // window.sketchwise.onScene
};
const { ui, canvasEl, camera, personal } = ctx;
ctx.notices = new Notices($);
ctx.say = (text, kind) => ctx.notices.say(text, kind);
ctx.screenPoint = (e) => {
  const r = canvasEl.getBoundingClientRect();
  return { x: e.clientX - r.left, y: e.clientY - r.top };
};
if (restored) {
  try { camera.restore(restored.camera); } catch (e) { restoreError = e; }
}

ctx.view = new SceneCanvas(canvasEl, camera, () => ctx.viewport.fitIfHidden());
ctx.autosave = new Autosave((text) => ctx.say(text, "error"));
ctx.editor = new Editor(ctx);
ctx.recognition = new Recognition(ctx);
ctx.strip = new Strip(ctx);
ctx.scene = new SceneMode(ctx);
ctx.photos = new Photos(ctx);
ctx.text = new TextEditing(ctx);
ctx.viewport = new Viewport(ctx);
ctx.files = new Files(ctx);
ctx.toolbar = new Toolbar(ctx);
ctx.search = new PictureSearch(ctx);
const { view, editor, recognition, strip, scene, viewport } = ctx;

const onSketch = () => ui.state.target.kind === "sketch";

ctx.frame = new SelectionFrame($("#selection"), camera, {
  toDocument: (e) => camera.toDocument(ctx.screenPoint(e)),
  onEditUpdate: (o) => { view.setPreview(o); editor.placeObjectBar(o); },
  onEditEnd: (o) => {
    const patch = { x: o.x, y: o.y, w: o.w, h: o.h, rotation: o.rotation };
    if (o.type === "text") patch.size = o.size;
    editor.change(M.updateObject(ui.state.doc, o.id, patch));
  },
});

ctx.panel = new SuggestionPanel($("#assist"), (s, all) => strip.pick(s, all), (label, rank) => {
  // A guess chosen over the first is a correction of the recogniser (kept for training).
  if (rank > 0 && onSketch()) personal.correct(label, M.toQuickDraw(M.recognitionStrokes(ui.state.doc)), "guess").catch(() => {});
});
const { panel } = ctx;
ctx.shortcutDialog = new ShortcutDialog($("#my-shortcuts-dialog"), personal, () => panel.suggestions);

ctx.live = new LiveClient({
  onResult: (r) => {
    if (!onSketch() || !M.recognitionStrokes(ui.state.doc).length) return;   // a swap, clear or selection happened meanwhile
    recognition.answered();
    panel.show(r);
    if (r.suggestions && r.suggestions.length) ctx.notices.offerFirstRun();
    ctx.resultListeners.forEach((f) => f(r));
  },
  onStatus: (s, text, detail) => {
    const el = $("#status");
    el.dataset.state = s;
    el.textContent = text;
    el.title = detail || "";
    $("#offline-banner").hidden = s !== "offline";
    if (s === "offline" && onSketch() && panel.suggestions.length) panel.setStale(true);
  },
  onError: (error) => recognition.failed(error),
  onPending: (on) => { if (onSketch()) panel.setPending(on && M.recognitionStrokes(ui.state.doc).length > 0); },
  onScene: (objects, strokes) => {
    if (scene.found(objects, strokes)) ctx.sceneListeners.forEach((f) => f(objects));
  },
});
const { live } = ctx;

ctx.input = new PointerInput(canvasEl, {
  tool: () => ui.state.tool,
  pen: () => ({ color: $("#color").value, width: Number($("#width").value) }),
  shapeKind: () => ui.state.shapeKind,
  timeOrigin: () => {
    if (ui.state.drawingStart === null) ui.commit({ drawingStart: performance.now() - 1 });
    return ui.state.drawingStart;
  },
  toDocument: (p) => camera.toDocument(p),
  zoom: () => camera.zoom,
  pan: (dx, dy) => viewport.panBy(dx, dy),
  zoomAt: (factor, at) => viewport.zoomAt(factor, at),
  objectAt: (p, slop) => objectAt(ui.state.doc.objects, p, slop),
  selectableAt: (p, slop) => scene.selectableAt(p, slop),
  onStrokeUpdate: (s) => { view.setLive(s); scene.penBusy(); },
  onStrokeEnd: (s) => {
    scene.penBusy();
    if (!onSketch()) editor.select(null);
    // AutoDraw strokes form objects as they are drawn; in scene mode the server splits them instead.
    const autodraw = ui.state.tool === Tool.autodraw;
    editor.change(autodraw && !ui.state.sceneMode ? M.addGroupedStroke(ui.state.doc, s) : M.addStroke(ui.state.doc, s, autodraw));
  },
  onShapeUpdate: (o) => view.setPreview(o),
  onShapeEnd: (o) => { const { id, ...shape } = o; editor.change(M.addObject(ui.state.doc, shape)); },
  onSelect: (o) => editor.select(o ? o.id : null),
  onMoveUpdate: (m) => {
    if (!m) { view.setPreview(null); editor.showSelection(); return; }
    const moved = M.movedObject(M.find(ui.state.doc, m.id), m.dx, m.dy);
    view.setPreview(moved);
    ctx.frame.show(moved);
    editor.placeObjectBar(moved);
  },
  onMoveEnd: (m) => editor.change(M.moveObject(ui.state.doc, m.id, m.dx, m.dy)),
  onFill: (o) => editor.fill(o),
  onText: (p) => ctx.text.open(p),
});

// ---- what each commit draws -----------------------------------------------------------------

ui.subscribe((s, prev, how) => {
  if (s.tool !== prev.tool || s.shapeKind !== prev.shapeKind) ctx.toolbar.render();
  if (s.sceneMode !== prev.sceneMode || s.scene !== prev.scene) scene.render();
  if (s.selected !== prev.selected) editor.showSelection();
  // A document change is drawn, counted, asked about and saved; a quiet one (where the next
  // stroke goes) is none of those.
  if (s.doc !== prev.doc && !how.quiet) { editor.refresh(); editor.saveLater(); }
});

// ---- start ----------------------------------------------------------------------------------

ctx.toolbar.wire();
// The bars never overflow: what doesn't fit goes into their "more" menus.
ctx.filesMenu = new OverflowMenu($(".files"), $("#files-more"), $("#files-menu"));
ctx.railMenu = new OverflowMenu($(".rail"), $("#rail-more"), $("#rail-menu"));
installTestHook(ctx);

// The pictures' style, kept for the next visit.
const { styleSelect } = ctx;
const savedStyle = kept("sketchwise.style");
if (savedStyle && [...styleSelect.options].some((o) => o.value === savedStyle)) styleSelect.value = savedStyle;
live.setStyle(styleSelect.value);
panel.style = styleSelect.value;
styleSelect.addEventListener("change", () => {
  keep("sketchwise.style", styleSelect.value);
  live.setStyle(styleSelect.value);
  panel.style = styleSelect.value;
  ctx.search.refresh();
});
letGoAfterPointerChoice(styleSelect);

// Another language: the page's markup is filled again (i18n.js); what the modules wrote is written
// again, the server is asked again in it, and the bars are fitted to the new words.
onLocaleChange((tag) => {
  $("#language").value = tag;
  panel.render();
  ctx.modelInfo.render();
  ctx.toolbar.showWidth();
  viewport.showZoom();
  scene.render();
  editor.showSelection();
  live.setLanguage(tag);
  ctx.search.refresh();
  ctx.filesMenu.fit();
  ctx.railMenu.fit();
});

if (restoreError) {
  Autosave.setAside(saved);
  ctx.say(t("autosave.unreadable", { reason: restoreError.message }), "error");
}

ctx.toolbar.render();
ctx.toolbar.setTool(Tool.autodraw);
scene.restore();
editor.refresh();
personal.refresh().catch(() => {});
ctx.modelInfo.start();
viewport.fitIfHidden();
live.start();
keepAppShell();
// The server's limits, asked once: from then on the app holds sketches and messages to them.
loadLimits().then((limits) => {
  if (!limits) return;
  live.setLimits(limits);
  recognition.setLimits(limits);
});
