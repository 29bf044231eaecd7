// The scene: an immutable list of objects in document coordinates, back to front. Every
// operation returns a new state, so undo/redo is a stack of states (history.js).
//
// Every object has an id and a box {x, y, w, h} with a rotation in degrees about its centre.
//   sketch:  strokes [{color, width, x: [], y: [], t: []}] drawn in the box `natural`, mapped
//            onto the object's box; `recognize` (AutoDraw strokes) and an optional `fill` for
//            its closed strokes.
//   picture: a library picture {libraryId, source, label, title, image, thumbnail, aspect,
//            colour}, with the strokes it replaced (`sketch`) and the other pictures that were
//            offered for them (`alternatives`), so its suggestions can be opened again; a line
//            picture keeps the pen width of those strokes (`lineWidth`) at any size.
//   shape:   {shape: ellipse|rectangle|triangle|line, color, width, fill, rising (lines)}.
//   text:    {text, color, size}.
//   photo:   a photo to trace over, kept at the back: {src (a JPEG data URL), opacity, labels
//            [{text, confidence}] (the photo model's), classes [{label, probability}] (drawing
//            classes) and the pictures offered for it (`alternatives`, null until known)}.
// `current` is the sketch that new strokes join (null: the next stroke starts one); an AutoDraw
// stroke joins the sketch it is drawn by instead (addGroupedStroke), so each object is a sketch.

import { centre, rotate, strokesBounds, fitRect, scaleBetween } from "./geometry.js";
import { sketchesToJoin } from "./grouping.js";

/** The empty scene. */
export function emptyState() {
  return freeze({ objects: [], current: null, nextId: 1 });
}

function freeze(state) {
  Object.freeze(state.objects);
  return Object.freeze(state);
}

const withObjects = (state, objects, extra = {}) => freeze({ ...state, objects, ...extra });

/** The object with `id`, or undefined. */
export const find = (state, id) => state.objects.find((o) => o.id === id);

/** The sketch that new strokes of this kind (recognised or plain) join, or null. */
export function currentSketch(state, recognize = true) {
  const o = state.current === null ? null : find(state, state.current);
  return o && o.type === "sketch" && o.recognize === recognize ? o : null;
}

/** Whether a sketch is drawn where it was drawn (not moved, resized or rotated since). */
export function untransformed(o) {
  const n = o.natural;
  return !o.rotation && o.x === n.x && o.y === n.y && o.w === n.w && o.h === n.h;
}

/**
 * Adds a stroke: it joins the current sketch of its kind, or starts a new sketch on top.
 * In scene mode the server splits the sketch into objects (swapStrokesForPicture swaps one).
 */
export function addStroke(state, stroke, recognize = true) {
  return addStrokeTo(state, stroke, recognize, currentSketch(state, recognize));
}

/** The recognised sketches that new strokes may join (untransformed), back to front. */
const recognizedSketches = (state) => state.objects.filter((o) => o.type === "sketch" && o.recognize && untransformed(o));

/** Adds an AutoDraw stroke to the object it is drawn by (grouping.js): the recognised sketch it
 *  lies near, which becomes the current one, or a new sketch on top. A stroke near several
 *  sketches joins them: the first of them takes the others' strokes, then the stroke. */
export function addGroupedStroke(state, stroke) {
  const near = sketchesToJoin(recognizedSketches(state), stroke);
  const joined = near.length > 1 ? joinSketches(state, near) : state;
  return addStrokeTo(joined, stroke, true, near.length ? find(joined, near[0].id) : null);
}

/** `sketches` (untransformed, back to front) as one, in the place of the first, which takes the
 *  others' strokes after its own and becomes the current sketch. */
function joinSketches(state, sketches) {
  const [first, ...others] = sketches;
  const taken = new Set(others.map((o) => o.id));
  const strokes = Object.freeze(sketches.flatMap((o) => o.strokes));
  const box = strokesBounds(strokes);
  const joined = Object.freeze({ ...first, strokes, natural: box, ...box });
  const objects = state.objects.filter((o) => !taken.has(o.id)).map((o) => (o.id === first.id ? joined : o));
  return withObjects(state, objects, { current: first.id });
}

/** The page's recognised sketches as one, which new strokes join: scene mode lets the server
 *  find, box and track the objects of the whole page. */
