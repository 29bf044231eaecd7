// Edits the document and the selection: each edit is a commit of the next document (kept for undo
// unless told otherwise), after which the canvas, the counts, the undo buttons and the selection
// frame are brought up to date and recognition is asked; undo and redo; selecting an object and
// placing its bar; and the object bar's actions (duplicate, delete, order, colour, fill).

import * as M from "./model.js";
import { Target, Tool } from "./ui-state.js";
import { corners, boundsOfPoints, isClosed } from "./geometry.js";
import { pictureURL } from "./canvas.js";
import { serialize } from "./document.js";
import { t } from "./i18n.js";

const NOTHING = Object.freeze({ guesses: [], suggestions: [] });

/** Moves the keyboard off `from`, a button that has just been disabled (which drops it to the top
 *  of the page): to the nearest button of its group that still takes it, else to `fallback`. */
function passFocus(from, fallback) {
  const usable = (b) => !b.disabled && b.offsetParent !== null;
  const group = [...from.parentElement.querySelectorAll("button")];
  const at = group.indexOf(from);
  const next = group.slice(at + 1).find(usable) || group.slice(0, at).reverse().find(usable);
  (next || fallback)?.focus();
}

export class Editor {
  /** @param {object} ctx  the app's parts (app.js): ui, history, view, camera, panel, live, … */
  constructor(ctx) {
    this.ctx = ctx;
  }

  get doc() { return this.ctx.ui.state.doc; }
  get selectedObject() {
    const { selected, doc } = this.ctx.ui.state;
    return selected === null ? null : M.find(doc, selected) || null;
  }

  // ---- the document ---------------------------------------------------------------------

  /** Makes `next` the document; `record` keeps the old one for undo. */
  change(next, { record = true } = {}) {
    const { ui, history } = this.ctx;
    if (next === ui.state.doc) return;
    if (record) history.record(ui.state.doc);
    ui.commit({ doc: next }, { record });
  }

  /** The rail's button of the tool in use. */
  get toolButton() { return document.querySelector(".tool[aria-pressed='true']"); }

  /** After a document change: draws it, counts it, and asks recognition about the sketch. */
  refresh() {
    const { ui, view, canvasEl, history, $ } = this.ctx;
    if (ui.state.selected !== null && !M.find(ui.state.doc, ui.state.selected)) this.select(null);
    // The strip's object is gone (undone or deleted): the strip follows the sketch again.
    if (ui.state.target.kind === "object" && !M.find(ui.state.doc, ui.state.target.id)) this.followSketch();
    view.setObjects(ui.state.doc.objects);
    const c = M.counts(ui.state.doc);
    canvasEl.dataset.strokeCount = String(c.strokes);
    canvasEl.dataset.pictureCount = String(c.pictures);
    canvasEl.dataset.photoCount = String(c.photos);
    canvasEl.dataset.objectCount = String(c.objects);
    const focused = document.activeElement;
    $("#undo").disabled = !history.canUndo;
    $("#redo").disabled = !history.canRedo;
    $("#erase-last").disabled = !this.lastSketch;
    $("#clear").disabled = c.objects === 0;
    if (focused instanceof HTMLButtonElement && focused.disabled) passFocus(focused, this.toolButton);
    this.showSelection();
    this.ctx.recognition.recognize();
  }

  /** Autosaves the current document soon. */
  saveLater() {
    const { autosave, ui, camera } = this.ctx;
    autosave.schedule(() => serialize(ui.state.doc.objects, camera.toJSON()));
  }

  undo() {
    const { input, text, history, ui } = this.ctx;
    input.cancel();
    text.close(false);
    const undone = ui.state.doc;
    const prev = history.undo(undone);
    if (!prev) return;
    ui.commit({ doc: prev }, { record: false });
    this.ctx.recognition.undone(undone);
    this.offerReturned(undone, prev);
  }

  redo() {
    const { input, text, history, ui } = this.ctx;
    input.cancel();
    text.close(false);
    const before = ui.state.doc;
    const next = history.redo(before);
    if (!next) return;
    ui.commit({ doc: next }, { record: false });
    this.ctx.recognition.redone(next);
    this.offerReturned(before, next);
  }

  /** After an undo or redo from `before` to `after`: a picked picture that it brings back offers
   *  its others in the strip again, as when it was picked (unless an object is selected). */
  offerReturned(before, after) {
    const { ui, strip } = this.ctx;
    if (ui.state.selected !== null || ui.state.target.kind !== "sketch") return;
    const back = after.objects.findLast((o) => o.type === "picture" && o.alternatives && o.alternatives.length && !before.objects.includes(o));
    if (back) strip.showAlternatives(back);
  }

  clearAll() {
    if (!this.doc.objects.length) return;
    this.select(null);
    this.change(M.clearAll(this.doc));
    this.ctx.ui.commit({ drawingStart: null });
  }

  /** The last sketch of the document (what Erase last erases from), or undefined. */
  get lastSketch() {
    return [...this.doc.objects].reverse().find((o) => o.type === "sketch");
  }

  /** Erases the last stroke of the last sketch (the whole sketch when it has one stroke). */
  eraseLast() {
    const sketch = this.lastSketch;
    if (!sketch) return;
    this.change(sketch.strokes.length > 1 ? M.removeLastStroke(this.doc, sketch.id) : M.removeObject(this.doc, sketch.id));
  }

  // ---- the selection --------------------------------------------------------------------

