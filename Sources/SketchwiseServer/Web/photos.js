// Photos in the editor: a photo file (picked, or opened or dropped anywhere on the page) is read by
// photo.js, added as a dimmed layer at the back fitted into the view, and sent to POST /api/photo;
// what the server says it shows (its labels, the drawing classes and their pictures, named in the
// person's language) is kept on the photo and shown in the strip, where a picture picked is added
// over the photo.

import * as M from "./model.js";
import { Target, Tool, targetsObject } from "./ui-state.js";
import { fitRect, centre } from "./geometry.js";
import { readPhoto } from "./photo.js";
import { post, errorText } from "./server.js";
import { t, formatPercent, formatList } from "./i18n.js";

const photoTitle = () => t("photo.title");
const PHOTO_DIMMED = 0.35;

export class Photos {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.dropTimer = 0;
    // A file dropped anywhere on the page is opened as Open opens it (an image as a photo, else as a
    // document); the stage shows where it goes while a file is dragged over the page (dragover
    // repeats while it is, so the feedback ends by itself).
    document.addEventListener("dragover", (e) => {
      if (!e.dataTransfer || !e.dataTransfer.types.includes("Files")) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
      this.showDropTarget(true);
    });
    document.addEventListener("drop", (e) => {
      if (!e.dataTransfer || !e.dataTransfer.files.length) return;
      e.preventDefault();
      this.showDropTarget(false);
      this.ctx.files.openFile(e.dataTransfer.files[0]);
    });
  }

  showDropTarget(on) {
    clearTimeout(this.dropTimer);
    this.ctx.$("#stage").dataset.dropping = String(on);
    if (on) this.dropTimer = setTimeout(() => this.showDropTarget(false), 400);
  }

  /** Adds a photo file as a dimmed layer at the back, fitted into the view (selected with the
   *  Select tool; otherwise ready to trace over), then asks the server what it shows. A file that
   *  is not a usable photo changes nothing. */
  async add(file) {
    const { ui, editor, say } = this.ctx;
    let photo;
    try {
      photo = await readPhoto(file);
    } catch (e) {
      say(t("photo.notAdded", { name: file.name || t("photo.theFile"), reason: e.message }), "error");
      return;
    }
    const id = ui.state.doc.nextId;
    editor.change(M.addObject(ui.state.doc, {
      type: "photo", ...this.viewBox(photo.width / photo.height), src: photo.src, opacity: PHOTO_DIMMED,
      labels: [], classes: [], alternatives: null,
    }));
    if (ui.state.tool === Tool.select) editor.select(id);
    await this.analyze(id, photo.blob);
  }

  /** The largest box of aspect `aspect` in the part of the canvas the strip leaves clear, with
   *  room for the rotation handle above it and the selected object's bar below it. */
  viewBox(aspect) {
    const { viewport, camera } = this.ctx;
    const m = 24, clear = viewport.clearArea();
    const a = camera.toDocument({ x: clear.left + m, y: clear.top + 2 * m });
    const b = camera.toDocument({ x: clear.left + clear.width - m, y: clear.top + clear.height - 4 * m });
    return fitRect({ x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y }, aspect, 1, 32 / camera.zoom);
  }

  /** Asks the server what photo `id` shows (sending the downscaled JPEG the photo keeps) and keeps
   *  the answer on the photo, outside undo; it shows while the photo is the strip's target. */
  async analyze(id, jpeg) {
    const { ui, panel, editor, styleSelect, say } = this.ctx;
    ui.commit({ target: Target.object(id) });
    panel.show({ guesses: [], suggestions: [] }, { title: photoTitle });
    panel.setPending(true);
    const isTarget = () => targetsObject(ui.state.target, id);
    try {
      const answer = await post("/api/photo", jpeg, { labels: 4, perLabel: 6, style: styleSelect.value });
      if (!M.find(ui.state.doc, id)) return;   // undone or deleted meanwhile
      editor.change(M.updateObject(ui.state.doc, id, {
        labels: answer.labels.map(({ text, display, confidence }) => ({ text, ...(display ? { display } : {}), confidence })),
        classes: answer.classes.map(({ label, display, probability }) => ({ label, ...(display ? { display } : {}), probability })),
        alternatives: answer.suggestions,
      }), { record: false });
      if (isTarget()) this.showPhoto(M.find(ui.state.doc, id));
    } catch (e) {
      say(this.problem(e), "error");
      if (isTarget()) panel.show({ guesses: [], suggestions: [] }, { title: photoTitle, note: () => t("photo.noPictures") });
    } finally {
      if (isTarget()) panel.setPending(false);
    }
  }

  /** Why the server told nothing about a photo, for the person; the photo stays either way. */
  problem(e) {
    if (e.status === 404) return t("photo.unavailable");
    if (e.status === undefined || this.ctx.live.state === "offline") return t("photo.offline");
    return t("photo.failed", { reason: errorText(e) });
  }

  /** Shows what photo `o` shows: the drawing classes as guesses with their pictures, and the photo
   *  model's own labels in the note. */
  showPhoto(o) {
    const { ui, panel } = this.ctx;
    ui.commit({ target: Target.object(o.id) });
    // The model's labels, and where the pictures come from: the drawing classes of those labels,
    // else pictures found by the labels' names, else none.
    const note = () => {
      if (!o.labels.length) return o.alternatives && o.alternatives.length ? "" : t("photo.noPictures");
      const labels = formatList(o.labels.slice(0, 2).map((l) => t("photo.label", { name: l.display || l.text, percent: formatPercent(l.confidence) })), "unit");
      if (!o.alternatives || !o.alternatives.length) return t("photo.note.noPictures", { labels });
      return o.classes.length ? t("photo.note", { labels }) : t("photo.note.byName", { labels });
    };
    panel.show({ guesses: o.classes, suggestions: o.alternatives }, { title: photoTitle, note, action: () => t("photo.action") });
    panel.setPending(false);
  }

  /** The pictures of a selected photo: those it was offered, or asks the server again. */
  async reopenPhoto(o) {
    const { strip } = this.ctx;
    if (o.alternatives) { this.showPhoto(o); strip.focus(); return; }
    const jpeg = await (await fetch(o.src)).blob();
    await this.analyze(o.id, jpeg);
    strip.focus();
  }

  /** Adds a picture on top, over the middle of photo `p` at two fifths of its size, and selects
   *  it; the photo stays. Undoable. */
  placeOver(p, suggestion, all) {
    const { ui, editor, notices } = this.ctx;
    const side = Math.min(p.w, p.h) * 0.4, c = centre(p);
    const id = ui.state.doc.nextId;
    editor.change(M.swapForPicture(ui.state.doc, null, suggestion, all, { x: c.x - side / 2, y: c.y - side / 2, w: side, h: side, rotation: 0 }));
    notices.finishFirstRun();
    editor.select(id);
  }

  /** Dims the selected photo, or shows it at full strength. Undoable. */
  toggleDim() {
    const { editor } = this.ctx;
    const o = editor.selectedObject;
    if (o && o.type === "photo") editor.change(M.updateObject(editor.doc, o.id, { opacity: o.opacity < 1 ? 1 : PHOTO_DIMMED }));
  }
}
