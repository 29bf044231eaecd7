// Drawing the scene on a <canvas>: sizing for the device pixel ratio, the camera, a cached
// layer of the objects, previews of a stroke, shape or edit in progress on top, picture
// loading, hit tests, and off-screen renders for export.

import { centre, rotate, nearPolyline, isClosed, scaleBetween } from "./geometry.js";

export const BACKGROUND = "#ffffff";
export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';

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

/** Draws one stroke ({color, width, x, y}). */
export function drawStroke(ctx, s) {
  ctx.beginPath();
  tracePath(ctx, s.x, s.y);
  ctx.strokeStyle = s.color;
  ctx.lineWidth = s.width;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.stroke();
}

/** Traces a shape object's outline in its own (unrotated) box. */
export function traceShape(ctx, o) {
  const { x, y, w, h } = o;
  ctx.beginPath();
  if (o.shape === "ellipse") ctx.ellipse(x + w / 2, y + h / 2, w / 2, h / 2, 0, 0, Math.PI * 2);
  else if (o.shape === "rectangle") ctx.rect(x, y, w, h);
  else if (o.shape === "triangle") { ctx.moveTo(x + w / 2, y); ctx.lineTo(x + w, y + h); ctx.lineTo(x, y + h); ctx.closePath(); }
  else if (o.rising) { ctx.moveTo(x, y + h); ctx.lineTo(x + w, y); }
  else { ctx.moveTo(x, y); ctx.lineTo(x + w, y + h); }
}

/** The sources of line pictures, whose line weight the server draws as asked. */
export const LINE_SOURCES = new Set(["openmoji", "lucide", "tabler", "doodle"]);

/** The line weight a picture object asks for: its line width (that of the pen that drew the
 *  sketch it replaced) as a share of its longer side, in thousandths, in line art and in colour
 *  alike (Fill changes the fills, not the lines); null for none. */
export function lineWeight(o) {
  if (!o.lineWidth || !LINE_SOURCES.has(o.source)) return null;
  const share = Math.round((1000 * o.lineWidth) / Math.max(o.w, o.h, 1)) / 1000;
  return Math.min(0.1, Math.max(0.001, share));
}

/** The URL a picture object is drawn from: in colour when its colour mode asks, and a line
 *  picture with lines as wide as the pen's at its size (they do not scale with it). */
export function pictureURL(o) {
  const weight = lineWeight(o);
  const query = [o.colour ? "colour=true" : null, weight ? `weight=${weight}` : null].filter(Boolean);
  return query.length ? `${o.image}${o.image.includes("?") ? "&" : "?"}${query.join("&")}` : o.image;
}

/** The URL of the image an object is drawn from (a picture's or a photo's), or null. */
export const imageURL = (o) => (o.type === "picture" ? pictureURL(o) : o.type === "photo" ? o.src : null);

/** Loads and caches images by URL; `onLoad` runs whenever one arrives. */
export class ImageCache {
  constructor(onLoad = () => {}) {
    this.images = new Map();
    this.latest = new Map();   // family → the image of it that loaded last
    this.onLoad = onLoad;
  }

  /** The image element for a URL (loading starts on first use); `family` groups the URLs of one
   *  picture drawn in several ways, so that one can stand in for another while it loads. */
  get(url, family = url) {
    let img = this.images.get(url);
    if (!img) {
      img = new Image();
      img.decoding = "async";
      img.addEventListener("load", () => { this.latest.set(family, img); this.onLoad(); });
      img.src = url;
      this.images.set(url, img);
    }
    return img;
  }

  /** Resolves true once the image at `url` has loaded, false if it fails. */
  ready(url) {
    const img = this.get(url);
    if (img.complete) return Promise.resolve(img.naturalWidth > 0);
    return new Promise((resolve) => {
      img.addEventListener("load", () => resolve(true), { once: true });
      img.addEventListener("error", () => resolve(false), { once: true });
    });
  }
}

/** Draws objects in document coordinates on ctx (whose transform maps the document). */
export function drawObjects(ctx, objects, images) {
  for (const o of objects) {
    const c = centre(o);
    ctx.save();
    if (o.rotation) { ctx.translate(c.x, c.y); ctx.rotate((o.rotation * Math.PI) / 180); ctx.translate(-c.x, -c.y); }
    if (o.type === "sketch") drawSketch(ctx, o);
    else if (o.type === "picture") drawPicture(ctx, o, images);
    else if (o.type === "photo") drawPhoto(ctx, o, images);
    else if (o.type === "shape") drawShape(ctx, o);
    else if (o.type === "text") drawText(ctx, o);
    ctx.restore();
  }
}

