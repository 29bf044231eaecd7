// Which objects a new AutoDraw stroke belongs to, decided as it is drawn, so that the "Do you mean"
// card guesses the object being drawn and a swap replaces only its strokes.
//
// A stroke belongs to a sketch when its box lies within MARGIN of the box of one of the sketch's
// strokes, MARGIN being a share of the larger of the two boxes' diagonals (the test of the
// server's scene grouping, StrokeGrouper.swift, with a wider margin and no wider one for strokes
// drawn one after the other). A stroke near no sketch starts a new object rather than joining the
// nearest one: joining far strokes is what merged a sun and a house into "animal migration",
// while a detail drawn off an object (a ray, a raindrop) is near enough to join it. A stroke near
// several sketches joins them into one: it is what ties a bicycle's second wheel, drawn apart, to
// the first. Measured on 6,301 real drawings (`node bench/grouping.mjs`): 96.3 % stay one object,
// and pairs drawn 0.3 / 0.4 of their width apart stay two in 86.6 / 91.8 %. A margin of 0.12
// kept only 94.5 % whole (and a fifth of detached sun rays apart); 0.25 needs pairs half their
// width apart.

import { strokesBounds } from "./geometry.js";

/** The margin, as a share of the larger box diagonal. */
export const MARGIN = 0.2;

const diagonal = (b) => Math.hypot(b.w, b.h);

/** The distance between two boxes {x, y, w, h} (0 when they touch or overlap). */
function gap(a, b) {
  const dx = Math.max(0, a.x - (b.x + b.w), b.x - (a.x + a.w));
  const dy = Math.max(0, a.y - (b.y + b.h), b.y - (a.y + a.h));
  return Math.hypot(dx, dy);
}

/** Whether boxes `a` and `b` lie within the margin of each other. */
const near = (a, b) => gap(a, b) <= MARGIN * Math.max(diagonal(a), diagonal(b));

/** The sketches among `sketches` (recognised, untransformed) that `stroke` lies near, in their
 *  order: none when it starts a new object, several when it joins them into one. */
export function sketchesToJoin(sketches, stroke) {
  const box = strokesBounds([stroke]);
  return sketches.filter((sketch) => sketch.strokes.some((s) => near(box, strokesBounds([s]))));
}
