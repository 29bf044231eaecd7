// The view onto the document: after the camera moves, the canvas, the scene's boxes, the
// selection frame and the zoom readout follow (text being typed is placed); zooming by steps,
// fitting the drawing into view, keeping it in view after a resize or rotation, and where a
// picture placed with nothing to replace goes.

import { objectsBounds } from "./geometry.js";
import { formatPercent } from "./i18n.js";

const PLACED_SHARE = 0.4;   // a placed picture's side, as a share of the clear part of the view

export class Viewport {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.ownCamera = null;   // the person's view before a smaller window zoomed out to show it all
  }

  /** Everything that hangs on the camera is drawn again. */
  cameraChanged() {
    const { view, scene, editor, text } = this.ctx;
    view.invalidate();
    scene.render();
    editor.showSelection();
    if (text.active) text.close(true);
    this.showZoom();
  }

  /** Shows the zoom as a percentage, as the person's language writes it. */
  showZoom() {
    this.ctx.$("#zoom-value").textContent = formatPercent(this.ctx.camera.zoom);
  }

  /** The box of everything drawn, or null. */
  contentBounds() { return objectsBounds(this.ctx.ui.state.doc.objects); }

  /** The strip's box on the page as it will be once it shows pictures (the hint of an empty
   *  strip gives way to its row of pictures). A row of fixed height (the band across the top)
   *  adds its height; a column of pictures (a short, wide screen) grows as far down as the strip's
   *  holder may: measured by asking the holder for more than it allows. */
  stripRect() {
    const { $ } = this.ctx;
    const strip = $("#assist"), r = strip.getBoundingClientRect();
    if (strip.dataset.empty === "false") return r;
    const row = getComputedStyle($("#suggestions")).height;
    const bottom = row === "auto" ? Math.max(r.bottom, this.tallestBottom(strip.parentElement))
      : r.bottom + Math.max(0, (parseFloat(row) || 0) - $("#hint").offsetHeight);
    return { left: r.left, right: r.right, top: r.top, bottom, width: r.width };
  }

  /** The bottom edge `holder` reaches at its max-height: measured by asking it for more. */
  tallestBottom(holder) {
    const asked = holder.style.height;
    holder.style.height = "100000px";
    const bottom = holder.getBoundingClientRect().bottom;
    holder.style.height = asked;
    return bottom;
  }

  /** The part of the canvas that the strip floating over it leaves clear: the largest of the
   *  bands above, below and to either side of it, {left, top, width, height} in CSS pixels of the
   *  canvas (the whole canvas when the strip does not cover it, or leaves less than a third). */
  clearArea() {
    const { view, canvasEl, $ } = this.ctx;
    const whole = { left: 0, top: 0, width: view.width, height: view.height };
    const strip = $("#assist");
    if (!strip || strip.hidden) return whole;
    const c = canvasEl.getBoundingClientRect(), s = this.stripRect();
    const overlaps = s.width > 0 && s.left < c.right && s.right > c.left && s.top < c.bottom && s.bottom > c.top;
    if (!overlaps) return whole;
    const bands = [
      { left: 0, top: 0, width: view.width, height: s.top - c.top },
      { left: 0, top: s.bottom - c.top, width: view.width, height: c.bottom - s.bottom },
      { left: 0, top: 0, width: s.left - c.left, height: view.height },
      { left: s.right - c.left, top: 0, width: c.right - s.right, height: view.height },
    ];
    const area = (b) => Math.max(0, b.width) * Math.max(0, b.height);
    const best = bands.reduce((a, b) => (area(b) > area(a) ? b : a));
    return area(best) >= area(whole) / 3 ? best : whole;
  }

  /** A square box (document coordinates) in the middle of the part of the view the strip leaves
   *  clear: where a picture goes when it replaces nothing. */
  placementBox() {
    const { camera } = this.ctx;
    const clear = this.clearArea();
    const side = (PLACED_SHARE * Math.min(clear.width, clear.height)) / camera.zoom;
    const c = camera.toDocument({ x: clear.left + clear.width / 2, y: clear.top + clear.height / 2 });
    return { x: c.x - side / 2, y: c.y - side / 2, w: side, h: side, rotation: 0 };
  }

  /** Fits the drawing to the view, clear of the strip (zooming in too when `grow`). */
  fit(grow = false) {
    const { camera } = this.ctx;
    this.ownCamera = null;
    const box = this.contentBounds();
    if (!box) { camera.x = 0; camera.y = 0; camera.zoom = 1; }
    else {
      const clear = this.clearArea();
      camera.fit(box, clear.width, clear.height, { grow, margin: Math.min(48, clear.width / 10) });
      camera.x -= clear.left / camera.zoom;
      camera.y -= clear.top / camera.zoom;
    }
    this.cameraChanged();
  }

  /** After a resize or rotation: the whole drawing stays in view. A smaller view zooms out to
   *  keep it so; a larger one goes back to the person's own view from before that, once that
   *  shows the whole drawing again (until they move the view themselves). */
  fitIfHidden() {
    const { camera, view } = this.ctx;
    const box = this.contentBounds();
    const own = this.ownCamera;
    if (box && own) {
      const now = camera.toJSON();
      camera.restore(own);
      if (camera.shows(box, view.width, view.height)) { this.ownCamera = null; this.cameraChanged(); return; }
      camera.restore(now);
    }
    if (box && !camera.shows(box, view.width, view.height)) {
      const before = own || camera.toJSON();
      this.fit(false);
      this.ownCamera = before;
    } else {
      this.cameraChanged();
    }
  }

  zoomBy(factor) {
    const { camera, view } = this.ctx;
    this.ownCamera = null;
    camera.zoomAt(factor, { x: view.width / 2, y: view.height / 2 });
    this.cameraChanged();
  }

  panBy(dx, dy) {
    this.ownCamera = null;
    this.ctx.camera.panBy(dx, dy);
    this.cameraChanged();
  }

  zoomAt(factor, at) {
    this.ownCamera = null;
    this.ctx.camera.zoomAt(factor, at);
    this.cameraChanged();
  }
}