export function joinRecognizedSketches(state) {
  const sketches = recognizedSketches(state);
  return sketches.length > 1 ? joinSketches(state, sketches) : state;
}

/** Sketch `id` split into one sketch per group of its strokes (stroke items of the sketch: the
 *  objects scene mode found), in the sketch's place and in drawing order; strokes in no group stay
 *  in the first. The part holding the last stroke drawn becomes the current sketch. */
export function splitSketch(state, id, groups) {
  const sketch = find(state, id);
  if (!sketch || sketch.type !== "sketch" || !untransformed(sketch) || groups.length < 2) return state;
  const owner = new Map();
  groups.forEach((group, g) => group.forEach((s) => owner.set(s, g)));
  const parts = groups.map(() => []);
  for (const s of sketch.strokes) parts[owner.has(s) ? owner.get(s) : 0].push(s);
  const order = (part) => sketch.strokes.indexOf(part[0]);
  const kept = parts.filter((p) => p.length).sort((a, b) => order(a) - order(b));
  if (kept.length < 2) return state;
  let nextId = state.nextId;
  const made = kept.map((strokes, k) => {
    const box = strokesBounds(strokes);
    return Object.freeze({ ...sketch, id: k === 0 ? sketch.id : nextId++, strokes: Object.freeze(strokes), natural: box, ...box });
  });
  const last = sketch.strokes[sketch.strokes.length - 1];
  const objects = state.objects.flatMap((o) => (o.id === id ? made : [o]));
  return withObjects(state, objects, { current: made.find((o) => o.strokes.includes(last)).id, nextId });
}

/** Adds `stroke` to `sketch` (when it is untransformed), or as a new sketch on top. */
function addStrokeTo(state, stroke, recognize, sketch) {
  const s = Object.freeze({ ...stroke });
  if (sketch && untransformed(sketch)) {
    const strokes = Object.freeze([...sketch.strokes, s]);
    const box = strokesBounds(strokes);
    const next = Object.freeze({ ...sketch, strokes, natural: box, ...box });
    return withObjects(state, state.objects.map((o) => (o.id === sketch.id ? next : o)), { current: sketch.id });
  }
  const box = strokesBounds([s]);
  const created = Object.freeze({
    type: "sketch", id: state.nextId, ...box, rotation: 0, natural: box,
    strokes: Object.freeze([s]), recognize, fill: null,
  });
  return withObjects(state, [...state.objects, created], { current: created.id, nextId: state.nextId + 1 });
}

/** Adds a finished object (shape or text) on top; new strokes start a new sketch after it.
 *  A photo goes to the back instead, under everything, and the current sketch stays open. */
export function addObject(state, object) {
  const created = Object.freeze({ rotation: 0, ...object, id: state.nextId });
  if (created.type === "photo") return withObjects(state, [created, ...state.objects], { nextId: state.nextId + 1 });
  return withObjects(state, [...state.objects, created], { current: null, nextId: state.nextId + 1 });
}

/** Ends the current sketch: the next stroke starts a new one. */
export function closeSketch(state) {
  return state.current === null ? state : freeze({ ...state, current: null });
}

/** The strokes of a sketch as drawn on the page (its box and rotation applied). */
export function worldStrokes(o) {
  if (untransformed(o)) return o.strokes;
  const n = o.natural, c = centre(o), nc = centre(n);
  const { sx, sy } = scaleBetween(n, o);
  return o.strokes.map((s) => {
    const x = [], y = [];
    for (let i = 0; i < s.x.length; i++) {
      const p = rotate({ x: c.x + (s.x[i] - nc.x) * sx, y: c.y + (s.y[i] - nc.y) * sy }, c, o.rotation);
      x.push(Math.round(p.x * 100) / 100); y.push(Math.round(p.y * 100) / 100);
    }
    return { ...s, x, y, width: s.width * Math.sqrt(Math.abs(sx * sy)) };
  });
}

const NO_STROKES = Object.freeze([]);

/** The strokes of the current recognised sketch, for recognition (the same array while the
 *  sketch is unchanged). */
export function recognitionStrokes(state) {
  const sketch = currentSketch(state, true);
  return sketch ? worldStrokes(sketch) : NO_STROKES;
}

