// The selected object's frame over the canvas: its (rotated) box, four corner handles that
// resize it from the opposite corner, and a handle above it that rotates it. Pictures, photos
// and text keep their aspect; other objects keep it with Shift. Rotation snaps to 15° with Shift and to
// the right angles within 4°.

import { centre, corners, rotate } from "./geometry.js";
import { translated } from "./i18n.js";

const HANDLES = ["nw", "ne", "se", "sw"];
const MIN_SIDE = 8;   // screen pixels

export class SelectionFrame {
  /**
   * @param {HTMLElement} el      the frame element (#selection), over the canvas
   * @param {import("./camera.js").Camera} camera
   * @param {{toDocument: (e: PointerEvent) => {x: number, y: number},
   *          onEditUpdate: (o: object|null) => void, onEditEnd: (o: object) => void}} h
   */
  constructor(el, camera, h) {
    this.el = el;
    this.camera = camera;
    this.h = h;
    this.object = null;
    this.drag = null;
    el.replaceChildren(...HANDLES.map((name) => translated(handle(name), { title: "selection.resize" })), translated(handle("rotate"), { title: "selection.rotate" }));
    el.addEventListener("pointerdown", (e) => this.down(e));
    el.addEventListener("pointermove", (e) => this.move(e));
    el.addEventListener("pointerup", (e) => this.up(e, false));
    el.addEventListener("pointercancel", (e) => this.up(e, true));
  }

  /** Frames `object` (null hides the frame). */
  show(object) {
    this.object = object;
    if (!object) { this.el.hidden = true; return; }
    const z = this.camera.zoom, tl = this.camera.toScreen(object);
    Object.assign(this.el.style, {
      left: `${tl.x}px`, top: `${tl.y}px`, width: `${object.w * z}px`, height: `${object.h * z}px`,
      transform: `rotate(${object.rotation || 0}deg)`,
    });
    this.el.dataset.type = object.type;
    this.el.hidden = false;
  }

  down(e) {
    const name = e.target.dataset && e.target.dataset.handle;
    if (!name || !this.object) return;
    e.preventDefault();
    e.stopPropagation();
    e.target.setPointerCapture(e.pointerId);
    const o = this.object;
    this.drag = { id: e.pointerId, name, start: o, anchor: corners(o)[(HANDLES.indexOf(name) + 2) % 4] };
  }

  move(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    e.preventDefault();
    const p = this.h.toDocument(e);
    const edited = d.name === "rotate" ? rotated(d.start, p, e.shiftKey) : resized(d.start, d, p, e.shiftKey, MIN_SIDE / this.camera.zoom);
    d.edited = edited;
    this.show(edited);
    this.h.onEditUpdate(edited);
  }

  up(e, cancelled) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.drag = null;
    this.h.onEditUpdate(null);
    if (!cancelled && d.edited) this.h.onEditEnd(d.edited);
    else this.show(d.start);
  }
}

function handle(name) {
  const el = document.createElement("div");
  el.className = "handle";
  el.dataset.handle = name;
  return el;
}

/** Whether an object's aspect stays fixed when resized. */
export const keepsAspect = (o) => o.type === "picture" || o.type === "photo" || o.type === "text";

/** `o` resized by dragging handle `d.name` to p, the opposite corner `d.anchor` staying put. */
export function resized(o, d, p, constrain, minSide) {
  const i = HANDLES.indexOf(d.name);
  const sx = i === 1 || i === 2 ? 1 : -1, sy = i >= 2 ? 1 : -1;
  const local = rotate(p, d.anchor, -(o.rotation || 0));
  let w = Math.max(minSide, sx * (local.x - d.anchor.x)), h = Math.max(minSide, sy * (local.y - d.anchor.y));
  if (keepsAspect(o) || constrain) {
    const s = Math.max(w / o.w, h / o.h);
    w = o.w * s; h = o.h * s;
  }
  const c = rotate({ x: d.anchor.x + (sx * w) / 2, y: d.anchor.y + (sy * h) / 2 }, d.anchor, o.rotation || 0);
  const patch = { x: c.x - w / 2, y: c.y - h / 2, w, h };
  if (o.type === "text") patch.size = (o.size * h) / o.h;
  return { ...o, ...patch };
}

/** `o` rotated so that its top points at p. */
export function rotated(o, p, constrain) {
  const c = centre(o);
  let deg = (Math.atan2(p.y - c.y, p.x - c.x) * 180) / Math.PI + 90;
  if (constrain) deg = Math.round(deg / 15) * 15;
  else {
    const right = Math.round(deg / 90) * 90;
    if (Math.abs(deg - right) < 4) deg = right;
  }
  deg = ((deg % 360) + 360) % 360;
  return { ...o, rotation: deg > 180 ? deg - 360 : deg };
}
