// Pointer input on the canvas (mouse, touch, pen through Pointer Events), by tool: strokes as
// Quick, Draw! raw points (document coordinates, t in ms since the drawing started), shapes
// dragged out, a click for text or fill, selecting and moving objects. Two fingers pinch-zoom
// and pan; the wheel pans (zooms with Ctrl, as trackpad pinches do); the middle button or
// Space + drag pans with any tool.

const SLOP_PX = 8;   // how near (screen pixels) a click must be to an object to hit it
const CLICK_PX = 3;  // how far (screen pixels) the pointer may waver in a click on an object

const midpoint = (a, b) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });

export class PointerInput {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} h  handlers: tool(), pen(), shapeKind(), timeOrigin(), toDocument(p), zoom(),
   *   pan(dx, dy), zoomAt(factor, p), objectAt(p, slop), selectableAt(p, slop) (what Select takes),
   *   onStrokeUpdate(s|null), onStrokeEnd(s),
   *   onShapeUpdate(o|null), onShapeEnd(o), onSelect(o|null), onMoveUpdate(move|null),
   *   onMoveEnd(move), onFill(o|null), onText(p)
   */
  constructor(canvas, h) {
    this.canvas = canvas;
    this.h = h;
    this.active = null;          // the gesture in progress
    this.pointers = new Map();   // touch pointers down: id → {x, y} (screen)
    this.spaceDown = false;
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointerup", (e) => this.up(e, false));
    canvas.addEventListener("pointercancel", (e) => this.up(e, true));
    canvas.addEventListener("lostpointercapture", (e) => this.up(e, false));
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
    canvas.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    window.addEventListener("keydown", (e) => { if (e.code === "Space" && !isTyping(e.target)) { this.spaceDown = true; canvas.dataset.panning = "ready"; } });
    window.addEventListener("keyup", (e) => { if (e.code === "Space") { this.spaceDown = false; delete canvas.dataset.panning; } });
  }

  /** True while a gesture is in progress. */
  get busy() { return this.active !== null; }

  screen(e, rect = this.canvas.getBoundingClientRect()) { return { x: e.clientX - rect.left, y: e.clientY - rect.top }; }

  down(e) {
    if (e.pointerType === "touch") {
      this.pointers.set(e.pointerId, this.screen(e));
      if (this.pointers.size === 2) { this.startPinch(); return; }
    }
    if (this.active) return;
    const middle = e.pointerType === "mouse" && e.button === 1;
    if (e.pointerType === "mouse" && e.button !== 0 && !middle) return;
    e.preventDefault();
    // A press on the drawing takes the keyboard from the buttons (the prevented mouse events would
    // have), so that Enter and the letter keys act on the drawing again.
    const focused = document.activeElement;
    if (focused instanceof HTMLButtonElement || focused instanceof HTMLSelectElement) focused.blur();
    try { this.canvas.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer */ }
    const rect = this.canvas.getBoundingClientRect();
    const s = this.screen(e, rect), p = this.h.toDocument(s);
    const base = { id: e.pointerId, rect, s0: s, p0: p };
    if (middle || this.spaceDown) { this.active = { ...base, mode: "pan", last: s }; this.canvas.dataset.panning = "active"; return; }
    const tool = this.h.tool();
    const slop = SLOP_PX / this.h.zoom();
    if (tool === "select") {
      const hit = this.h.selectableAt(p, slop);
      this.h.onSelect(hit);
      this.active = hit ? { ...base, mode: "move", object: hit, move: { id: hit.id, dx: 0, dy: 0 } } : { ...base, mode: "pan", last: s };
      if (!hit) this.canvas.dataset.panning = "active";
    } else if (tool === "fill") {
      this.h.onFill(this.h.objectAt(p, slop));
    } else if (tool === "text") {
      this.h.onText(p);
    } else if (tool === "shape") {
      this.active = { ...base, mode: "shape", shape: null };
    } else {
      const pen = this.h.pen();
      const stroke = { color: pen.color, width: pen.width, x: [], y: [], t: [] };
      this.active = { ...base, mode: "draw", stroke };
      this.addPoint(stroke, p, e.timeStamp);
      this.h.onStrokeUpdate(stroke);
    }
    // While something is drawn or moved, the cards over the canvas fade (style.css), so that what is under them shows.
    if (this.active && this.active.mode !== "pan") this.canvas.dataset.gesture = this.active.mode;
  }

  move(e) {
    if (e.pointerType === "touch" && this.pointers.has(e.pointerId)) {
      this.pointers.set(e.pointerId, this.screen(e));
      if (this.active && this.active.mode === "pinch") { e.preventDefault(); this.pinch(); return; }
    }
    const a = this.active;
    if (!a || e.pointerId !== a.id) return;
    e.preventDefault();
    const events = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
    const list = events.length ? events : [e];
    const s = this.screen(list[list.length - 1], a.rect), p = this.h.toDocument(s);
    if (a.mode === "pan") {
      this.h.pan(s.x - a.last.x, s.y - a.last.y);
      a.last = s;
    } else if (a.mode === "move") {
      // A click whose pointer wavers a few pixels moves nothing; past that, the whole way.
      a.moving = a.moving || Math.hypot(s.x - a.s0.x, s.y - a.s0.y) >= CLICK_PX;
      if (!a.moving) return;
      a.move = { id: a.object.id, dx: p.x - a.p0.x, dy: p.y - a.p0.y };
      this.h.onMoveUpdate(a.move);
    } else if (a.mode === "shape") {
      a.shape = shapeBetween(this.h.shapeKind(), a.p0, p, e.shiftKey, this.h.pen());
      this.h.onShapeUpdate(a.shape);
    } else if (a.mode === "draw") {
      for (const ev of list) this.addPoint(a.stroke, this.h.toDocument(this.screen(ev, a.rect)), ev.timeStamp || e.timeStamp);
      this.h.onStrokeUpdate(a.stroke);
    }
  }

  up(e, cancelled) {
    if (e.pointerType === "touch") {
      this.pointers.delete(e.pointerId);
      if (this.active && this.active.mode === "pinch") {
        if (this.pointers.size < 2) this.active = null;
        return;
      }
    }
    const a = this.active;
    if (!a || e.pointerId !== a.id) return;
    this.active = null;
    try { this.canvas.releasePointerCapture(e.pointerId); } catch { /* already released */ }
    delete this.canvas.dataset.panning;
    delete this.canvas.dataset.gesture;
    if (this.spaceDown) this.canvas.dataset.panning = "ready";
    if (a.mode === "move") {
      this.h.onMoveUpdate(null);
      if (!cancelled && (a.move.dx || a.move.dy)) this.h.onMoveEnd(a.move);
    } else if (a.mode === "shape") {
      this.h.onShapeUpdate(null);
      if (!cancelled && a.shape && (a.shape.w >= 2 || a.shape.h >= 2)) this.h.onShapeEnd(a.shape);
    } else if (a.mode === "draw") {
      if (e.type === "pointerup") this.addPoint(a.stroke, this.h.toDocument(this.screen(e, a.rect)), e.timeStamp);
      this.h.onStrokeUpdate(null);
      if (!cancelled && a.stroke.x.length) this.h.onStrokeEnd(a.stroke);
    }
  }

  /** Cancels the gesture in progress (e.g. undo during a stroke, or a second finger). */
  cancel() {
    const a = this.active;
    if (!a) return;
    this.active = null;
    if (a.id !== undefined) { try { this.canvas.releasePointerCapture(a.id); } catch { /* ignore */ } }
    delete this.canvas.dataset.panning;
    delete this.canvas.dataset.gesture;
    if (a.mode === "move") this.h.onMoveUpdate(null);
    else if (a.mode === "shape") this.h.onShapeUpdate(null);
    else if (a.mode === "draw") this.h.onStrokeUpdate(null);
  }

  startPinch() {
    this.cancel();
    const [a, b] = [...this.pointers.values()];
    this.active = { mode: "pinch", mid: midpoint(a, b), dist: Math.hypot(a.x - b.x, a.y - b.y) || 1 };
  }

  pinch() {
    const [a, b] = [...this.pointers.values()];
    const mid = midpoint(a, b), dist = Math.hypot(a.x - b.x, a.y - b.y) || 1;
    const g = this.active;
    this.h.pan(mid.x - g.mid.x, mid.y - g.mid.y);
    this.h.zoomAt(dist / g.dist, mid);
    g.mid = mid; g.dist = dist;
  }

  wheel(e) {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (e.ctrlKey || e.metaKey) {
      this.h.zoomAt(Math.exp((-e.deltaY * unit) / 300), this.screen(e));
    } else {
      const dx = e.shiftKey && !e.deltaX ? e.deltaY : e.deltaX;
      const dy = e.shiftKey && !e.deltaX ? 0 : e.deltaY;
      this.h.pan(-dx * unit, -dy * unit);
    }
  }

  addPoint(s, p, timeStamp) {
    const x = Math.round(p.x * 100) / 100, y = Math.round(p.y * 100) / 100;
    const n = s.x.length;
    if (n && Math.abs(s.x[n - 1] - x) < 0.5 / this.h.zoom() && Math.abs(s.y[n - 1] - y) < 0.5 / this.h.zoom()) return;
    const t = Math.max(0, Math.round(timeStamp - this.h.timeOrigin()));
    s.x.push(x); s.y.push(y);
    s.t.push(n && t < s.t[n - 1] ? s.t[n - 1] : t);
  }
}

