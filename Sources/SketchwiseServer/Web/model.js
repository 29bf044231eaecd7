// The drawing model: an immutable list of items (strokes and placed pictures) plus the id of the
// "current sketch" group. Every operation returns a new state, so undo/redo is a stack of states.
//
// stroke:  { kind: "stroke",  id, group, color, width, x: [...], y: [...], t: [...] }
// picture: { kind: "picture", id, group, libId, label, title, image, thumbnail, x, y, w, h }
//
// The current sketch is the strokes whose group is `state.current`: the strokes drawn since the
// last swap, clear or load. A swap replaces them by a picture and starts a new group.

/** The empty drawing. */
export function emptyState() {
  return freeze({ items: [], current: 1, nextId: 2 });
}

function freeze(state) {
  Object.freeze(state.items);
  return Object.freeze(state);
}

/** Appends a stroke ({color, width, x, y, t}) to the current sketch. */
export function addStroke(state, stroke) {
  const item = Object.freeze({ kind: "stroke", id: state.nextId, group: state.current, ...stroke });
  return freeze({ ...state, items: [...state.items, item], nextId: state.nextId + 1 });
}

/** Removes the most recently drawn stroke still on the canvas (pictures stay). */
export function eraseLastStroke(state) {
  for (let i = state.items.length - 1; i >= 0; i--) {
    if (state.items[i].kind === "stroke") {
      const items = state.items.filter((_, j) => j !== i);
      return freeze({ ...state, items });
    }
  }
  return state;
}

/** Removes everything and starts a new sketch. */
export function clearAll(state) {
  return freeze({ items: [], current: state.nextId, nextId: state.nextId + 1 });
}

/** The strokes of the current sketch. */
export function currentStrokes(state) {
  return state.items.filter((it) => it.kind === "stroke" && it.group === state.current);
}

/** All strokes still drawn as strokes. */
export function allStrokes(state) {
  return state.items.filter((it) => it.kind === "stroke");
}

/** All placed pictures. */
export function pictures(state) {
  return state.items.filter((it) => it.kind === "picture");
}

/** Quick, Draw! raw form of strokes: [[[x…],[y…],[t…]], …]. */
export function toQuickDraw(strokes) {
  return strokes.map((s) => [s.x.slice(), s.y.slice(), s.t.slice()]);
}

/** Bounding box {x, y, w, h} of strokes (padded by half the pen width), or null when empty. */
export function strokesBounds(strokes) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const s of strokes) {
    const r = (s.width || 0) / 2;
    for (let i = 0; i < s.x.length; i++) {
      minX = Math.min(minX, s.x[i] - r); maxX = Math.max(maxX, s.x[i] + r);
      minY = Math.min(minY, s.y[i] - r); maxY = Math.max(maxY, s.y[i] + r);
    }
  }
  if (minX === Infinity) return null;
  return { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

/**
 * Replaces the current sketch by a library picture, centred on the sketch's bounding box and
 * fitted inside it with the picture's own aspect ratio (suggestion.width / suggestion.height).
 * `fallbackBox` places it when there is no current sketch. A new sketch group starts after it.
 */
export function swapForPicture(state, suggestion, fallbackBox, minSide = 48) {
  const box = strokesBounds(currentStrokes(state)) || fallbackBox;
  const rect = fitRect(box, suggestion.width, suggestion.height, minSide);
  const picture = Object.freeze({
    kind: "picture", id: state.nextId, group: state.nextId,
    libId: suggestion.id, label: suggestion.label, title: suggestion.title || suggestion.label,
    image: suggestion.image, thumbnail: suggestion.thumbnail,
    ...rect,
  });
  const kept = state.items.filter((it) => !(it.kind === "stroke" && it.group === state.current));
  return freeze({ items: [...kept, picture], current: state.nextId + 1, nextId: state.nextId + 2 });
}

/** The largest rectangle of aspect aw:ah centred in box (each side of box at least minSide). */
export function fitRect(box, aw, ah, minSide = 0) {
  const bw = Math.max(box.w, minSide), bh = Math.max(box.h, minSide);
  const cx = box.x + box.w / 2, cy = box.y + box.h / 2;
  const aspect = aw > 0 && ah > 0 ? aw / ah : 1;
  let w = bw, h = bw / aspect;
  if (h > bh) { h = bh; w = bh * aspect; }
  return { x: cx - w / 2, y: cy - h / 2, w, h };
}

/** Moves every item of a group by (dx, dy). */
export function translateGroup(state, group, dx, dy) {
  const items = state.items.map((it) => {
    if (it.group !== group) return it;
    if (it.kind === "picture") return Object.freeze({ ...it, x: it.x + dx, y: it.y + dy });
    return Object.freeze({ ...it, x: it.x.map((v) => v + dx), y: it.y.map((v) => v + dy) });
  });
  return freeze({ ...state, items });
}

/** Replaces the whole drawing by loaded strokes ({color, width, x, y, t}), as a new sketch. */
export function loadStrokes(state, strokes) {
  let next = clearAll(state);
  for (const s of strokes) next = addStroke(next, s);
  return next;
}

/** Counts for the canvas data attributes. */
export function counts(state) {
  let strokes = 0, pics = 0;
  for (const it of state.items) it.kind === "stroke" ? strokes++ : pics++;
  return { strokes, pictures: pics };
}