function drawSketch(ctx, o) {
  const n = o.natural, c = centre(o), nc = centre(n);
  ctx.translate(c.x, c.y);
  const { sx, sy } = scaleBetween(n, o);
  ctx.scale(sx, sy);
  ctx.translate(-nc.x, -nc.y);
  if (o.fill) {
    ctx.fillStyle = o.fill;
    for (const s of o.strokes) if (isClosed(s)) { ctx.beginPath(); tracePath(ctx, s.x, s.y); ctx.closePath(); ctx.fill(); }
  }
  for (const s of o.strokes) drawStroke(ctx, s);
}

function drawPicture(ctx, o, images) {
  const full = images.get(pictureURL(o), o.image);
  const img = full.complete && full.naturalWidth ? full : images.latest.get(o.image) || images.get(o.thumbnail);
  if (!drawImage(ctx, img, o)) drawPlaceholder(ctx, o);
}

/** A photo, dimmed by its opacity. */
function drawPhoto(ctx, o, images) {
  ctx.globalAlpha = o.opacity;
  if (!drawImage(ctx, images.get(o.src), o)) drawPlaceholder(ctx, o);
}

/** Draws a loaded image into the object's box; false when it has not loaded (or is broken). */
function drawImage(ctx, img, o) {
  if (!img.complete || !img.naturalWidth) return false;
  try { ctx.drawImage(img, o.x, o.y, o.w, o.h); return true; } catch { return false; }
}

function drawPlaceholder(ctx, o) {
  ctx.fillStyle = "#f3f4f6";
  ctx.strokeStyle = "#9ca3af";
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 1;
  ctx.fillRect(o.x, o.y, o.w, o.h);
  ctx.strokeRect(o.x, o.y, o.w, o.h);
}

function drawShape(ctx, o) {
  traceShape(ctx, o);
  if (o.fill && o.shape !== "line") { ctx.fillStyle = o.fill; ctx.fill(); }
  ctx.strokeStyle = o.color;
  ctx.lineWidth = o.width;
  ctx.lineCap = "round";
  ctx.lineJoin = "round";
  ctx.stroke();
}

function drawText(ctx, o) {
  ctx.fillStyle = o.color;
  ctx.textBaseline = "top";
  const lines = o.text.split("\n");
  // The box may have been resized: scale the text as the box was.
  const natural = measureText(o.text, o.size);
  ctx.translate(o.x, o.y);
  const { sx, sy } = scaleBetween(natural, o);
  ctx.scale(sx, sy);
  ctx.font = `${o.size}px ${FONT}`;
  // Ordered as its editor showed it (dir="auto"), from the box's left edge.
  ctx.direction = isRightToLeft(o.text) ? "rtl" : "ltr";
  ctx.textAlign = "left";
  lines.forEach((line, i) => ctx.fillText(line, 0, i * o.size * 1.2));
}

/** The scripts written right to left. */
const RIGHT_TO_LEFT_SCRIPT = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Adlam}]/u;

/** Whether text reads right to left: its first letter's script does, as `dir="auto"` decides. */
export function isRightToLeft(text) {
  const first = text.match(/\p{L}/u);
  return !!first && RIGHT_TO_LEFT_SCRIPT.test(first[0]);
}

const measureContext = document.createElement("canvas").getContext("2d");

/** The box {w, h} of text at a font size, in document units. */
export function measureText(text, size) {
  measureContext.font = `${size}px ${FONT}`;
  const lines = text.split("\n");
  const w = Math.max(1, ...lines.map((l) => measureContext.measureText(l).width));
  return { w, h: lines.length * size * 1.2 };
}

/** The topmost object under document point p (slop in document units), or null. Inside a
 *  closed stroke counts as on its sketch. */
export function objectAt(objects, p, slop) {
  for (let i = objects.length - 1; i >= 0; i--) {
    const o = objects[i];
    const c = centre(o);
    const local = rotate(p, c, -(o.rotation || 0));
    const inBox = local.x >= o.x - slop && local.x <= o.x + o.w + slop && local.y >= o.y - slop && local.y <= o.y + o.h + slop;
    if (!inBox) continue;
    if (o.type === "shape" && o.shape === "line") {
      const ys = o.rising ? [o.y + o.h, o.y] : [o.y, o.y + o.h];
      if (nearPolyline([o.x, o.x + o.w], ys, local, slop + o.width / 2)) return o;
    } else if (o.type === "sketch") {
      const n = o.natural, nc = centre(n);
      const { sx, sy } = scaleBetween(n, o);
      const q = { x: nc.x + (local.x - c.x) / sx, y: nc.y + (local.y - c.y) / sy };
      const r = slop / Math.min(Math.abs(sx), Math.abs(sy));
      if (o.strokes.some((s) => nearPolyline(s.x, s.y, q, r + s.width / 2) || (isClosed(s) && inside(s, q)))) return o;
    } else {
      return o;
    }
  }
  return null;
}

