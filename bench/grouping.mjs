// How well the web app's stroke grouping (Sources/SketchwiseServer/Web/grouping.js) finds objects
// in real Quick, Draw! drawings, replayed stroke by stroke as a person draws them:
//   whole:    one drawing alone stays one object;
//   apart:    two drawings of different classes, the second drawn to the right of the first with a
//             gap of GAP × the larger drawing's width, end as exactly those two objects.
// The strokes go through the app's document model (model.js, addGroupedStroke). Each drawing is
// scaled so that its longer side is 300 px and drawn with a 4 px pen, as in the app.
//
//   node bench/grouping.mjs [RAW_DIR] [PER_CLASS]
// RAW_DIR defaults to ../shared/data/quickdraw/raw (Google's raw ndjson, one file per class), and
// falls back to the committed sample; PER_CLASS (default 20) drawings of each class are used.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { emptyState, addGroupedStroke } from "../Sources/SketchwiseServer/Web/model.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const shared = join(repo, "..", "shared", "data", "quickdraw", "raw");
const rawDir = process.argv[2] || (existsSync(shared) ? shared : join(repo, "Tests", "Fixtures", "quickdraw", "raw"));
const perClass = Number(process.argv[3] || 20);
const GAPS = [0.2, 0.3, 0.4, 0.5, 0.75];
const SIDE = 300, PEN = 4;

/** The first `n` drawings of a raw ndjson file, scaled to SIDE px, as app strokes. */
function drawings(file, n) {
  const out = [];
  const text = readFileSync(file, "utf8");
  let start = 0;
  while (out.length < n && start < text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    if (!line.trim()) continue;
    const drawing = JSON.parse(line).drawing;
    const xs = drawing.flatMap((s) => s[0]), ys = drawing.flatMap((s) => s[1]);
    const minX = Math.min(...xs), minY = Math.min(...ys);
    const scale = SIDE / Math.max(Math.max(...xs) - minX, Math.max(...ys) - minY, 1);
    out.push(drawing.map((s) => ({ width: PEN, x: s[0].map((v) => (v - minX) * scale), y: s[1].map((v) => (v - minY) * scale) })));
  }
  return out;
}

/** The objects found when `strokes` are drawn in order, by the app's own document model: for
 *  each, the indices of its strokes. */
function replay(strokes) {
  let state = emptyState();
  strokes.forEach((stroke, index) => { state = addGroupedStroke(state, { ...stroke, index }); });
  return state.objects.map((o) => o.strokes.map((s) => s.index).sort((a, b) => a - b));
}

const width = (d) => Math.max(...d.flatMap((s) => s.x)) + PEN;
const shifted = (d, dx) => d.map((s) => ({ ...s, x: s.x.map((v) => v + dx) }));
const percent = (k, n) => `${((100 * k) / n).toFixed(1)} %`;

const files = readdirSync(rawDir).filter((f) => f.endsWith(".ndjson")).sort();
const classes = files.map((f) => ({ name: f.replace(/\.ndjson$/, ""), drawings: drawings(join(rawDir, f), perClass) }));
const all = classes.flatMap((c) => c.drawings);

let whole = 0;
const split = new Map();
for (const c of classes) for (const d of c.drawings) {
  if (replay(d).length === 1) whole++;
  else split.set(c.name, (split.get(c.name) || 0) + 1);
}
console.log(`${rawDir}: ${classes.length} classes, ${all.length} drawings`);
console.log(`whole: ${whole} of ${all.length} drawings stay one object (${percent(whole, all.length)})`);
const worst = [...split].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([name, k]) => `${name} ${k}`).join(", ");
if (worst) console.log(`  split most often: ${worst}`);

// Pairs: drawing i of class a, then drawing i of the class after a (so each pair mixes classes).
for (const g of GAPS) {
  let apart = 0, pairs = 0;
  classes.forEach((a, k) => {
    const b = classes[(k + 1) % classes.length];
    a.drawings.forEach((first, i) => {
      const second = b.drawings[i];
      if (!second || classes.length < 2) return;
      const offset = width(first) + g * Math.max(width(first), width(second));
      const objects = replay([...first, ...shifted(second, offset)]);
      const firstCount = first.length;
      pairs++;
      if (objects.length === 2 && objects[0].length === firstCount && objects[0].every((m) => m < firstCount)) apart++;
    });
  });
  console.log(`apart, gap ${g} × width: ${apart} of ${pairs} pairs are exactly the two objects (${percent(apart, pairs)})`);
}
