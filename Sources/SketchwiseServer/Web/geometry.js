// Plane geometry of the editor: boxes, rotations about a box's centre, bounds of strokes and
// objects, and the distance tests behind hit testing. Pure functions, document coordinates.

/** Degrees → radians. */
export const rad = (deg) => (deg * Math.PI) / 180;

/** The centre of a box {x, y, w, h}. */
export const centre = (b) => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });

/** Rotates point p by `deg` degrees about point c. */
export function rotate(p, c, deg) {
  if (!deg) return { x: p.x, y: p.y };
  const a = rad(deg), cos = Math.cos(a), sin = Math.sin(a);
  const dx = p.x - c.x, dy = p.y - c.y;
  return { x: c.x + dx * cos - dy * sin, y: c.y + dx * sin + dy * cos };
}

/** The four corners of an object's box, rotated with it (nw, ne, se, sw). */
export function corners(o) {
  const c = centre(o);
  return [
    { x: o.x, y: o.y }, { x: o.x + o.w, y: o.y }, { x: o.x + o.w, y: o.y + o.h }, { x: o.x, y: o.y + o.h },
  ].map((p) => rotate(p, c, o.rotation || 0));
}

/** The scale {sx, sy} that maps box `from` onto box `to` (1 along a side of zero length). */
export function scaleBetween(from, to) {
  return { sx: from.w ? to.w / from.w : 1, sy: from.h ? to.h / from.h : 1 };
}

/** The axis-aligned box around points [{x, y}], or null for none. */
export function boundsOfPoints(points) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of points) {
    minX = Math.min(minX, p.x); maxX = Math.max(maxX, p.x);
    minY = Math.min(minY, p.y); maxY = Math.max(maxY, p.y);
  }
  return minX === Infinity ? null : { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

/** The box around strokes ({width, x, y}), padded by half the pen width; null when empty. */
export function strokesBounds(strokes) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const s of strokes) {
    const r = (s.width || 0) / 2;
    for (let i = 0; i < s.x.length; i++) {
      minX = Math.min(minX, s.x[i] - r); maxX = Math.max(maxX, s.x[i] + r);
      minY = Math.min(minY, s.y[i] - r); maxY = Math.max(maxY, s.y[i] + r);
    }
  }
  return minX === Infinity ? null : { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

/** The axis-aligned box around objects, rotations included; null when there are none. */
export function objectsBounds(objects) {
  return boundsOfPoints(objects.flatMap(corners));
}

/** The largest rectangle of aspect aw:ah centred in box (each side of box at least minSide). */
export function fitRect(box, aw, ah, minSide = 0) {
  const bw = Math.max(box.w, minSide), bh = Math.max(box.h, minSide);
  const c = centre(box);
  const aspect = aw > 0 && ah > 0 ? aw / ah : 1;
  let w = bw, h = bw / aspect;
  if (h > bh) { h = bh; w = bh * aspect; }
  return { x: c.x - w / 2, y: c.y - h / 2, w, h };
}

/** Squared distance from p to the segment a–b. */
export function segmentDistance2(p, a, b) {
  const dx = b.x - a.x, dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  let t = len2 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0;
  t = Math.max(0, Math.min(1, t));
  const cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y;
  return cx * cx + cy * cy;
}

/** Whether p lies within r of the polyline xs/ys. */
export function nearPolyline(xs, ys, p, r) {
  const r2 = r * r;
  if (xs.length === 1) return (xs[0] - p.x) ** 2 + (ys[0] - p.y) ** 2 <= r2;
  for (let i = 1; i < xs.length; i++) {
    if (segmentDistance2(p, { x: xs[i - 1], y: ys[i - 1] }, { x: xs[i], y: ys[i] }) <= r2) return true;
  }
  return false;
}

/** Whether a stroke ends where it starts (within a fifth of its extent): fill treats it as closed. */
export function isClosed(s) {
  const n = s.x.length;
  if (n < 3) return false;
  const b = boundsOfPoints(s.x.map((x, i) => ({ x, y: s.y[i] })));
  const extent = Math.max(b.w, b.h);
  return extent > 8 && Math.hypot(s.x[n - 1] - s.x[0], s.y[n - 1] - s.y[0]) <= extent / 5;
}
