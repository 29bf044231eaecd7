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

  /** The band of the canvas that the strip floating over it leaves clear, above or below it,
   *  whichever is taller: {top, height} in CSS pixels of the canvas (the whole canvas when the
   *  strip does not cover it, or leaves less than a third of it). */
  clearBand() {
    const { view, canvasEl, $ } = this.ctx;
    const whole = { top: 0, height: view.height };
    const strip = $("#assist");
    if (!strip || strip.hidden) return whole;
    const c = canvasEl.getBoundingClientRect(), s = strip.getBoundingClientRect();
    const overlaps = s.width > 0 && s.left < c.right && s.right > c.left && s.top < c.bottom && s.bottom > c.top;
    if (!overlaps) return whole;
    const above = s.top - c.top, below = c.bottom - s.bottom;
    const band = above >= below ? { top: 0, height: above } : { top: s.bottom - c.top, height: below };
    return band.height >= view.height / 3 ? band : whole;
  }

  /** A square box (document coordinates) in the middle of the part of the view the strip leaves
   *  clear: where a picture goes when it replaces nothing. */
  placementBox() {
    const { camera, view } = this.ctx;
    const band = this.clearBand();
    const side = (PLACED_SHARE * Math.min(view.width, band.height)) / camera.zoom;
    const c = camera.toDocument({ x: view.width / 2, y: band.top + band.height / 2 });
    return { x: c.x - side / 2, y: c.y - side / 2, w: side, h: side, rotation: 0 };
  }

  /** Fits the drawing to the view, clear of the strip (zooming in too when `grow`). */
  fit(grow = false) {
    const { camera, view } = this.ctx;
    this.ownCamera = null;
    const box = this.contentBounds();
    if (!box) { camera.x = 0; camera.y = 0; camera.zoom = 1; }
    else {
      const band = this.clearBand();
      camera.fit(box, view.width, band.height, { grow, margin: Math.min(48, view.width / 10) });
      camera.y -= band.top / camera.zoom;
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
