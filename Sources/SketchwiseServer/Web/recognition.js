// Asks about the current AutoDraw sketch whenever it changes: sends it to live recognition, marks
// the strip's guesses stale meanwhile, and asks whether it is one of the person's shortcuts (its
// picture then replaces the sketch). Within the server's limits: once GET /api/limits has told
// them, a sketch over them is not sent and one message says so; until then the server's own
// refusal ("too_large") is what the person is told, once.

import * as M from "./model.js";
import { Target, Tool } from "./ui-state.js";
import { shortcutPicture } from "./personal.js";
import { t, formatList } from "./i18n.js";
import { errorText } from "./server.js";

/** How long the pen rests before the drawing is taken as finished for the person's shortcuts. */
const SHORTCUT_REST_MS = 800;
/** How long an undone shortcut waits for a Redo before its drawing is sent as a misfire. */
const MISFIRE_SETTLE_MS = 2500;

export class Recognition {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.limits = null;       // {strokes?, points?, …} as the server told them; null: not (yet) known
    this.asked = null;        // the strokes last sent (an unchanged sketch keeps the same array)
    this.over = false;        // whether the sketch is over the limits known
    this.refused = false;     // whether the server refused the sketch as too large (told once)
    this.shortcutAsk = 0;
    this.fired = null;        // {label, name, strokes, doc}: the last shortcut placed and the document it made
    this.misfire = null;      // {fired, timer}: an undone shortcut whose misfire is sent unless redone soon
    // A page closed or left while a misfire waits for a Redo: the Undo stays, so it is sent now.
    window.addEventListener("pagehide", () => this.sendMisfire({ keepalive: true }));
  }

  /** The server's limits have come: from now on a sketch over them is not sent. */
  setLimits(limits) {
    this.limits = limits;
    this.recognize();
  }

  /** The most strokes the server recognises in one sketch, or undefined while unknown. */
  get maxStrokes() { return this.limits ? this.limits.strokes : undefined; }

  /** Whether `strokes` are over the limits known. */
  isOver(strokes) {
    const l = this.limits;
    if (!l) return false;
    if (l.strokes !== undefined && strokes.length > l.strokes) return true;
    return l.points !== undefined && strokes.reduce((n, s) => n + s.x.length, 0) > l.points;
  }

  /** The sentence that says where guesses stop, from the limits known. */
  limitText() {
    const l = this.limits, parts = [];
    if (l.strokes !== undefined) parts.push(t("recognition.strokes", { count: l.strokes }));
    if (l.points !== undefined) parts.push(t("recognition.points", { count: l.points }));
    return t("recognition.limit", { limits: formatList(parts, "disjunction") });
  }

  /** Sends the current AutoDraw sketch to recognition (within the server's limits). */
  recognize() {
    const { ui, panel, live, search, say } = this.ctx;
    const strokes = M.recognitionStrokes(ui.state.doc);
    const over = this.isOver(strokes);
    if (over !== this.over) {
      this.over = over;
      if (over) say(this.limitText(), "error");
    }
    if (!strokes.length) this.refused = false;
    if (strokes === this.asked) return;   // the sketch did not change (another object did)
    this.asked = strokes;
    // Drawing on ends a picture search: the strip follows the sketch again.
    if (strokes.length) search.clear();
    // A new sketch takes the strip back from the picture placed last (not from a selection).
    if (strokes.length && ui.state.target.kind === "object" && ui.state.selected === null) ui.commit({ target: Target.sketch });
    if (ui.state.target.kind === "sketch") {
      if (!strokes.length) { panel.show({ guesses: [], suggestions: [] }); panel.setPending(false); }
      else if (panel.suggestions.length || panel.guesses.length) panel.setStale(true);
    }
    if (!over) live.update(strokes);
    if (!over && strokes.length) this.askShortcutAtRest(strokes);
  }

  /** An answer came for the sketch: a later refusal is told again. */
  answered() {
    this.refused = false;
  }

  /** Live recognition failed ({code, message} as the server said): a sketch too large for the
   *  server is told once (until it is answered again); any other error as it comes. */
  failed(error) {
    if (error.code !== "too_large") { this.ctx.say(t("recognition.error", { reason: errorText(error) }), "error"); return; }
    if (this.refused) return;
    this.refused = true;
    this.ctx.say(t("recognition.tooLarge"), "error");
  }

  /** Asks about the person's shortcuts once the pen has rested (no stroke for SHORTCUT_REST_MS
   *  and none under way), so a shortcut fires once, on the finished drawing, never on its first
   *  strokes while the rest are still to come. */
  askShortcutAtRest(strokes) {
    clearTimeout(this.shortcutTimer);
    this.shortcutTimer = setTimeout(() => {
      if (this.asked === strokes && !this.ctx.input.busy) this.askShortcut(strokes);
    }, SHORTCUT_REST_MS);
  }

  /** Asks whether the sketch is one of the person's shortcuts; if so (and the sketch has not
   *  changed meanwhile) its picture replaces the sketch, over the sketch's box. Undoable. */
  async askShortcut(strokes) {
    const { ui, personal, view, editor, say } = this.ctx;
    if (!personal.shortcuts.length || ui.state.tool !== Tool.autodraw) return;
    const ask = ++this.shortcutAsk;
    let match = null;
    const drawing = M.toQuickDraw(strokes);
    // The drawing just brought back by undoing its shortcut: the person said no to it.
    if (this.misfire && JSON.stringify(this.misfire.fired.strokes) === JSON.stringify(drawing)) return;
    try { match = await personal.predict(drawing); } catch { return; }
    const picture = match && shortcutPicture(match.label);
    const target = M.currentSketch(ui.state.doc, true);
    if (ask !== this.shortcutAsk || !picture || this.asked !== strokes || !target) return;
    const name = match.display || match.label;
    if (!(await view.images.ready(picture.image))) { say(t("shortcuts.pictureFailed", { name }), "error"); return; }
    if (this.asked !== strokes || !M.find(ui.state.doc, target.id)) return;
    editor.change(M.swapForPicture(ui.state.doc, target.id, picture, null));
    this.fired = { label: match.label, name, strokes: drawing, doc: ui.state.doc };
    say(t("shortcuts.placed", { name }));
  }

  /** After an undo that took back `doc`: when that is the document a shortcut had just made
   *  (nothing done since), the server keeps the drawing as the shortcut's misfire, unless a Redo
   *  brings the picture back within MISFIRE_SETTLE_MS (the person wanted it after all). */
  undone(doc) {
    const fired = this.fired;
    this.fired = null;
    if (!fired || fired.doc !== doc) return;
    this.sendMisfire();   // an earlier one that was not redone
    this.misfire = { fired, timer: setTimeout(() => this.sendMisfire(), MISFIRE_SETTLE_MS) };
  }

  /** After a redo that brought back `doc`: the shortcut's picture is wanted, so the misfire that
   *  its undo would have sent is dropped, and a later undo counts again. */
  redone(doc) {
    const pending = this.misfire;
    if (!pending || pending.fired.doc !== doc) return;
    clearTimeout(pending.timer);
    this.misfire = null;
    this.fired = pending.fired;
  }

  /** Sends the misfire waiting for a Redo, if any, and says so; `keepalive` as the page goes away. */
  async sendMisfire({ keepalive = false } = {}) {
    const pending = this.misfire;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.misfire = null;
    const { fired } = pending;
    try { await this.ctx.personal.misfire(fired.label, fired.strokes, { keepalive }); } catch { return; }
    this.ctx.say(t("shortcuts.misfire", { name: fired.name }));
  }
}
