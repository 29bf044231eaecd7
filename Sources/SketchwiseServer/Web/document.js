// The native document format (.sketchwise.json, docs/document-format.md): the scene's objects
// with everything needed to draw them again, validated field by field on the way in, and the
// autosave of the current document to the browser's storage.

export const FORMAT = "sketchwise";
export const VERSION = 1;

/** What a document may hold; a file beyond these is refused with a message saying which. */
export const DOCUMENT_LIMITS = { bytes: 32 * 1024 * 1024, objects: 10000, strokes: 10000, points: 2000000, coordinate: 1e7, text: 10000, photo: 8 * 1024 * 1024 };

const COLOR = /^#[0-9a-fA-F]{6}$/;
const SHAPES = ["ellipse", "rectangle", "triangle", "line"];
const PHOTO_SRC = /^data:image\/(jpeg|png);base64,[A-Za-z0-9+/]+={0,2}$/;

/** A document's JSON text for objects and the camera. */
export function serialize(objects, camera) {
  return JSON.stringify({
    format: FORMAT, version: VERSION, saved: new Date().toISOString(), camera,
    objects: objects.map(({ id, ...rest }) => rest),
  });
}

/**
 * Reads a document's text: {objects (without ids), camera}. Throws an Error whose message names
 * the first thing wrong (and where); nothing is returned in part.
 */
export function parseDocument(text) {
  if (text.length > DOCUMENT_LIMITS.bytes) throw new Error("the file is larger than 32 MiB");
  let doc;
  try { doc = JSON.parse(text); } catch { throw new Error("it is not valid JSON"); }
  if (!doc || typeof doc !== "object" || doc.format !== FORMAT) throw new Error('it is not a Sketchwise document (no "format": "sketchwise")');
  if (doc.version !== VERSION) throw new Error(`it is version ${JSON.stringify(doc.version)}; this app reads version ${VERSION}`);
  if (!Array.isArray(doc.objects)) throw new Error('"objects" must be an array');
  if (doc.objects.length > DOCUMENT_LIMITS.objects) throw new Error(`more than ${DOCUMENT_LIMITS.objects} objects`);
  const budget = { strokes: 0, points: 0 };
  const objects = doc.objects.map((o, i) => readObject(o, `objects[${i}]`, budget));
  return { objects, camera: doc.camera && typeof doc.camera === "object" ? doc.camera : null };
}

function fail(where, what) { throw new Error(`${where}: ${what}`); }

const isNumber = (v) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= DOCUMENT_LIMITS.coordinate;

function number(o, key, where, { min = -Infinity, max = Infinity } = {}) {
  const v = o[key];
  if (!isNumber(v) || v < min || v > max) fail(`${where}.${key}`, `must be a finite number${min > -Infinity ? ` from ${min}` : ""}${max < Infinity ? ` to ${max}` : ""}`);
  return v;
}

function color(o, key, where, optional = false) {
  const v = o[key];
  if (optional && (v === null || v === undefined)) return null;
  if (typeof v !== "string" || !COLOR.test(v)) fail(`${where}.${key}`, "must be a colour like #1f2937");
  return v;
}

function string(o, key, where, max = 1000) {
  const v = o[key];
  if (typeof v !== "string" || v.length > max) fail(`${where}.${key}`, `must be text of at most ${max} characters`);
  return v;
}

function box(o, where) {
  return {
    x: number(o, "x", where), y: number(o, "y", where),
    w: number(o, "w", where, { min: 0 }), h: number(o, "h", where, { min: 0 }),
    rotation: number(o, "rotation", where, { min: -360, max: 360 }),
  };
}

function strokes(list, where, budget) {
  if (!Array.isArray(list) || !list.length) fail(where, "must be a non-empty array of strokes");
  budget.strokes += list.length;
  if (budget.strokes > DOCUMENT_LIMITS.strokes) fail(where, `the document has more than ${DOCUMENT_LIMITS.strokes} strokes`);
  return list.map((s, i) => {
    const at = `${where}[${i}]`;
    if (!s || typeof s !== "object") fail(at, "must be a stroke object");
    const { x, y, t } = s;
    if (![x, y, t].every(Array.isArray) || !x.length || x.length !== y.length || x.length !== t.length) fail(at, "x, y and t must be arrays of the same, non-zero length");
    budget.points += x.length;
    if (budget.points > DOCUMENT_LIMITS.points) fail(at, `the document has more than ${DOCUMENT_LIMITS.points} points`);
    if (![x, y, t].every((a) => a.every(isNumber))) fail(at, "coordinates and times must be finite numbers");
    return Object.freeze({ color: color(s, "color", at), width: number(s, "width", at, { min: 0.1, max: 400 }), x: x.slice(), y: y.slice(), t: t.slice() });
  });
}