/** Even-odd test of a point inside a closed stroke's polygon. */
function inside(s, p) {
  let hit = false;
  for (let i = 0, j = s.x.length - 1; i < s.x.length; j = i++) {
    if ((s.y[i] > p.y) !== (s.y[j] > p.y) && p.x < ((s.x[j] - s.x[i]) * (p.y - s.y[i])) / (s.y[j] - s.y[i]) + s.x[i]) hit = !hit;
  }
  return hit;
}

/** An off-screen canvas of the document box `box` at `scale` device pixels per unit. */
export function renderBox(objects, images, box, scale) {
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(box.w * scale));
  canvas.height = Math.max(1, Math.round(box.h * scale));
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(scale, 0, 0, scale, -box.x * scale, -box.y * scale);
  drawObjects(ctx, objects, images);
  return canvas;
}

/** The on-screen canvas: the scene through the camera, with previews on top. */
export class SceneCanvas {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {import("./camera.js").Camera} camera
   * @param {() => void} onResize  called when the element's size changes
   */
  constructor(canvas, camera, onResize = () => {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.layer = document.createElement("canvas");
    this.camera = camera;
    this.images = new ImageCache(() => this.invalidate());
    this.objects = [];
    this.preview = null;   // an object drawn in place of its namesake (or added), while edited
    this.live = null;      // the stroke being drawn
    this.width = 0;
    this.height = 0;
    this.dpr = 1;
    this.layerDirty = true;
    this.frame = 0;
    this.onResize = onResize;
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  /** Matches the backing store to the element's size × devicePixelRatio. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(rect.width)), h = Math.max(1, Math.round(rect.height));
    if (w === this.width && h === this.height && dpr === this.dpr) return;
    const first = this.width === 0;
    this.width = w; this.height = h; this.dpr = dpr;
    for (const c of [this.canvas, this.layer]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    if (!first) this.onResize();
    this.invalidate();
    this.paint();
  }

  /** Shows new objects. */
  setObjects(objects) { this.objects = objects; this.invalidate(); }

  /** Shows (or ends, with null) an object being edited or created. */
  setPreview(object) { this.preview = object; this.invalidate(); }

  /** Shows (or hides, with null) the stroke being drawn. */
  setLive(stroke) { this.live = stroke; this.request(); }

  /** The objects as drawn now: the preview in place of its namesake, or on top. */
  shownObjects() {
    if (!this.preview) return this.objects;
    const i = this.objects.findIndex((o) => o.id === this.preview.id);
    if (i < 0) return [...this.objects, this.preview];
    const shown = this.objects.slice();
    shown[i] = this.preview;
    return shown;
  }

  /** Repaints the objects on the next frame (camera or content changed). */
  invalidate() { this.layerDirty = true; this.request(); }

  request() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.paint(); });
  }

  /** Paints now: the cached layer of objects, then the live stroke. */
  paint() {
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; }
    const cam = this.camera, dpr = this.dpr, z = cam.zoom * dpr;
    if (this.layerDirty) {
      const ctx = this.layer.getContext("2d");
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.fillStyle = BACKGROUND;
      ctx.fillRect(0, 0, this.layer.width, this.layer.height);
      ctx.setTransform(z, 0, 0, z, -cam.x * z, -cam.y * z);
      drawObjects(ctx, this.shownObjects(), this.images);
      this.layerDirty = false;
    }
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.layer, 0, 0);
    if (this.live && this.live.x.length) {
      ctx.setTransform(z, 0, 0, z, -cam.x * z, -cam.y * z);
      drawStroke(ctx, this.live);
    }
  }

  /** Resolves when every placed picture and photo has loaded (or failed), then repaints. */
  async picturesReady() {
    await Promise.all(this.objects.map(imageURL).filter(Boolean).map((url) => this.images.ready(url)));
    this.invalidate();
    this.paint();
  }

  /** PNG data URL of what the canvas shows, at its backing size. */
  toDataURL() {
    this.invalidate();
    this.paint();
    return this.canvas.toDataURL("image/png");
  }
}
