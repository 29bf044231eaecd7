// Files in and out: PNG and SVG export, Quick, Draw! ndjson save and load (with validation).

import { BACKGROUND } from "./canvas.js";

/** Offers a Blob as a download named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const num = (v) => (Math.round(v * 100) / 100).toString();

/** SVG path data of a stroke, the same curve as the canvas draws. */
export function strokePathData(xs, ys) {
  const n = xs.length;
  if (n === 1) return `M${num(xs[0])} ${num(ys[0])}h0.01`;
  if (n === 2) return `M${num(xs[0])} ${num(ys[0])}L${num(xs[1])} ${num(ys[1])}`;
  let d = `M${num(xs[0])} ${num(ys[0])}`;
  for (let i = 1; i < n - 1; i++) {
    d += `Q${num(xs[i])} ${num(ys[i])} ${num((xs[i] + xs[i + 1]) / 2)} ${num((ys[i] + ys[i + 1]) / 2)}`;
  }
  return d + `L${num(xs[n - 1])} ${num(ys[n - 1])}`;
}

/** Reads a URL into a data: URL (null when it can't be fetched). */
async function dataURL(url) {
  try {
    const r = await fetch(url);
    if (!r.ok) return null;
    const blob = await r.blob();
    return await new Promise((resolve) => {
      const fr = new FileReader();
      fr.onload = () => resolve(fr.result);
      fr.onerror = () => resolve(null);
      fr.readAsDataURL(blob);
    });
  } catch {
    return null;
  }
}

/**
 * SVG document of a drawing state: strokes as <path>, pictures as <image>. Pictures are embedded
 * as data: URLs so the file stands alone; if one can't be fetched, its absolute URL is used.
 */
export async function toSVG(state, width, height) {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>Sketchwise drawing</title>`,
    `<rect width="100%" height="100%" fill="${BACKGROUND}"/>`,
  ];
  for (const it of state.items) {
    if (it.kind === "stroke") {
      parts.push(`<path d="${strokePathData(it.x, it.y)}" fill="none" stroke="${esc(it.color)}" stroke-width="${num(it.width)}" stroke-linecap="round" stroke-linejoin="round"/>`);
    } else {
      const href = (await dataURL(it.image)) || new URL(it.image, location.href).href;
      parts.push(`<image href="${esc(href)}" x="${num(it.x)}" y="${num(it.y)}" width="${num(it.w)}" height="${num(it.h)}" preserveAspectRatio="xMidYMid meet"><title>${esc(it.title)}</title></image>`);
    }
  }
  parts.push("</svg>");
  return parts.join("\n");
}

/** Quick, Draw! style timestamp: "2017-03-26 18:43:54.78083 UTC". */
function qdTimestamp(date) {
  return date.toISOString().replace("T", " ").replace("Z", " UTC");
}

function randomKey() {
  let s = String(1 + Math.floor(Math.random() * 9));
  for (let i = 0; i < 15; i++) s += Math.floor(Math.random() * 10);
  return s;
}

/** One Quick, Draw! raw ndjson line for strokes (items with x, y, t), word = best guess or "". */
export function toNdjson(strokes, word = "") {
  const record = {
    word,
    countrycode: "",
    timestamp: qdTimestamp(new Date()),
    recognized: false,
    key_id: randomKey(),
    drawing: strokes.map((s) => [s.x.slice(), s.y.slice(), s.t.slice()]),
  };
  return JSON.stringify(record) + "\n";
}

export const LIMITS = { strokes: 256, points: 20000, abs: 1e9, bytes: 8 * 1024 * 1024 };

/**
 * Parses a Quick, Draw! ndjson file (raw with t, or simplified without) and returns the first
 * record's {word, strokes: [{x, y, t}]}. Throws an Error with a readable message when the file
 * is not valid; nothing is changed in that case.
 */
export function parseNdjson(text) {
  if (text.length > LIMITS.bytes) throw new Error("the file is larger than 8 MiB");
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((l) => l.trim() !== "");
  if (index < 0) throw new Error("the file is empty");
  let record;
  try {
    record = JSON.parse(lines[index]);
  } catch (e) {
    throw new Error(`line ${index + 1} is not valid JSON`);
  }
  const where = `line ${index + 1}`;
  if (Array.isArray(record)) record = { word: "", drawing: record };   // a bare drawing array
  if (!record || typeof record !== "object" || !Array.isArray(record.drawing)) {
    throw new Error(`${where}: no "drawing" array of strokes`);
  }
  const drawing = record.drawing;
  if (drawing.length === 0) throw new Error(`${where}: the drawing has no strokes`);
  if (drawing.length > LIMITS.strokes) throw new Error(`${where}: more than ${LIMITS.strokes} strokes`);
  let points = 0;
  const strokes = drawing.map((stroke, i) => {
    const at = `${where}, stroke ${i + 1}`;
    if (!Array.isArray(stroke) || stroke.length < 2 || stroke.length > 3) throw new Error(`${at}: expected [[x…],[y…]] or [[x…],[y…],[t…]]`);
    const [x, y, t] = stroke;
    if (!Array.isArray(x) || !Array.isArray(y) || (t !== undefined && !Array.isArray(t))) throw new Error(`${at}: x, y and t must be arrays`);
    if (x.length === 0) throw new Error(`${at}: no points`);
    if (x.length !== y.length || (t && t.length !== x.length)) throw new Error(`${at}: x, y and t have different lengths`);
    for (const arr of t ? [x, y, t] : [x, y]) {
      for (const v of arr) {
        if (typeof v !== "number" || !Number.isFinite(v) || Math.abs(v) > LIMITS.abs) throw new Error(`${at}: coordinates must be finite numbers`);
      }
    }
    points += x.length;
    return { x: x.slice(), y: y.slice(), t: t ? t.slice() : x.map(() => 0) };
  });
  if (points > LIMITS.points) throw new Error(`${where}: more than ${LIMITS.points} points`);
  return { word: typeof record.word === "string" ? record.word : "", strokes };
}

/**
 * Fits loaded strokes into a width × height canvas: kept as they are when they fit, otherwise
 * scaled (aspect kept) into the canvas with a margin and centred.
 */
export function fitStrokes(strokes, width, height, margin = 24) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const s of strokes) for (let i = 0; i < s.x.length; i++) {
    minX = Math.min(minX, s.x[i]); maxX = Math.max(maxX, s.x[i]);
    minY = Math.min(minY, s.y[i]); maxY = Math.max(maxY, s.y[i]);
  }
  if (minX >= 0 && minY >= 0 && maxX <= width && maxY <= height) return strokes;
  const bw = Math.max(maxX - minX, 1), bh = Math.max(maxY - minY, 1);
  const scale = Math.min((width - 2 * margin) / bw, (height - 2 * margin) / bh, 1);
  const ox = (width - bw * scale) / 2 - minX * scale, oy = (height - bh * scale) / 2 - minY * scale;
  return strokes.map((s) => ({
    ...s,
    x: s.x.map((v) => Math.round((v * scale + ox) * 10) / 10),
    y: s.y.map((v) => Math.round((v * scale + oy) * 10) / 10),
  }));
}