  /** Selects object `id` (null: nothing); a selected picture or photo shows its pictures again,
   *  and with nothing selected the strip follows the sketch again. */
  select(id) {
    const { ui, strip, photos } = this.ctx;
    const o = id === null ? null : M.find(ui.state.doc, id);
    ui.commit({ selected: o ? id : null });
    if (!o) {
      if (ui.state.target.kind !== "sketch") this.followSketch();
    } else if (o.type === "picture" && o.alternatives) {
      strip.showAlternatives(o);
    } else if (o.type === "photo" && o.alternatives) {
      photos.showPhoto(o);
    }
    this.showSelection();   // again: the strip may have changed, and the bar keeps clear of it
  }

  /** Turns the strip back to the current sketch: empty until its guesses come again. */
  followSketch() {
    const { ui, panel, live } = this.ctx;
    ui.commit({ target: Target.sketch });
    panel.show(NOTHING);
    live.resend(M.recognitionStrokes(ui.state.doc));
  }

  /** Draws the selection frame and the object bar for the selected object (or hides them). */
  showSelection() {
    const o = this.selectedObject;
    this.ctx.frame.show(o);
    this.placeObjectBar(o);
  }

  /** Puts the selected object's bar above it (below when there is no room), inside the stage. */
  placeObjectBar(o) {
    const { $, camera } = this.ctx;
    const bar = $("#object-bar");
    if (!o) {
      // The keyboard leaves the bar before it goes, for the tool in use, not the top of the page.
      if (!bar.hidden && bar.contains(document.activeElement)) this.toolButton?.focus();
      bar.hidden = true;
      return;
    }
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
    if (top < 8 || this.coversStrip({ x: left, y: top, w, h }, stage)) top = box.y + box.h + 12;
    bar.style.left = `${left}px`;
    bar.style.top = `${Math.min(top, stage.height - h - 8)}px`;
  }

  /** Whether box `b` of the stage (whose place on the page is `stage`) overlaps the strip. */
  coversStrip(b, stage) {
    const s = this.ctx.$("#assist").getBoundingClientRect(), x = b.x + stage.left, y = b.y + stage.top;
    return x < s.right && x + b.w > s.left && y < s.bottom && y + b.h > s.top;
  }

  // ---- the selected object's actions ----------------------------------------------------

  duplicateSelected() {
    const { selected } = this.ctx.ui.state;
    if (selected === null) return;
    const [next, id] = M.duplicateObject(this.doc, selected);
    this.change(next);
    this.select(id);
  }

  /** Selects the object after (1) or before (-1) the selected one in drawing order, round the
   *  page (the first or the last when none is), with the Select tool: the keyboard's way to what
   *  a press on an object does. */
  selectNext(step) {
    const { objects } = this.doc;
    if (!objects.length) return;
    const at = objects.findIndex((o) => o.id === this.ctx.ui.state.selected);
    const next = at < 0 ? (step > 0 ? 0 : objects.length - 1) : (at + step + objects.length) % objects.length;
    this.ctx.toolbar.setTool(Tool.select);
    this.select(objects[next].id);
  }

  deleteSelected() {
    const { selected } = this.ctx.ui.state;
    if (selected === null) return;
    this.select(null);
    this.change(M.removeObject(this.doc, selected));
  }

  /** Brings the selected object one step forward (1) or back (-1). */
  reorderSelected(step) {
    const { selected } = this.ctx.ui.state;
    if (selected !== null) this.change(M.reorder(this.doc, selected, step));
  }

  /** Moves the selected object by (dx, dy) document units. */
  moveSelected(dx, dy) {
    const { selected } = this.ctx.ui.state;
    if (selected !== null) this.change(M.moveObject(this.doc, selected, dx, dy));
  }

  /** A colour of the palette: the pen's colour, and the selected object's (a picture or photo
   *  keeps its own, and the person is told so). */
  setColour(value) {
    const { $, say } = this.ctx;
    $("#color").value = value;
    for (const b of document.querySelectorAll("#palette button")) b.setAttribute("aria-pressed", String(b.dataset.color === value));
    const o = this.selectedObject;
    if (!o) return;
    if (o.type === "sketch") this.change(M.updateObject(this.doc, o.id, { strokes: Object.freeze(o.strokes.map((s) => Object.freeze({ ...s, color: value }))) }));
    else if (o.type === "shape" || o.type === "text") this.change(M.updateObject(this.doc, o.id, { color: value }));
    else say(t("fill.pictureKeepsColours"));
  }

  /** The Fill tool on an object: a closed shape or sketch takes the colour; an OpenMoji picture
   *  switches its colour mode; text takes the colour. */
  fill(o) {
    const { $, say } = this.ctx;
    const colour = $("#color").value;
    if (!o) { say(t("fill.nothing")); return; }
    if (o.type === "shape" && o.shape !== "line") this.change(M.updateObject(this.doc, o.id, { fill: colour }));
    else if (o.type === "sketch" && o.strokes.some(isClosed)) this.change(M.updateObject(this.doc, o.id, { fill: colour }));
    else if (o.type === "picture") this.toggleColour(o);
    else if (o.type === "text") this.change(M.updateObject(this.doc, o.id, { color: colour }));
    else say(t("fill.notClosed"));
  }

  /** Switches an OpenMoji picture between line art and colour, once the other has loaded. */
  toggleColour(o) {
    const { view, say } = this.ctx;
    if (o.source !== "openmoji") { say(t("fill.noColourMode")); return; }
    const next = { ...o, colour: !o.colour };
    view.images.ready(pictureURL(next)).then((ok) => {
      if (!ok) { say(t("fill.colourFailed"), "error"); return; }
      if (M.find(this.doc, o.id)) this.change(M.updateObject(this.doc, o.id, { colour: next.colour }));
    });
  }
}