/** Every stroke on the page, in drawing order of the objects (for ndjson). */
export function allStrokes(state) {
  return state.objects.filter((o) => o.type === "sketch").flatMap(worldStrokes);
}

/** Quick, Draw! raw form of strokes: [[[x…],[y…],[t…]], …]. */
export function toQuickDraw(strokes) {
  return strokes.map((s) => [s.x.slice(), s.y.slice(), s.t.slice()]);
}

/** The pen width most of `strokes` were drawn with (the median), or null for none. */
function penWidth(strokes) {
  const widths = strokes.map((s) => s.width).filter((w) => w > 0).sort((a, b) => a - b);
  return widths.length ? widths[Math.floor(widths.length / 2)] : null;
}

/** The library picture object for `suggestion`, fitted into `box` (keeping its rotation).
 *  `extra.lineWidth` is the width its lines keep at any size (line pictures). */
function pictureFor(suggestion, box, extra) {
  const aspect = suggestion.width > 0 && suggestion.height > 0 ? suggestion.width / suggestion.height : 1;
  return Object.freeze({
    type: "picture", ...fitRect(box, aspect, 1, 48), rotation: box.rotation || 0,
    libraryId: suggestion.id, source: suggestion.source || "", label: suggestion.label,
    title: suggestion.title || suggestion.label, image: suggestion.image, thumbnail: suggestion.thumbnail,
    ...(suggestion.displayTitle ? { displayTitle: suggestion.displayTitle } : {}), aspect, colour: false, ...extra,
  });
}

/**
 * Replaces some strokes of sketch `id` (one object of a scene) by a library picture fitted into
 * their box; the sketch keeps its other strokes and stays the one new strokes join. Taking all
 * of its strokes replaces the whole sketch. Nothing changes unless the sketch is untransformed
 * and holds the strokes (the very stroke items of `sketch.strokes`).
 */
export function swapStrokesForPicture(state, id, strokes, suggestion, alternatives = null) {
  const sketch = find(state, id);
  if (!sketch || sketch.type !== "sketch" || !untransformed(sketch) || !strokes.length) return state;
  const taken = new Set(strokes);
  const rest = sketch.strokes.filter((s) => !taken.has(s));
  if (sketch.strokes.length - rest.length !== taken.size) return state;
  if (!rest.length) return swapForPicture(state, id, suggestion, alternatives);
  const picture = pictureFor(suggestion, { ...strokesBounds(strokes), rotation: 0 }, {
    id: state.nextId, lineWidth: penWidth(strokes),
    sketch: Object.freeze(strokes.map((s) => Object.freeze({ ...s }))),
    alternatives: alternatives && Object.freeze(alternatives.slice()),
  });
  const box = strokesBounds(rest);
  const kept = Object.freeze({ ...sketch, strokes: Object.freeze(rest), natural: box, ...box });
  const objects = [...state.objects.map((o) => (o.id === id ? kept : o)), picture];
  return withObjects(state, objects, { nextId: state.nextId + 1 });
}

/**
 * Replaces object `id` (a sketch, or a picture swapped again) by a library picture, centred on
 * its box and fitted inside it with the picture's aspect. The strokes it replaces and the
 * pictures offered with it are kept on the picture. Without `id` the picture goes into
 * `fallbackBox`.
 */
export function swapForPicture(state, id, suggestion, alternatives = null, fallbackBox = null) {
  const target = id === null || id === undefined ? null : find(state, id);
  if (!target && !fallbackBox) return state;
  const sketch = !target ? null : target.type === "sketch" ? worldStrokes(target) : target.sketch || null;
  const kept = alternatives || (target && target.alternatives) || null;
  const picture = pictureFor(suggestion, target || fallbackBox, {
    id: target ? target.id : state.nextId, lineWidth: (target && target.lineWidth) || (sketch && penWidth(sketch)),
    sketch: sketch && Object.freeze(sketch.map((s) => Object.freeze({ ...s }))),
    alternatives: kept && Object.freeze(kept.slice()),
  });
  const objects = target ? state.objects.map((o) => (o.id === target.id ? picture : o)) : [...state.objects, picture];
  return withObjects(state, objects, { current: null, nextId: target ? state.nextId : state.nextId + 1 });
}

