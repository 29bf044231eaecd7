// Rendering of the drawing model on a <canvas>: sizing for the device pixel ratio, a cached
// layer of the committed items, the stroke being drawn on top, picture loading and hit tests.
// Coordinates everywhere are CSS pixels from the canvas's top-left corner.

export const BACKGROUND = "#ffffff";

/** Traces a stroke as a smooth path (quadratic curves through the midpoints). */
export function tracePath(ctx, xs, ys) {
  const n = xs.length;
  ctx.moveTo(xs[0], ys[0]);
  if (n === 1) { ctx.lineTo(xs[0] + 0.01, ys[0]); return; }
  if (n === 2) { ctx.lineTo(xs[1], ys[1]); return; }
  for (let i = 1; i < n - 1; i++) {
    ctx.quadraticCurveTo(xs[i], ys[i], (xs[i] + xs[i + 1]) / 2, (ys[i] + ys[i + 1]) / 2);
  }
  ctx.lineTo(xs[n - 1], ys[n - 1]);
}

/** Draws one stroke item ({color, width, x, y}). */
export function drawStroke(ctx, s) {
  ctx.beginPath();
  tracePath(ctx, s.x, s.y);
  ctx.strokeStyle = s.color;
  ctx.lineWidth = s.width;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.stroke();
}

export class SketchCanvas {
  /** @param {HTMLCanvasElement} canvas */
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.layer = document.createElement("canvas");
    this.images = new Map(); // url → HTMLImageElement
    this.state = null;
    this.live = null;   // stroke being drawn
    this.drag = null;   // {group, dx, dy} preview of a move
    this.width = 0;
    this.height = 0;
    this.dpr = 1;
    this.layerDirty = true;
    this.frame = 0;
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  /** Matches the backing store to the element's size × devicePixelRatio. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(rect.width)), h = Math.max(1, Math.round(rect.height));
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    this.width = w; this.height = h; this.dpr = dpr;
    for (const c of [this.canvas, this.layer]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    this.layerDirty = true;
    this.paint();
  }

  /** Shows a new model state. */
  setState(state) {
    this.state = state;
    this.layerDirty = true;
    this.request();
  }

  /** Shows (or hides, with null) the stroke being drawn. */
  setLive(stroke) { this.live = stroke; this.request(); }

  /** Shows (or ends, with null) a group being dragged by (dx, dy). */
  setDrag(drag) { this.drag = drag; this.layerDirty = true; this.request(); }

  /** Schedules a repaint on the next animation frame. */
  request() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.paint(); });
  }

  /** Paints now: cached layer of items, then the live stroke. */
  paint() {
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; }
    if (this.layerDirty) {
      this.renderItems(this.layer.getContext("2d"), this.dpr, this.drag);
      this.layerDirty = false;
    }
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.layer, 0, 0);
    if (this.live && this.live.x.length) {
      ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
      drawStroke(ctx, this.live);
    }
  }

  /** Renders background and all items to ctx at the given scale. */
  renderItems(ctx, scale, drag = null) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    if (!this.state) return;
    for (const it of this.state.items) {
      const moving = drag && it.group === drag.group;
      if (moving) { ctx.save(); ctx.translate(drag.dx, drag.dy); }
      if (it.kind === "stroke") drawStroke(ctx, it);
      else this.drawPicture(ctx, it);
      if (moving) ctx.restore();
    }
  }

  /** Draws a picture: the full image once loaded, the thumbnail until then. */
  drawPicture(ctx, p) {
    const full = this.image(p.image);
    const img = full.complete && full.naturalWidth ? full : this.image(p.thumbnail);
    if (img.complete && img.naturalWidth) {
      try { ctx.drawImage(img, p.x, p.y, p.w, p.h); return; } catch { /* broken image: placeholder */ }
    }
    ctx.save();
    ctx.fillStyle = "#f3f4f6";
    ctx.strokeStyle = "#d1d5db";
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 1;
    ctx.fillRect(p.x, p.y, p.w, p.h);
    ctx.strokeRect(p.x, p.y, p.w, p.h);
    ctx.restore();
  }

  /** The cached image element for a URL (starts loading it; repaints when it arrives). */
  image(url) {
    let img = this.images.get(url);
    if (!img) {
      img = new Image();
      img.decoding = "async";
      img.onload = () => { this.layerDirty = true; this.request(); };
      img.src = url;
      this.images.set(url, img);
    }
    return img;
  }

  /** Resolves when every picture of the state has loaded (or failed). */
  async picturesReady() {
    if (!this.state) return;
    const waits = [];
    for (const it of this.state.items) {
      if (it.kind !== "picture") continue;
      const img = this.image(it.image);
      if (!img.complete) waits.push(new Promise((r) => { img.addEventListener("load", r, { once: true }); img.addEventListener("error", r, { once: true }); }));
    }
    await Promise.all(waits);
    this.layerDirty = true;
    this.paint();
  }

  /** The topmost item at (x, y): a picture by its box, a stroke within its width + slop. */
  hitTest(x, y, slop = 8) {
    if (!this.state) return null;
    const items = this.state.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === "picture") {
        if (x >= it.x && x <= it.x + it.w && y >= it.y && y <= it.y + it.h) return it;
      } else if (nearStroke(it, x, y, it.width / 2 + slop)) {
        return it;
      }
    }
    return null;
  }

  /** PNG data URL of the whole drawing at the canvas's backing size. */
  toDataURL() {
    this.layerDirty = true;
    this.paint();
    return this.canvas.toDataURL("image/png");
  }

  /** PNG Blob of the whole drawing. */
  toBlob() {
    this.layerDirty = true;
    this.paint();
    return new Promise((resolve, reject) => this.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG export failed"))), "image/png"));
  }
}

function nearStroke(s, x, y, r) {
  const r2 = r * r;
  if (s.x.length === 1) return (s.x[0] - x) ** 2 + (s.y[0] - y) ** 2 <= r2;
  for (let i = 1; i < s.x.length; i++) {
    if (segmentDistance2(x, y, s.x[i - 1], s.y[i - 1], s.x[i], s.y[i]) <= r2) return true;
  }
  return false;
}

function segmentDistance2(px, py, ax, ay, bx, by) {
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = Math.max(0, Math.min(1, t));
  const cx = ax + t * dx - px, cy = ay + t * dy - py;
  return cx * cx + cy * cy;
}
