// The editor's one UI state: the document (model.js's scene), the tool, the selection, what the
// "Do you mean" strip is for, scene mode and the text being typed. It changes only through
// commit(change), which checks the change, makes the next (frozen) state and tells every
// listener; the listeners draw what changed. Timers and in-flight bookkeeping stay private to the
// module that owns them.

/** The tools of the rail, by name (the names setTool and the test hook take). */
export const Tool = Object.freeze({
  select: "select", autodraw: "autodraw", draw: "draw", shape: "shape", text: "text", fill: "fill",
});
export const TOOLS = Object.freeze(Object.values(Tool));

/** The shapes the Shape tool drags out. */
export const SHAPES = Object.freeze(["ellipse", "rectangle", "triangle", "line"]);

/** What the strip shows pictures for, and so what picking one replaces. */
export const Target = Object.freeze({
  /** The current AutoDraw sketch: live guesses follow it. */
  sketch: Object.freeze({ kind: "sketch" }),
  /** A placed object (a sketch, picture or photo) by id. */
  object: (id) => Object.freeze({ kind: "object", id }),
  /** One object of the scene: the strokes (stroke items of sketch `sketchId`) the server grouped. */
  sceneObject: (sketchId, strokes, trackingID) => Object.freeze({ kind: "scene", sketchId, strokes: Object.freeze(strokes.slice()), trackingID }),
});

/** Whether `target` is object `id`. */
export const targetsObject = (target, id) => target.kind === "object" && target.id === id;

const KINDS = new Set(["sketch", "object", "scene"]);

/** Checks each field of a change; throws on a value the state can't hold (a programming error). */
const CHECKS = {
  doc: (v) => v && Array.isArray(v.objects),
  tool: (v) => TOOLS.includes(v),
  shapeKind: (v) => SHAPES.includes(v),
  selected: (v) => v === null || Number.isInteger(v),
  target: (v) => v && KINDS.has(v.kind) && Object.isFrozen(v),
  sceneMode: (v) => typeof v === "boolean",
  scene: (v) => v && Array.isArray(v.objects) && Array.isArray(v.strokes),
  picking: (v) => typeof v === "boolean",
  textEditing: (v) => v === null || (v && v.p && "object" in v),
  drawingStart: (v) => v === null || Number.isFinite(v),
};

export const EMPTY_SCENE = Object.freeze({ objects: Object.freeze([]), strokes: Object.freeze([]) });

export class UIState {
  /** @param {object} doc  the document to start with (model.js's emptyState() or a restored one) */
  constructor(doc) {
    this.state = Object.freeze({
      doc,
      tool: Tool.autodraw,
      shapeKind: "ellipse",
      selected: null,          // id of the selected object
      target: Target.sketch,   // what the strip is for
      sceneMode: false,
      scene: EMPTY_SCENE,      // the current sketch's objects as last found, and the stroke items they number
      picking: false,          // a picked picture is loading
      textEditing: null,       // {p, object}: where text is being typed, and the text object edited (or null)
      drawingStart: null,      // performance.now() at the drawing's first point
    });
    this.listeners = [];
  }

  /**
   * Applies `change` (some fields of the state) and tells the listeners, in the order they
   * subscribed, as f(state, previous, how). `how` says how a document change came about
   * ({record: false}: kept out of undo; {quiet: true}: not an edit, nothing is redrawn or saved).
   * A listener may commit again: that change is applied and told at once, so read `ui.state` for
   * the latest. Returns whether anything changed.
   */
  commit(change, how = {}) {
    const prev = this.state;
    let changed = false;
    for (const [key, value] of Object.entries(change)) {
      if (!(key in CHECKS)) throw new Error(`ui state has no field ${key}`);
      if (!CHECKS[key](value)) throw new Error(`ui state: bad ${key}: ${JSON.stringify(value)}`);
      if (prev[key] !== value) changed = true;
    }
    if (!changed) return false;
    this.state = Object.freeze({ ...prev, ...change });
    const next = this.state;
    for (const f of this.listeners) f(next, prev, how);
    return true;
  }

  /** Calls f(state, previous, how) after every change; returns the unsubscribe function. */
  subscribe(f) {
    this.listeners.push(f);
    return () => { this.listeners = this.listeners.filter((g) => g !== f); };
  }
}
