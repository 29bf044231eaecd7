// Scene mode: the server boxes, labels and tracks each object of the page's sketch (live, with
// "scene": true; turning it on joins the recognised sketches into one); the boxes are drawn over
// the canvas, each with a tag "#ID label" that opens the pictures for that object's strokes alone,
// and picking one swaps only those strokes. After each stroke the strip shows the pictures of the
// object drawn last.

import * as M from "./model.js";
import { Target, EMPTY_SCENE } from "./ui-state.js";
import { post, errorText } from "./server.js";
import { objectAt } from "./canvas.js";
import { t, formatPercent, formatList } from "./i18n.js";
import { kept, keep } from "./storage.js";

/** A scene object's label in the person's language. */
const labelName = (l) => l.display || l.text;

/** While strokes follow one another, the scene's tags let the pen through (a stroke that starts
 *  on a tag draws instead of opening its pictures); they take clicks again once the pen has
 *  rested for TAG_REST_MS. */
const TAG_REST_MS = 600;

/** Where scene mode is kept for the next visit (the autosaved page holds its joined sketch). */
const STORAGE_KEY = "sketchwise.sceneMode";

export class SceneMode {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.layer = ctx.$("#scene-boxes");
    this.tagRest = 0;
  }

  /** Turns scene mode on or off. On, the page's recognised sketches become one, which the server
 *  splits into objects; off, that sketch is split again into the objects the server found last,
 *  each a sketch of its own as AutoDraw keeps them. Neither is a step of undo. */
  set(on) {
    const { ui, live, editor } = this.ctx;
    const { scene, doc } = ui.state;
    const sketch = M.currentSketch(doc, true);
    const groups = scene.objects.map((o) => o.strokes.map((i) => scene.strokes[i]).filter(Boolean));
    // The strip leaves a scene object's pictures for the current sketch's guesses.
    const target = ui.state.target.kind === "scene" ? Target.sketch : ui.state.target;
    ui.commit({ sceneMode: Boolean(on), scene: EMPTY_SCENE, target });
    keep(STORAGE_KEY, on ? "on" : "off");
    // The page first, so that the server's first state in the new mode is the whole page.
    editor.change(on ? M.joinRecognizedSketches(doc) : sketch ? M.splitSketch(doc, sketch.id, groups) : doc, { record: false });
    live.setScene(Boolean(on));
  }

  toggle() { this.set(!this.ctx.ui.state.sceneMode); }

  /** Turns scene mode back on if it was on when the page was last left. */
  restore() {
    if (kept(STORAGE_KEY) === "on") this.set(true);
  }

  /** What the Select tool takes at `p` (document coordinates). In scene mode the page's sketch
   *  holds every object the server found, so a press on it turns scene mode off first, which
   *  splits it into those objects (as O does), and the one under the pen is taken. */
  selectableAt(p, slop) {
    const { ui, say } = this.ctx;
    const hit = objectAt(ui.state.doc.objects, p, slop);
    const joined = M.currentSketch(ui.state.doc, true);
    if (!hit || !joined || hit.id !== joined.id || !ui.state.sceneMode || ui.state.scene.objects.length < 2) return hit;
    this.set(false);
    say(t("scene.offToSelect"));
    return objectAt(ui.state.doc.objects, p, slop);
  }

  /** The server found the sketch's objects (in the stroke items `strokes` of that message). */
  found(objects, strokes) {
    if (!this.ctx.ui.state.sceneMode) return false;
    this.ctx.ui.commit({ scene: Object.freeze({ objects, strokes }) });
    this.follow(objects);
    return true;
  }

  /** The strip follows the drawing: it shows the pictures of the object that holds the stroke
   *  drawn last, as a tag would (the guesses for the whole page would offer to swap every object
   *  for one picture). A selection or a placed picture's alternatives keep the strip. */
  follow(objects) {
    const { ui } = this.ctx;
    if (ui.state.selected !== null || ui.state.target.kind === "object") return;
    const last = Math.max(-1, ...objects.flatMap((o) => o.strokes));
    const newest = objects.find((o) => o.strokes.includes(last));
    if (newest) this.open(newest, { focus: false });
  }

  /** The pen drew: the tags let it through for a while. */
  penBusy() {
    const layer = this.layer;
    layer.dataset.drawing = "true";
    clearTimeout(this.tagRest);
    this.tagRest = setTimeout(() => { delete layer.dataset.drawing; }, TAG_REST_MS);
  }

  /** Draws the scene's boxes over the canvas (after a change of the scene or of the camera). */
  render() {
    const { ui, camera, canvasEl, $ } = this.ctx;
    const { sceneMode, scene } = ui.state;
    $("#scene-mode").setAttribute("aria-pressed", String(sceneMode));
    const layer = this.layer;
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
      const label = o.labels.length ? labelName(o.labels[0]) : "?";
      tag.textContent = `#${o.trackingID} ${label}`;
      const labels = formatList(o.labels.slice(0, 3).map((l) => t("scene.tag.label", { name: labelName(l), percent: formatPercent(l.confidence) })), "unit");
      tag.title = t("scene.tag.title", { number: o.trackingID, labels });
      tag.addEventListener("click", () => this.open(o));
      box.append(tag);
      layer.append(box);
    }
  }

  /** Shows the pictures for one object of the scene (its own strokes only); `focus` moves the
   *  keyboard to them (a tag's click does, the strip following the pen does not). */
  async open(o, { focus = true } = {}) {
    const { ui, panel, styleSelect, strip, say } = this.ctx;
    const sketch = M.currentSketch(ui.state.doc, true);
    const strokes = o.strokes.map((i) => ui.state.scene.strokes[i]).filter(Boolean);
    if (!sketch || !strokes.length || !strokes.every((s) => sketch.strokes.includes(s))) return;
    ui.commit({ target: Target.sceneObject(sketch.id, strokes, o.trackingID) });
    const title = () => t("scene.pictures", { number: o.trackingID });
    panel.show({ guesses: [], suggestions: [] }, { title });
    panel.setPending(true);
    const isScene = () => ui.state.target.kind === "scene";
    try {
      const body = await post("/api/suggest", { strokes: M.toQuickDraw(strokes), style: styleSelect.value, labels: 5 });
      if (!isScene() || ui.state.target.trackingID !== o.trackingID) return;
      panel.show(body, { title });
      if (focus) strip.focus();
    } catch (e) {
      if (isScene()) say(t("strip.noPictures", { reason: errorText(e) }), "error");
    } finally {
      if (isScene()) panel.setPending(false);
    }
  }

  /** Swaps the chosen scene object's strokes (only those) for a picture. Undoable. */
  async pick(suggestion, all) {
    const { ui, view, editor, notices, panel, live, say } = this.ctx;
    const target = ui.state.target;
    if (target.kind !== "scene") return;
    ui.commit({ picking: true });
    try {
      if (!(await view.images.ready(suggestion.image))) { say(t("strip.pictureFailed"), "error"); return; }
      const next = M.swapStrokesForPicture(ui.state.doc, target.sketchId, target.strokes, suggestion, all);
      if (next === ui.state.doc) { say(t("scene.changed"), "error"); return; }
      editor.change(next);
      notices.finishFirstRun();
      ui.commit({ target: Target.sketch });
      panel.show({ guesses: [], suggestions: [] });
      live.resend(M.recognitionStrokes(ui.state.doc));
    } finally {
      ui.commit({ picking: false });
    }
  }
}
