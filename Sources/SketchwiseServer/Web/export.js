// Files in and out: SVG export (library pictures as vectors), Quick, Draw! ndjson save and load
// (with validation).

import { BACKGROUND, pictureURL, measureText, isRightToLeft } from "./canvas.js";
import { centre, isClosed, scaleBetween } from "./geometry.js";
import { DOCUMENT_LIMITS } from "./document.js";
import { t } from "./i18n.js";

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

/** A picture's name in the language it was placed in (`displayTitle`), else its English title. */
const nameOf = (o) => o.displayTitle || o.title;

const transformOf = (o) => {
  const c = centre(o);
  return o.rotation ? ` transform="rotate(${num(o.rotation)} ${num(c.x)} ${num(c.y)})"` : "";
};

/** The sources whose pictures are SVG documents, which the SVG export keeps as vectors. */
const VECTOR_SOURCES = new Set(["openmoji", "lucide", "tabler", "doodle", "clipart"]);
const IMAGE_PATH = /\/image(?=\?|$)/;

/** A library picture as its own SVG document (GET …/vector: cropped like its image, with the same
 *  colour and line weight) nested in its box with the id `id`, or null when there is none to be
 *  had. Scripts, foreign content, event handlers and references outside the document are taken
 *  out, and its ids and style sheets are kept to it (`isolate`). */