/** After a choice in `select` made with the pointer, the select lets go of the keyboard, so the
 *  single-key shortcuts work again at once (a focused select takes a key as a search among its
 *  options); after one made with its keys it keeps the focus, so the arrow keys go on choosing. */
export function letGoAfterPointerChoice(select) {
  let byKeys = false;
  select.addEventListener("keydown", () => { byKeys = true; });
  select.addEventListener("pointerdown", () => { byKeys = false; });
  select.addEventListener("change", () => { if (!byKeys) select.blur(); });
}

/** Whether a key event's target is a text field (where keys type rather than command). */
export function isTyping(target) {
  return (target instanceof HTMLInputElement && !["range", "color", "button", "checkbox", "radio"].includes(target.type))
    || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement || (target && target.isContentEditable);
}

/** The shape object dragged from a to b (Shift: a square, circle or 45° line). */
export function shapeBetween(kind, a, b, constrain, pen) {
  let dx = b.x - a.x, dy = b.y - a.y;
  if (constrain) {
    const m = Math.max(Math.abs(dx), Math.abs(dy));
    dx = Math.sign(dx || 1) * m; dy = Math.sign(dy || 1) * m;
  }
  return {
    type: "shape", id: -1, shape: kind, x: Math.min(a.x, a.x + dx), y: Math.min(a.y, a.y + dy), w: Math.abs(dx), h: Math.abs(dy),
    rotation: 0, color: pen.color, width: pen.width, fill: null, rising: dx * dy < 0,
  };
}
