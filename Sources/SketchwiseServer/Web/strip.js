// What the "Do you mean" strip is for, and what picking one of its pictures does: the strip's
// target (ui-state.js's Target) is the current sketch, a selected object or the picture just
// placed, or one object of the scene; a pick swaps the sketch or object for the picture once the
// picture has loaded (never one that can't be loaded), adds it over a photo, swaps a scene
// object's strokes (scene-mode.js), or, with nothing to replace (a picture found by a search),
// places it in the middle of the view.

import * as M from "./model.js";
import { Target, Tool, targetsObject } from "./ui-state.js";
import { post, errorText } from "./server.js";
import { t } from "./i18n.js";
import { altText } from "./panel.js";

const NOTHING = Object.freeze({ guesses: [], suggestions: [] });

export class Strip {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
  }

  /** Shows the other pictures a placed picture was offered with; the strip is for it now. */
  showAlternatives(o) {
    const { ui, panel } = this.ctx;
    ui.commit({ target: Target.object(o.id) });
    // One chip per label, in the person's language as the pictures were named.
    const labels = [...new Map(o.alternatives.map((s) => [s.label, { label: s.label, display: s.display }])).values()];
    panel.show({ guesses: labels, suggestions: o.alternatives }, { title: () => t("strip.title.other"), current: o.libraryId });
    panel.setPending(false);
  }

  /** Moves the focus to the strip's current picture (or its first). */
  focus() {
    const { $ } = this.ctx;
    const first = $("#suggestions button[aria-current='true']") || $("#suggestions button[data-id]");
    if (first) first.focus({ preventScroll: true });
  }

  /** Opens the pictures for the selected object: those offered with it, or asks anew. */
  async reopen() {
    const { ui, panel, photos, recognition, styleSelect, say } = this.ctx;
    const o = ui.state.selected === null ? null : M.find(ui.state.doc, ui.state.selected);
    if (!o) return;
    if (o.type === "photo") { photos.reopenPhoto(o); return; }
    const strokes = o.type === "sketch" ? M.worldStrokes(o) : o.sketch;
    if (o.type === "picture" && o.alternatives && o.alternatives.length) { this.showAlternatives(o); this.focus(); return; }
    if (!strokes || !strokes.length) { say(t("strip.noSketch")); return; }
    const options = { title: () => t("strip.title.object"), current: o.type === "picture" ? o.libraryId : null };
    ui.commit({ target: Target.object(o.id) });
    panel.show(NOTHING, options);
    panel.setPending(true);
    const isTarget = () => targetsObject(ui.state.target, o.id);
    try {
      // Within the server's limits when known (the first strokes); otherwise the server says.
      const asked = strokes.slice(0, recognition.maxStrokes || strokes.length);
      const body = await post("/api/suggest", { strokes: M.toQuickDraw(asked), style: styleSelect.value, labels: 5 });
      if (!isTarget()) return;
      panel.show(body, options);
      this.focus();
    } catch (e) {
      if (isTarget()) say(t("strip.noPictures", { reason: errorText(e) }), "error");
    } finally {
      if (isTarget()) panel.setPending(false);
    }
  }

  /** Replaces the current sketch (or the strip's object) by a picture, once the picture has
   *  loaded; a picture that can't be loaded is never swapped in. With nothing to replace, the
   *  picture is placed in the middle of the view. Undoable. */
  async pick(suggestion, all) {
    const { ui, $, view, personal, editor, photos, scene, search, viewport, notices, say, panel } = this.ctx;
    if (ui.state.picking) return;
    const target = ui.state.target;
    if (target.kind === "scene") return scene.pick(suggestion, all);
    const targetId = target.kind === "sketch" ? (M.currentSketch(ui.state.doc, true) || {}).id : target.id;
    ui.commit({ picking: true });
    $("#assist").dataset.loading = "true";
    try {
      const ok = await view.images.ready(suggestion.image);
      if (!ok) { say(t("strip.pictureFailed"), "error"); return; }
      const found = targetId === undefined ? null : M.find(ui.state.doc, targetId);
      if (targetId !== undefined && !found) return;   // undone or deleted meanwhile
      if (found && found.type === "picture" && found.libraryId === suggestion.id) return;   // already there: no step
      search.clear();   // a picture found is placed: the strip is for it now
      if (found && found.type === "photo") { photos.placeOver(found, suggestion, all); return; }
      const placed = found ? targetId : ui.state.doc.nextId;
      if (found) {
        const alternatives = found.type === "picture" ? found.alternatives || all : all;
        if (found.type === "sketch") personal.correct(suggestion.label, M.toQuickDraw(M.worldStrokes(found))).catch(() => {});
        editor.change(M.swapForPicture(ui.state.doc, targetId, suggestion, alternatives));
      } else {
        editor.change(M.swapForPicture(ui.state.doc, null, suggestion, all, viewport.placementBox()));
      }
      notices.finishFirstRun();
      if (ui.state.tool === Tool.select || ui.state.selected !== null) {
        editor.select(placed);
      } else {
        // The strip now offers the placed picture's others, and a click replaces it in turn;
        // the next sketch takes the strip back (Recognition.recognize).
        this.showAlternatives(M.find(ui.state.doc, placed));
      }
      panel.announce(t("announce.placed", { name: altText(suggestion) }));
      // Focus stays on the button that was used: it now stands for the placed picture.
      const again = document.querySelector(`#suggestions button[data-id="${CSS.escape(suggestion.id)}"]`);
      if (again) again.focus({ preventScroll: true });
    } finally {
      ui.commit({ picking: false });
      delete $("#assist").dataset.loading;
    }
  }
}