const untransformedAfter = (o) => o.type !== "sketch" || untransformed(o);

/** Changes fields of one object (box, rotation, colours, text…). */
export function updateObject(state, id, patch) {
  const o = find(state, id);
  if (!o) return state;
  const next = Object.freeze({ ...o, ...patch });
  return withObjects(state, state.objects.map((x) => (x.id === id ? next : x)), {
    current: state.current === id && !untransformedAfter(next) ? null : state.current,
  });
}

/** Object `o` moved by (dx, dy); a sketch's strokes move with it, so it stays drawable. */
export function movedObject(o, dx, dy) {
  const moved = { ...o, x: o.x + dx, y: o.y + dy };
  if (o.type === "sketch") {
    moved.natural = { ...o.natural, x: o.natural.x + dx, y: o.natural.y + dy };
    moved.strokes = Object.freeze(o.strokes.map((s) => Object.freeze({ ...s, x: s.x.map((v) => v + dx), y: s.y.map((v) => v + dy) })));
  }
  return Object.freeze(moved);
}

/** Moves object `id` by (dx, dy). */
export function moveObject(state, id, dx, dy) {
  const o = find(state, id);
  if (!o || (!dx && !dy)) return state;
  return withObjects(state, state.objects.map((x) => (x.id === id ? movedObject(o, dx, dy) : x)));
}

/** Removes the last stroke of sketch `id` (a sketch keeps at least one; remove it instead). */
export function removeLastStroke(state, id) {
  const o = find(state, id);
  if (!o || o.type !== "sketch" || o.strokes.length < 2) return state;
  const strokes = Object.freeze(o.strokes.slice(0, -1));
  const box = strokesBounds(strokes);
  const next = untransformed(o) ? { ...o, strokes, natural: box, ...box } : { ...o, strokes };
  return withObjects(state, state.objects.map((x) => (x.id === id ? Object.freeze(next) : x)));
}

/** Removes one object. */
export function removeObject(state, id) {
  if (!find(state, id)) return state;
  return withObjects(state, state.objects.filter((o) => o.id !== id), { current: state.current === id ? null : state.current });
}

/** A copy of object `id`, offset by (dx, dy), on top; returns [state, new id]. */
export function duplicateObject(state, id, dx = 16, dy = 16) {
  const o = find(state, id);
  if (!o) return [state, null];
  const copy = Object.freeze({ ...movedObject(o, dx, dy), id: state.nextId });
  return [withObjects(state, [...state.objects, copy], { current: null, nextId: state.nextId + 1 }), copy.id];
}

/** Moves object `id` one step towards the front (+1) or the back (−1). */
export function reorder(state, id, step) {
  const i = state.objects.findIndex((o) => o.id === id);
  const j = i + step;
  if (i < 0 || j < 0 || j >= state.objects.length) return state;
  const objects = state.objects.slice();
  [objects[i], objects[j]] = [objects[j], objects[i]];
  return withObjects(state, objects);
}

/** The empty scene, keeping the id counter (so undo never reuses ids). */
export function clearAll(state) {
  return freeze({ objects: [], current: null, nextId: state.nextId });
}

/** A scene of the given objects (from a document), ids renumbered from 1. The top object, when it
 *  is a recognised sketch where it was drawn, is the current sketch again, as it was when the
 *  document was saved: it is recognised, and the strokes drawn on it join it. */
export function fromObjects(objects) {
  const renumbered = objects.map((o, i) => Object.freeze({ ...o, id: i + 1 }));
  const top = renumbered[renumbered.length - 1];
  const current = top && top.type === "sketch" && top.recognize && untransformed(top) ? top.id : null;
  return freeze({ objects: renumbered, current, nextId: renumbered.length + 1 });
}

/** Counts for the canvas's data attributes. */
export function counts(state) {
  const c = { strokes: 0, pictures: 0, photos: 0, shapes: 0, texts: 0, objects: state.objects.length };
  for (const o of state.objects) {
    if (o.type === "sketch") c.strokes += o.strokes.length;
    else if (o.type === "picture") c.pictures++;
    else if (o.type === "photo") c.photos++;
    else if (o.type === "shape") c.shapes++;
    else if (o.type === "text") c.texts++;
  }
  return c;
}
