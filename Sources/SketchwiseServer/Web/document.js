// The native document format (.sketchwise.json, docs/document-format.md): the scene's objects
// with everything needed to draw them again, validated field by field on the way in, and the
// autosave of the current document to the browser's storage.

import { t } from "./i18n.js";
import { kept, keep, forget } from "./storage.js";

export const FORMAT = "sketchwise";
export const VERSION = 1;

/** What a document may hold; a file beyond these is refused with a message saying which. */
export const DOCUMENT_LIMITS = { bytes: 32 * 1024 * 1024, objects: 10000, strokes: 10000, points: 2000000, coordinate: 1e7, text: 10000, photo: 8 * 1024 * 1024 };

const COLOR = /^#[0-9a-fA-F]{6}$/;
const SHAPES = ["ellipse", "rectangle", "triangle", "line"];
const TYPES = ["sketch", "picture", "photo", "shape", "text"];
const MIB = 1024 * 1024;
/** Values as a document writes them, for a message: "ellipse", "rectangle". */
const quoted = (values) => values.map((v) => JSON.stringify(v)).join(", ");
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
 * the first thing wrong (and where), in the person's language; nothing is returned in part.
 */
export function parseDocument(text) {
  if (text.length > DOCUMENT_LIMITS.bytes) throw new Error(t("document.tooLarge", { size: DOCUMENT_LIMITS.bytes / MIB }));
  let doc;
  try { doc = JSON.parse(text); } catch { throw new Error(t("document.notJSON")); }
  if (!doc || typeof doc !== "object" || doc.format !== FORMAT) throw new Error(t("document.notSketchwise"));
  if (doc.version !== VERSION) throw new Error(t("document.version", { version: JSON.stringify(doc.version), supported: VERSION }));
  if (!Array.isArray(doc.objects)) throw new Error(t("document.objects"));
  if (doc.objects.length > DOCUMENT_LIMITS.objects) throw new Error(t("document.tooManyObjects", { count: DOCUMENT_LIMITS.objects }));
  const budget = { strokes: 0, points: 0 };
  const objects = doc.objects.map((o, i) => readObject(o, `objects[${i}]`, budget));
  return { objects, camera: doc.camera && typeof doc.camera === "object" ? doc.camera : null };
}

/** Throws the Error that says what is wrong (`what`, in the person's language) where. */
function fail(where, what) { throw new Error(`${where}: ${what}`); }

/** What a number must be: finite, and within the bounds it has. */
function numberRule(min, max) {
  if (min > -Infinity && max < Infinity) return t("document.number.between", { min, max });
  if (min > -Infinity) return t("document.number.from", { min });
  return max < Infinity ? t("document.number.to", { max }) : t("document.number");
}

const isNumber = (v) => typeof v === "number" && Number.isFinite(v) && Math.abs(v) <= DOCUMENT_LIMITS.coordinate;

function number(o, key, where, { min = -Infinity, max = Infinity } = {}) {
  const v = o[key];
  if (!isNumber(v) || v < min || v > max) fail(`${where}.${key}`, numberRule(min, max));
  return v;
}

function color(o, key, where, optional = false) {
  const v = o[key];
  if (optional && (v === null || v === undefined)) return null;
  if (typeof v !== "string" || !COLOR.test(v)) fail(`${where}.${key}`, t("document.colour"));
  return v;
}

function string(o, key, where, max = 1000) {
  const v = o[key];
  if (typeof v !== "string" || v.length > max) fail(`${where}.${key}`, t("document.text", { count: max }));
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
  if (!Array.isArray(list) || !list.length) fail(where, t("document.strokes"));
  budget.strokes += list.length;
  if (budget.strokes > DOCUMENT_LIMITS.strokes) fail(where, t("document.tooManyStrokes", { count: DOCUMENT_LIMITS.strokes }));
  return list.map((s, i) => {
    const at = `${where}[${i}]`;
    if (!s || typeof s !== "object") fail(at, t("document.stroke"));
    const { x, y, t: times } = s;
    if (![x, y, times].every(Array.isArray) || !x.length || x.length !== y.length || x.length !== times.length) fail(at, t("document.strokeArrays"));
    budget.points += x.length;
    if (budget.points > DOCUMENT_LIMITS.points) fail(at, t("document.tooManyPoints", { count: DOCUMENT_LIMITS.points }));
    if (![x, y, times].every((a) => a.every(isNumber))) fail(at, t("document.coordinates"));
    return Object.freeze({ color: color(s, "color", at), width: number(s, "width", at, { min: 0.1, max: 400 }), x: x.slice(), y: y.slice(), t: times.slice() });
  });
}

