// The camera: which part of the document the canvas shows. screen = (doc − origin) × zoom,
// in CSS pixels from the canvas's top-left corner.

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 8;

const clampZoom = (z) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));

export class Camera {
  constructor() {
    this.x = 0;      // document point at the canvas's top-left corner
    this.y = 0;
    this.zoom = 1;
  }

  /** Document → screen. */
  toScreen(p) { return { x: (p.x - this.x) * this.zoom, y: (p.y - this.y) * this.zoom }; }

  /** Screen → document. */
  toDocument(p) { return { x: p.x / this.zoom + this.x, y: p.y / this.zoom + this.y }; }

  /** Zooms by `factor` keeping the screen point `at` over the same document point. */
  zoomAt(factor, at) {
    const before = this.toDocument(at);
    this.zoom = clampZoom(this.zoom * factor);
    this.x = before.x - at.x / this.zoom;
    this.y = before.y - at.y / this.zoom;
  }

  /** Pans by a screen distance. */
  panBy(dx, dy) {
    this.x -= dx / this.zoom;
    this.y -= dy / this.zoom;
  }

  /** Shows the document box `box` whole and centred in a width × height view (never above 1×
   *  when `grow` is false), with a margin in screen pixels. */
  fit(box, width, height, { margin = 32, grow = false } = {}) {
    const w = Math.max(box.w, 1), h = Math.max(box.h, 1);
    let zoom = Math.min((width - 2 * margin) / w, (height - 2 * margin) / h);
    if (!grow) zoom = Math.min(zoom, 1);
    this.zoom = clampZoom(zoom);
    this.x = box.x + w / 2 - width / 2 / this.zoom;
    this.y = box.y + h / 2 - height / 2 / this.zoom;
  }

  /** Whether the document box is wholly inside a width × height view. */
  shows(box, width, height) {
    const a = this.toScreen(box), b = this.toScreen({ x: box.x + box.w, y: box.y + box.h });
    return a.x >= 0 && a.y >= 0 && b.x <= width && b.y <= height;
  }

  toJSON() { return { x: this.x, y: this.y, zoom: this.zoom }; }

  /** Takes a saved camera; ignores anything that is not one. */
  restore(saved) {
    if (!saved || ![saved.x, saved.y, saved.zoom].every(Number.isFinite)) return;
    this.x = saved.x; this.y = saved.y; this.zoom = clampZoom(saved.zoom);
  }
}
