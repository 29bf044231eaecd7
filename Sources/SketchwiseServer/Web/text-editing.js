// Typing text on the canvas: the Text tool's click (or a double click on a text object with the
// Select tool) opens an editor in place, at the camera's zoom; Enter or leaving it places the text
// (an emptied text object is removed), Escape drops it. Shift+Enter starts a new line.

import * as M from "./model.js";
import { Tool } from "./ui-state.js";
import { objectAt, measureText } from "./canvas.js";

const TEXT_SIZE = 28;

export class TextEditing {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    const el = ctx.$("#text-editor");
    this.el = el;
    el.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); this.close(true); ctx.canvasEl.focus?.(); }
      else if (e.key === "Escape") { e.preventDefault(); this.close(false); }
      e.stopPropagation();
    });
    el.addEventListener("input", (e) => { e.target.rows = Math.max(1, e.target.value.split("\n").length); });
    el.addEventListener("blur", () => this.close(true));
    ctx.canvasEl.addEventListener("dblclick", (e) => {
      const { ui, camera } = ctx;
      if (ui.state.tool !== Tool.select) return;
      const o = objectAt(ui.state.doc.objects, camera.toDocument(ctx.screenPoint(e)), 8 / camera.zoom);
      if (o && o.type === "text") this.open({ x: o.x, y: o.y }, o);
    });
  }

  /** Whether text is being typed. */
  get active() { return this.ctx.ui.state.textEditing !== null; }

  /** Opens the editor at document point `p`, on text object `object` (null: new text). */
  open(p, object = null) {
    const { ui, camera, $ } = this.ctx;
    this.close(true);
    const el = this.el;
    ui.commit({ textEditing: Object.freeze({ p, object }) });
    const size = object ? object.size : TEXT_SIZE;
    const s = camera.toScreen(p);
    Object.assign(el.style, { left: `${s.x}px`, top: `${s.y}px`, fontSize: `${size * camera.zoom}px`, color: object ? object.color : $("#color").value });
    el.value = object ? object.text : "";
    el.hidden = false;
    el.rows = Math.max(1, el.value.split("\n").length);
    el.focus();
  }

  /** Places (keep) or drops the text being typed. */
  close(keep) {
    const { ui, editor, $ } = this.ctx;
    const editing = ui.state.textEditing;
    if (!editing) return;
    const { p, object } = editing;
    ui.commit({ textEditing: null });
    const el = this.el;
    el.hidden = true;
    const text = el.value.replace(/\s+$/, "");
    if (!keep) return;
    if (object) {
      if (!text) { editor.change(M.removeObject(ui.state.doc, object.id)); return; }
      if (text === object.text) return;
      const m = measureText(text, object.size);
      editor.change(M.updateObject(ui.state.doc, object.id, { text, w: m.w, h: m.h }));
    } else if (text) {
      const m = measureText(text, TEXT_SIZE);
      editor.change(M.addObject(ui.state.doc, { type: "text", x: p.x, y: p.y, w: m.w, h: m.h, text, color: $("#color").value, size: TEXT_SIZE }));
    }
  }
}