/** A picture URL this app itself would use: a library path, or a web picture's http(s) URL. */
function url(o, key, where) {
  const v = string(o, key, where, 4096);
  if (!v.startsWith("/api/library/") && !/^https?:\/\//.test(v)) fail(`${where}.${key}`, t("document.url"));
  return v;
}

/** The optional text fields `keys` of `o` that it has (the names the server gave in the person's
 *  language: display, displayTitle). */
function optionalTexts(o, keys, where) {
  return Object.fromEntries(keys.filter((key) => o[key] !== undefined && o[key] !== null).map((key) => [key, string(o, key, where)]));
}

/** The pictures offered with an object (suggestion objects of /api/suggest), or null. */
function alternatives(list, where) {
  if (!Array.isArray(list)) return null;
  return Object.freeze(list.slice(0, 200).filter((a) => a && typeof a === "object").map((a, i) => {
    const at = `${where}[${i}]`;
    return {
      id: string(a, "id", at, 4096), label: string(a, "label", at), title: string(a, "title", at), source: string(a, "source", at),
      ...optionalTexts(a, ["display", "displayTitle"], at),
      image: url(a, "image", at), thumbnail: url(a, "thumbnail", at),
      width: number(a, "width", at, { min: 1 }), height: number(a, "height", at, { min: 1 }), score: typeof a.score === "number" ? a.score : 0,
    };
  }));
}

const MAX_SCORED = 10;

/** A list of at most 10 {[name]: text, [display]: its name in the person's language, [score]: 0…1}
 *  (a photo's labels or classes). */
function scored(o, key, where, name, score) {
  const list = o[key];
  if (!Array.isArray(list) || list.length > MAX_SCORED) fail(`${where}.${key}`, t("document.list", { count: MAX_SCORED }));
  return Object.freeze(list.map((item, i) => {
    const at = `${where}.${key}[${i}]`;
    if (!item || typeof item !== "object") fail(at, t("document.object"));
    return Object.freeze({ [name]: string(item, name, at), ...optionalTexts(item, ["display"], at), [score]: number(item, score, at, { min: 0, max: 1 }) });
  }));
}

function photo(o, where) {
  const src = o.src;
  if (typeof src !== "string" || src.length > DOCUMENT_LIMITS.photo || !PHOTO_SRC.test(src)) {
    fail(`${where}.src`, t("document.photo", { size: DOCUMENT_LIMITS.photo / MIB }));
  }
  return {
    src, opacity: number(o, "opacity", where, { min: 0.05, max: 1 }),
    labels: scored(o, "labels", where, "text", "confidence"), classes: scored(o, "classes", where, "label", "probability"),
    alternatives: alternatives(o.alternatives, `${where}.alternatives`),
  };
}

function readObject(o, where, budget) {
  if (!o || typeof o !== "object") fail(where, t("document.object"));
  const common = box(o, where);
  switch (o.type) {
    case "sketch": {
      const n = o.natural;
      if (!n || typeof n !== "object") fail(`${where}.natural`, t("document.box"));
      const natural = { x: number(n, "x", `${where}.natural`), y: number(n, "y", `${where}.natural`), w: number(n, "w", `${where}.natural`, { min: 0 }), h: number(n, "h", `${where}.natural`, { min: 0 }) };
      return { type: "sketch", ...common, natural, strokes: Object.freeze(strokes(o.strokes, `${where}.strokes`, budget)), recognize: o.recognize !== false, fill: color(o, "fill", where, true) };
    }
    case "picture": {
      const sketch = o.sketch === null || o.sketch === undefined ? null : Object.freeze(strokes(o.sketch, `${where}.sketch`, budget));
      return {
        type: "picture", ...common, libraryId: string(o, "libraryId", where, 4096), source: string(o, "source", where), label: string(o, "label", where),
        title: string(o, "title", where), ...optionalTexts(o, ["displayTitle"], where), image: url(o, "image", where), thumbnail: url(o, "thumbnail", where),
        aspect: number(o, "aspect", where, { min: 0.001 }), colour: o.colour === true, sketch, alternatives: alternatives(o.alternatives, `${where}.alternatives`),
        lineWidth: o.lineWidth === undefined || o.lineWidth === null ? null : number(o, "lineWidth", where, { min: 0.1, max: 400 }),
      };
    }
    case "shape":
      if (!SHAPES.includes(o.shape)) fail(`${where}.shape`, t("document.oneOf", { values: quoted(SHAPES) }));
      return { type: "shape", ...common, shape: o.shape, color: color(o, "color", where), width: number(o, "width", where, { min: 0.1, max: 400 }), fill: color(o, "fill", where, true), rising: o.rising === true };
    case "text":
      return { type: "text", ...common, text: string(o, "text", where, DOCUMENT_LIMITS.text), color: color(o, "color", where), size: number(o, "size", where, { min: 1, max: 4000 }) };
    case "photo":
      return { type: "photo", ...common, ...photo(o, where) };
    default:
      return fail(`${where}.type`, t("document.oneOf", { values: quoted(TYPES) }));
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
      if (!this.warned) this.onError(t("autosave.off", { reason: e.name }));
      this.warned = true;
    }
  }

  /** The saved text, or null. */
  static load() {
    return kept(AUTOSAVE_KEY);
  }

  /** Keeps a copy that could not be restored, so that nothing is lost, and clears the slot. */
  static setAside(text) {
    if (keep(`${AUTOSAVE_KEY}.unreadable`, text)) forget(AUTOSAVE_KEY);
  }
}