async function vectorOf(o, id) {
  const url = pictureURL(o);
  if (!VECTOR_SOURCES.has(o.source) || !IMAGE_PATH.test(url)) return null;
  try {
    const r = await fetch(url.replace(IMAGE_PATH, "/vector"));
    if (!r.ok) return null;
    const doc = new DOMParser().parseFromString(await r.text(), "image/svg+xml");
    const root = doc.documentElement;
    if (root.localName !== "svg" || doc.getElementsByTagName("parsererror").length) return null;
    for (const el of [...doc.querySelectorAll("script, foreignObject")]) el.remove();
    for (const el of [root, ...root.querySelectorAll("*")]) {
      for (const a of [...el.attributes]) {
        const outside = a.localName === "href" && !/^(#|data:image\/)/.test(a.value.trim());
        if (/^on/i.test(a.localName) || outside) el.removeAttributeNode(a);
      }
    }
    isolate(root, id);
    for (const [key, value] of Object.entries({ x: o.x, y: o.y, width: o.w, height: o.h })) root.setAttribute(key, num(value));
    root.setAttribute("preserveAspectRatio", "none");
    return `<g${transformOf(o)}><title>${esc(nameOf(o))}</title>${new XMLSerializer().serializeToString(root)}</g>`;
  } catch {
    return null;
  }
}

/** Keeps a nested picture's ids and style sheets to it, as they were in its own document: in one
 *  file they are the whole file's, so a picture's line weight for every element (`*{stroke-width}`)
 *  would thin the drawing's own strokes, and two pictures' gradients "a" would be one. Its ids
 *  (and the references to them) get the prefix `${id}-`, its root the id `id`, and each rule of
 *  its style sheets is scoped to that root. */
function isolate(root, id) {
  const renamed = new Map();
  for (const el of root.querySelectorAll("[id]")) {
    renamed.set(el.id, `${id}-${el.id}`);
    el.id = renamed.get(el.id);
  }
  const rename = (text) => text.replace(/url\(\s*(['"]?)#([^)'"\s]+)\1\s*\)/g, (whole, quote, name) => (renamed.has(name) ? `url(#${renamed.get(name)})` : whole));
  for (const el of root.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const target = a.localName === "href" && a.value.startsWith("#") ? renamed.get(a.value.slice(1)) : undefined;
      if (target) a.value = `#${target}`;
      else if (a.value.includes("url(")) a.value = rename(a.value);
    }
  }
  root.setAttribute("id", id);
  const scoped = (rule) => {
    if (rule instanceof CSSStyleRule) {
      const selectors = splitSelectors(rule.selectorText).map((s) => `#${id} ${s.replace(/#([\w-]+)/g, (whole, name) => (renamed.has(name) ? `#${renamed.get(name)}` : whole))}`);
      return `${selectors.join(", ")}{${rule.style.cssText}}`;
    }
    if (rule instanceof CSSGroupingRule) return `${rule.cssText.slice(0, rule.cssText.indexOf("{"))}{${[...rule.cssRules].map(scoped).join("")}}`;
    return rule.cssText;   // @font-face, @keyframes: no selectors
  };
  for (const style of root.querySelectorAll("style")) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(rename(style.textContent));
    style.textContent = [...sheet.cssRules].map(scoped).join("\n");
  }
}

/** The selectors of a selector list (commas inside brackets, as in `:is(a, b)`, kept). */
function splitSelectors(text) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    if ("([".includes(text[i])) depth++;
    else if (")]".includes(text[i])) depth--;
    else if (text[i] === "," && depth === 0) { parts.push(text.slice(start, i).trim()); start = i + 1; }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** SVG elements of one object (SVG pictures as vectors, with the id `id`; other pictures embedded,
 *  or by absolute URL when they can't be; photos as they are kept, data: URLs). */
async function svgOf(o, id) {
  if (o.type === "sketch") {
    const n = o.natural, c = centre(o), nc = centre(n);
    const { sx, sy } = scaleBetween(n, o);
    const fills = o.fill ? o.strokes.filter(isClosed).map((s) => `<path d="${strokePathData(s.x, s.y)}Z" fill="${esc(o.fill)}" stroke="none"/>`) : [];
    const lines = o.strokes.map((s) => `<path d="${strokePathData(s.x, s.y)}" fill="none" stroke="${esc(s.color)}" stroke-width="${num(s.width)}" stroke-linecap="round" stroke-linejoin="round"/>`);
    const placed = `translate(${num(c.x)} ${num(c.y)}) rotate(${num(o.rotation || 0)}) scale(${num(sx)} ${num(sy)}) translate(${num(-nc.x)} ${num(-nc.y)})`;
    return `<g transform="${placed}">${[...fills, ...lines].join("")}</g>`;
  }
  if (o.type === "picture") {
    const vector = await vectorOf(o, id);
    if (vector) return vector;
    const href = (await dataURL(pictureURL(o))) || new URL(pictureURL(o), location.href).href;
    return `<image href="${esc(href)}" x="${num(o.x)}" y="${num(o.y)}" width="${num(o.w)}" height="${num(o.h)}" preserveAspectRatio="none"${transformOf(o)}><title>${esc(nameOf(o))}</title></image>`;
  }
  if (o.type === "photo") {
    return `<image href="${esc(o.src)}" x="${num(o.x)}" y="${num(o.y)}" width="${num(o.w)}" height="${num(o.h)}" preserveAspectRatio="none" opacity="${num(o.opacity)}"${transformOf(o)}><title>${esc(o.labels.length ? t("export.photoOf", { name: o.labels[0].display || o.labels[0].text }) : t("export.photo"))}</title></image>`;
  }
  if (o.type === "shape") {
    const paint = `fill="${o.fill && o.shape !== "line" ? esc(o.fill) : "none"}" stroke="${esc(o.color)}" stroke-width="${num(o.width)}" stroke-linecap="round" stroke-linejoin="round"${transformOf(o)}`;
    const { x, y, w, h } = o;
    if (o.shape === "ellipse") return `<ellipse cx="${num(x + w / 2)}" cy="${num(y + h / 2)}" rx="${num(w / 2)}" ry="${num(h / 2)}" ${paint}/>`;
    if (o.shape === "rectangle") return `<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" ${paint}/>`;
    if (o.shape === "triangle") return `<polygon points="${num(x + w / 2)},${num(y)} ${num(x + w)},${num(y + h)} ${num(x)},${num(y + h)}" ${paint}/>`;
    const [y1, y2] = o.rising ? [y + h, y] : [y, y + h];
    return `<line x1="${num(x)}" y1="${num(y1)}" x2="${num(x + w)}" y2="${num(y2)}" ${paint}/>`;
  }
  const natural = measureText(o.text, o.size);
  const { sx, sy } = scaleBetween(natural, o);
  const scale = `translate(${num(o.x)} ${num(o.y)}) scale(${num(sx)} ${num(sy)})`;
  const lines = o.text.split("\n").map((line, i) => `<tspan x="0" y="${num(i * o.size * 1.2)}">${esc(line)}</tspan>`).join("");
  // Right-to-left text starts at the box's left edge too: its end is anchored there.
  const direction = isRightToLeft(o.text) ? ` direction="rtl" text-anchor="end"` : "";
  return `<g${transformOf(o)}><text transform="${scale}" font-family="system-ui, sans-serif" font-size="${num(o.size)}" fill="${esc(o.color)}" dominant-baseline="text-before-edge"${direction} xml:space="preserve">${lines}</text></g>`;
}

/** A stand-alone SVG document of objects, cropped to the document box `box`. */
export async function toSVG(objects, box) {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(box.w)}" height="${num(box.h)}" viewBox="${num(box.x)} ${num(box.y)} ${num(box.w)} ${num(box.h)}">`,
    `<title>${esc(t("export.title"))}</title>`,
    `<rect x="${num(box.x)}" y="${num(box.y)}" width="100%" height="100%" fill="${BACKGROUND}"/>`,
  ];
  for (const [index, o] of objects.entries()) parts.push(await svgOf(o, `sketchwise-picture-${index + 1}`));
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

/** What an ndjson file may hold: as much as a document (what Save writes, Load reads). */
export const LIMITS = { strokes: DOCUMENT_LIMITS.strokes, points: DOCUMENT_LIMITS.points, abs: 1e9, bytes: DOCUMENT_LIMITS.bytes };

/**
 * Parses a Quick, Draw! ndjson file (raw with t, or simplified without) and returns the first
 * record's {word, strokes: [{x, y, t}]} and how many other records follow it (`others`, not read).
 * Throws an Error that says what is wrong, in the person's language, when the file is not valid;
 * nothing is changed in that case.
 */
export function parseNdjson(text) {
  if (text.length > LIMITS.bytes) throw new Error(t("document.tooLarge", { size: LIMITS.bytes / 1024 / 1024 }));
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((l) => l.trim() !== "");
  if (index < 0) throw new Error(t("ndjson.empty"));
  const line = index + 1;
  let record;
  try {
    record = JSON.parse(lines[index]);
  } catch {
    throw new Error(t("ndjson.notJSON", { line }));
  }
  /** Throws what is wrong with the record on that line (or with its stroke `stroke`). */
  const fail = (what, stroke) => { throw new Error(stroke ? t("ndjson.where.stroke", { line, stroke, what }) : t("ndjson.where", { line, what })); };
  if (Array.isArray(record)) record = { word: "", drawing: record };   // a bare drawing array
  if (!record || typeof record !== "object" || !Array.isArray(record.drawing)) fail(t("ndjson.noDrawing"));
  const drawing = record.drawing;
  if (drawing.length === 0) fail(t("ndjson.noStrokes"));
  if (drawing.length > LIMITS.strokes) fail(t("ndjson.tooManyStrokes", { count: LIMITS.strokes }));
  let points = 0;
  const strokes = drawing.map((stroke, i) => {
    const at = i + 1;
    if (!Array.isArray(stroke) || stroke.length < 2 || stroke.length > 3) fail(t("ndjson.strokeForm"), at);
    const [x, y, times] = stroke;
    if (!Array.isArray(x) || !Array.isArray(y) || (times !== undefined && !Array.isArray(times))) fail(t("ndjson.arrays"), at);
    if (x.length === 0) fail(t("ndjson.noPoints"), at);
    if (x.length !== y.length || (times && times.length !== x.length)) fail(t("ndjson.lengths"), at);
    for (const arr of times ? [x, y, times] : [x, y]) {
      for (const v of arr) {
        if (typeof v !== "number" || !Number.isFinite(v) || Math.abs(v) > LIMITS.abs) fail(t("ndjson.coordinates"), at);
      }
    }
    points += x.length;
    return { x: x.slice(), y: y.slice(), t: times ? times.slice() : x.map(() => 0) };
  });
  if (points > LIMITS.points) fail(t("ndjson.tooManyPoints", { count: LIMITS.points }));
  const others = lines.slice(index + 1).filter((l) => l.trim() !== "").length;
  return { word: typeof record.word === "string" ? record.word : "", strokes, others };
}
