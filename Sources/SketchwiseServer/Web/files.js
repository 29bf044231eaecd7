// The document in and out of files: Save (.sketchwise.json), Open (a .sketchwise.json document or
// Quick, Draw! ndjson; a bad file changes nothing), and the exports (PNG cropped to the drawing at
// 2×, stand-alone SVG, the strokes as ndjson).

import * as M from "./model.js";
import { renderBox } from "./canvas.js";
import { download, toSVG, toNdjson, parseNdjson } from "./export.js";
import { serialize, parseDocument } from "./document.js";
import { t } from "./i18n.js";

export class Files {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
  }

  get doc() { return this.ctx.ui.state.doc; }

  /** The document box exported: the drawing's bounds with a margin, or the view when empty. */
  exportBox() {
    const { viewport, camera, view } = this.ctx;
    const box = viewport.contentBounds();
    if (!box) return { ...camera.toDocument({ x: 0, y: 0 }), w: view.width / camera.zoom, h: view.height / camera.zoom };
    const m = 16;
    return { x: box.x - m, y: box.y - m, w: box.w + 2 * m, h: box.h + 2 * m };
  }

  /** A canvas of the export: the drawing cropped to its content, at 2× scale. */
  async croppedPNG() {
    const { view } = this.ctx;
    await view.picturesReady();
    return renderBox(this.doc.objects, view.images, this.exportBox(), 2);
  }

  async exportPNG() {
    try {
      const canvas = await this.croppedPNG();
      const blob = await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(t("export.noPNG")))), "image/png"));
      download(blob, "sketchwise.png");
    } catch (e) {
      this.ctx.say(t("export.failed", { reason: e.message }), "error");
    }
  }

  /** The stand-alone SVG of the drawing. */
  svg() { return toSVG(this.doc.objects, this.exportBox()); }

  async exportSVG() {
    download(new Blob([await this.svg()], { type: "image/svg+xml" }), "sketchwise.svg");
  }

  /** Every stroke as Quick, Draw! ndjson (the strip's top guess as its word). */
  ndjson() { return toNdjson(M.allStrokes(this.doc), this.ctx.panel.topLabel); }

  saveNdjson() {
    const { say } = this.ctx;
    if (!M.allStrokes(this.doc).length) { say(t("export.nothing")); return; }
    download(new Blob([this.ndjson()], { type: "application/x-ndjson" }), "sketchwise.ndjson");
    if (this.doc.objects.some((o) => o.type !== "sketch")) say(t("export.strokesOnly"));
  }

  /** The document's .sketchwise.json text. */
  documentText() { return serialize(this.doc.objects, this.ctx.camera.toJSON()); }

  saveDocument() {
    this.ctx.autosave.flush();
    download(new Blob([this.documentText()], { type: "application/json" }), `${t("files.documentName")}.sketchwise.json`);
  }

  /** Opens a document's text (a .sketchwise.json, else ndjson); a bad file changes nothing. */
  openText(text, name = t("files.theFile")) {
    const { $, say, editor, viewport, ui } = this.ctx;
    let next;
    let others = 0;
    try {
      const trimmed = text.trimStart();
      if (trimmed.startsWith("{") && /"format"\s*:\s*"sketchwise"/.test(trimmed.slice(0, 4096))) {
        next = M.fromObjects(parseDocument(text).objects);
      } else {
        const parsed = parseNdjson(text);
        others = parsed.others;
        const color = $("#color").value, width = Number($("#width").value);
        next = M.emptyState();
        for (const s of parsed.strokes) next = M.addStroke(next, { color, width, x: s.x, y: s.y, t: s.t }, true);
      }
    } catch (e) {
      const msg = t("files.notOpened", { name, reason: e.message });
      say(msg, "error");
      return { ok: false, error: msg };
    }
    editor.select(null);
    const c = M.counts(next);
    // A limit message from the change goes over it.
    say(others ? t("files.openedFirst", { name, count: others + 1 }) : t("files.opened", { name, count: c.objects }));
    editor.change(next);
    viewport.fit(false);
    const last = Math.max(0, ...M.allStrokes(this.doc).map((s) => s.t[s.t.length - 1] || 0));
    ui.commit({ drawingStart: performance.now() - 1000 - last });
    return { ok: true, objects: c.objects, strokes: c.strokes };
  }

  /** Opens a file picked with Open or dropped on the page: an image is added as a photo (Photos
   *  says which kinds it takes), anything else is opened as a document. */
  async openFile(file) {
    if (!file) return;
    if (await isImage(file)) return this.ctx.photos.add(file);
    try {
      this.openText(await file.text(), file.name);
    } catch (e) {
      this.ctx.say(t("files.notRead", { name: file.name, reason: e.message }), "error");
    }
  }
}

/** The first bytes of the image formats a browser or camera may hand over. */
const IMAGE_SIGNATURES = [[0x89, 0x50, 0x4e, 0x47], [0xff, 0xd8, 0xff], [0x47, 0x49, 0x46, 0x38], [0x42, 0x4d], [0x52, 0x49, 0x46, 0x46]];

/** Whether `file` is an image: by its type, or, when it has none, by its first bytes. */
async function isImage(file) {
  if (file.type) return file.type.startsWith("image/") && file.type !== "image/svg+xml";
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return IMAGE_SIGNATURES.some((signature) => signature.every((byte, i) => head[i] === byte));
}
