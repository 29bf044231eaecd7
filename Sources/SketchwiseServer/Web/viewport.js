// The view onto the document: after the camera moves, the canvas, the scene's boxes, the
// selection frame and the zoom readout follow (text being typed is placed); zooming by steps,
// fitting the drawing into view, and keeping it in view after a resize or rotation.

import { objectsBounds } from "./geometry.js";

export class Viewport {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
  }

  /** Everything that hangs on the camera is drawn again. */
  cameraChanged() {
    const { view, scene, editor, text, camera, $ } = this.ctx;
    view.invalidate();
    scene.render();
    editor.showSelection();
    if (text.active) text.close(true);
    $("#zoom-value").textContent = `${Math.round(camera.zoom * 100)}%`;
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

  /** Fits the drawing to the view, clear of the strip (zooming in too when `grow`). */
  fit(grow = false) {
    const { camera, view } = this.ctx;
    const box = this.contentBounds();
    if (!box) { camera.x = 0; camera.y = 0; camera.zoom = 1; }
    else {
      const band = this.clearBand();
      camera.fit(box, view.width, band.height, { grow, margin: Math.min(48, view.width / 10) });
      camera.y -= band.top / camera.zoom;
    }
    this.cameraChanged();
  }

  /** After a resize or rotation: the whole drawing stays in view. */
  fitIfHidden() {
    const { camera, view } = this.ctx;
    const box = this.contentBounds();
    if (box && !camera.shows(box, view.width, view.height)) this.fit(false);
    else this.cameraChanged();
  }

  zoomBy(factor) {
    const { camera, view } = this.ctx;
    camera.zoomAt(factor, { x: view.width / 2, y: view.height / 2 });
    this.cameraChanged();
  }

  panBy(dx, dy) {
    this.ctx.camera.panBy(dx, dy);
    this.cameraChanged();
  }

  zoomAt(factor, at) {
    this.ctx.camera.zoomAt(factor, at);
    this.cameraChanged();
  }
}