/** A picture URL this app itself would use: a library path, or a web picture's http(s) URL. */
function url(o, key, where) {
  const v = string(o, key, where, 4096);
  if (!v.startsWith("/api/library/") && !/^https?:\/\//.test(v)) fail(`${where}.${key}`, "must be a /api/library/ path or an http(s) URL");
  return v;
}

/** The pictures offered with an object (suggestion objects of /api/suggest), or null. */
function alternatives(list, where) {
  if (!Array.isArray(list)) return null;
  return Object.freeze(list.slice(0, 200).filter((a) => a && typeof a === "object").map((a, i) => {
    const at = `${where}[${i}]`;
    return {
      id: string(a, "id", at, 4096), label: string(a, "label", at), title: string(a, "title", at), source: string(a, "source", at),
      image: url(a, "image", at), thumbnail: url(a, "thumbnail", at),
      width: number(a, "width", at, { min: 1 }), height: number(a, "height", at, { min: 1 }), score: typeof a.score === "number" ? a.score : 0,
    };
  }));
}

/** A list of at most 10 {[name]: text, [score]: 0…1} (a photo's labels or classes). */
function scored(o, key, where, name, score) {
  const list = o[key];
  if (!Array.isArray(list) || list.length > 10) fail(`${where}.${key}`, "must be an array of at most 10 items");
  return Object.freeze(list.map((item, i) => {
    const at = `${where}.${key}[${i}]`;
    if (!item || typeof item !== "object") fail(at, "must be an object");
    return Object.freeze({ [name]: string(item, name, at), [score]: number(item, score, at, { min: 0, max: 1 }) });
  }));
}

function photo(o, where) {
  const src = o.src;
  if (typeof src !== "string" || src.length > DOCUMENT_LIMITS.photo || !PHOTO_SRC.test(src)) {
    fail(`${where}.src`, `must be a JPEG or PNG data: URL (base64) of at most ${DOCUMENT_LIMITS.photo / 1024 / 1024} MiB`);
  }
  return {
    src, opacity: number(o, "opacity", where, { min: 0.05, max: 1 }),
    labels: scored(o, "labels", where, "text", "confidence"), classes: scored(o, "classes", where, "label", "probability"),
    alternatives: alternatives(o.alternatives, `${where}.alternatives`),
  };
}

function readObject(o, where, budget) {
  if (!o || typeof o !== "object") fail(where, "must be an object");
  const common = box(o, where);
  switch (o.type) {
    case "sketch": {
      const n = o.natural;
      if (!n || typeof n !== "object") fail(`${where}.natural`, "must be a box");
      const natural = { x: number(n, "x", `${where}.natural`), y: number(n, "y", `${where}.natural`), w: number(n, "w", `${where}.natural`, { min: 0 }), h: number(n, "h", `${where}.natural`, { min: 0 }) };
      return { type: "sketch", ...common, natural, strokes: Object.freeze(strokes(o.strokes, `${where}.strokes`, budget)), recognize: o.recognize !== false, fill: color(o, "fill", where, true) };
    }
    case "picture": {
      const sketch = o.sketch === null || o.sketch === undefined ? null : Object.freeze(strokes(o.sketch, `${where}.sketch`, budget));
      return {
        type: "picture", ...common, libraryId: string(o, "libraryId", where, 4096), source: string(o, "source", where), label: string(o, "label", where),
        title: string(o, "title", where), image: url(o, "image", where), thumbnail: url(o, "thumbnail", where),
        aspect: number(o, "aspect", where, { min: 0.001 }), colour: o.colour === true, sketch, alternatives: alternatives(o.alternatives, `${where}.alternatives`),
        lineWidth: o.lineWidth === undefined || o.lineWidth === null ? null : number(o, "lineWidth", where, { min: 0.1, max: 400 }),
      };
    }
    case "shape":
      if (!SHAPES.includes(o.shape)) fail(`${where}.shape`, `must be one of ${SHAPES.join(", ")}`);
      return { type: "shape", ...common, shape: o.shape, color: color(o, "color", where), width: number(o, "width", where, { min: 0.1, max: 400 }), fill: color(o, "fill", where, true), rising: o.rising === true };
    case "text":
      return { type: "text", ...common, text: string(o, "text", where, DOCUMENT_LIMITS.text), color: color(o, "color", where), size: number(o, "size", where, { min: 1, max: 4000 }) };
    case "photo":
      return { type: "photo", ...common, ...photo(o, where) };
    default:
      return fail(`${where}.type`, 'must be "sketch", "picture", "photo", "shape" or "text"');
  }
}

const AUTOSAVE_KEY = "sketchwise.document";

/** Keeps the document in the browser's storage, at most every `delay` ms. */
export class Autosave {
  /** @param {(message: string) => void} onError  told once when storage refuses the document */
  constructor(onError, delay = 300) {
    this.onError = onError;
    this.delay = delay;
    this.timer = 0;
    this.pending = null;
    this.warned = false;
    window.addEventListener("pagehide", () => this.flush());
  }

  /** Schedules saving the text that `make()` returns. */
  schedule(make) {
    this.pending = make;
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.delay);
  }

  /** Saves now if a save is pending. */
  flush() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (!this.pending) return;
    const make = this.pending;
    this.pending = null;
    try {
      localStorage.setItem(AUTOSAVE_KEY, make());
      this.warned = false;
    } catch (e) {
      if (!this.warned) this.onError(`Autosave is off: the browser refused to store the drawing (${e.name}). Save it as a file to keep it.`);
      this.warned = true;
    }
  }

  /** The saved text, or null. */
  static load() {
    try { return localStorage.getItem(AUTOSAVE_KEY); } catch { return null; }
  }

  /** Keeps a copy that could not be restored, so that nothing is lost, and clears the slot. */
  static setAside(text) {
    try { localStorage.setItem(`${AUTOSAVE_KEY}.unreadable`, text); localStorage.removeItem(AUTOSAVE_KEY); } catch { /* nothing more to do */ }
  }
}
