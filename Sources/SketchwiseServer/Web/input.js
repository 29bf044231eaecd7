// Pointer input on the canvas (mouse, touch, pen through Pointer Events): records strokes as
// Quick, Draw! raw points (x, y in CSS pixels, t in ms since the drawing started) with pointer
// capture and coalesced events, or drags a group with the Move tool. One pointer at a time.

export class PointerInput {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{
   *   tool: () => "draw"|"move", pen: () => {color: string, width: number},
   *   timeOrigin: () => number,
   *   hitTest: (x: number, y: number) => ({group: number}|null),
   *   onStrokeUpdate: (stroke: object|null) => void, onStrokeEnd: (stroke: object) => void,
   *   onDragUpdate: (drag: object|null) => void, onDragEnd: (drag: object) => void,
   * }} handlers
   */
  constructor(canvas, handlers) {
    this.canvas = canvas;
    this.h = handlers;
    this.active = null; // {id, mode, rect, stroke | drag}
    canvas.addEventListener("pointerdown", (e) => this.down(e));
    canvas.addEventListener("pointermove", (e) => this.move(e));
    canvas.addEventListener("pointerup", (e) => this.up(e, false));
    canvas.addEventListener("pointercancel", (e) => this.up(e, true));
    canvas.addEventListener("lostpointercapture", (e) => this.up(e, false));
    canvas.addEventListener("contextmenu", (e) => e.preventDefault());
  }

  /** True while a stroke or drag is in progress. */
  get busy() { return this.active !== null; }

  down(e) {
    if (this.active) return;                          // a second finger: ignore
    if (e.pointerType === "mouse" && e.button !== 0) return;
    e.preventDefault();
    try { this.canvas.setPointerCapture(e.pointerId); } catch { /* synthetic pointer */ }
    const rect = this.canvas.getBoundingClientRect();
    const [x, y] = this.local(e, rect);
    if (this.h.tool() === "move") {
      const hit = this.h.hitTest(x, y);
      if (!hit) return;
      this.active = { id: e.pointerId, mode: "move", rect, x0: x, y0: y, drag: { group: hit.group, dx: 0, dy: 0 } };
      this.canvas.classList.add("dragging");
      this.h.onDragUpdate(this.active.drag);
      return;
    }
    const pen = this.h.pen();
    const stroke = { color: pen.color, width: pen.width, x: [], y: [], t: [] };
    this.active = { id: e.pointerId, mode: "draw", rect, stroke };
    this.addPoint(stroke, x, y, e.timeStamp);
    this.h.onStrokeUpdate(stroke);
  }

  move(e) {
    const a = this.active;
    if (!a || e.pointerId !== a.id) return;
    e.preventDefault();
    const events = typeof e.getCoalescedEvents === "function" ? e.getCoalescedEvents() : [];
    const list = events.length ? events : [e];
    if (a.mode === "move") {
      const [x, y] = this.local(list[list.length - 1], a.rect);
      a.drag = { group: a.drag.group, dx: x - a.x0, dy: y - a.y0 };
      this.h.onDragUpdate(a.drag);
      return;
    }
    for (const ev of list) {
      const [x, y] = this.local(ev, a.rect);
      this.addPoint(a.stroke, x, y, ev.timeStamp || e.timeStamp);
    }
    this.h.onStrokeUpdate(a.stroke);
  }

  up(e, cancelled) {
    const a = this.active;
    if (!a || e.pointerId !== a.id) return;
    this.active = null;
    try { this.canvas.releasePointerCapture(e.pointerId); } catch { /* already released */ }
    if (a.mode === "move") {
      this.canvas.classList.remove("dragging");
      this.h.onDragUpdate(null);
      if (!cancelled && (a.drag.dx || a.drag.dy)) this.h.onDragEnd(a.drag);
      return;
    }
    if (e.type === "pointerup") {
      const [x, y] = this.local(e, a.rect);
      this.addPoint(a.stroke, x, y, e.timeStamp);
    }
    this.h.onStrokeUpdate(null);
    if (!cancelled && a.stroke.x.length) this.h.onStrokeEnd(a.stroke);
  }

  /** Cancels a stroke or drag in progress (e.g. on undo during a stroke). */
  cancel() {
    if (!this.active) return;
    const a = this.active;
    this.active = null;
    try { this.canvas.releasePointerCapture(a.id); } catch { /* ignore */ }
    this.canvas.classList.remove("dragging");
    if (a.mode === "move") this.h.onDragUpdate(null); else this.h.onStrokeUpdate(null);
  }

  local(ev, rect) {
    return [ev.clientX - rect.left, ev.clientY - rect.top];
  }

  addPoint(s, x, y, timeStamp) {
    const xi = Math.round(x), yi = Math.round(y);
    const n = s.x.length;
    if (n && s.x[n - 1] === xi && s.y[n - 1] === yi) return;  // same pixel: skip
    const t = Math.max(0, Math.round(timeStamp - this.h.timeOrigin()));
    s.x.push(xi); s.y.push(yi);
    s.t.push(n && t < s.t[n - 1] ? s.t[n - 1] : t);
  }
}
