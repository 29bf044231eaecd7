// The floating "Do you mean" strip: one chip per guess, in rank order, and one button per
// picture. Clicking a chip shows that label's pictures first. While an answer is on its way
// the strip says so; guesses for a sketch that has changed since (or while offline) are marked
// stale and can't be picked. Focus stays on the control that was used when the strip redraws.

import { LINE_SOURCES } from "./canvas.js";
import { markScrollEdges } from "./scroll-edges.js";

/** A suggestion's width over its height for a picture of width/height `aspect` (style.css sizes
 *  the button by it): wide pictures get up to twice the box, tall ones down to half. */
const buttonShape = (aspect) => Math.min(2, Math.max(0.5, aspect)).toFixed(3);

const STYLE_NAMES = { emoji: "emoji", clipart: "clip-art", openmoji: "line art", lucide: "line art", tabler: "line art", doodle: "doodle", web: "web picture" };

/** The alternative text of a picture: "cat — line art: Cat face". */
export const altText = (s) => `${s.label} — ${STYLE_NAMES[s.source] || s.source || "picture"}: ${s.title || s.label}`;

/** The word shown on a picture that is not what the style promises: "doodle" (the last resort of
 *  a class no picture set draws), or the style of a picture offered because the chosen style has
 *  none for its guess ("emoji"); null for the others. */
const markOf = (s, style) => {
  if (s.source === "doodle") return "doodle";
  const own = LINE_SOURCES.has(s.source) ? "line" : s.source;
  return style !== "all" && s.source !== "web" && own !== style ? STYLE_NAMES[s.source] || s.source : null;
};

export class SuggestionPanel {
  /**
   * @param {HTMLElement} root       the strip (#assist)
   * @param {(s: object, all: object[]) => void} onPick  called with the picture clicked
   * @param {(label: string, rank: number) => void} onChoose  called with a guess chosen (rank 0: the first)
   */
  constructor(root, onPick, onChoose = () => {}) {
    this.root = root;
    this.guessesEl = root.querySelector("#guesses");
    this.stripEl = root.querySelector("#suggestions");
    this.titleEl = root.querySelector("#assist-title");
    this.noteEl = root.querySelector("#assist-note");
    this.onPick = onPick;
    /** The pictures' style asked for (the Pictures menu): pictures of another style are marked. */
    this.style = "line";
    this.guesses = [];
    this.suggestions = [];
    this.focus = null;      // label chosen in the guesses row
    this.current = null;    // library id of the picture the strip is for (marked)
    this.pending = false;
    this.stale = false;
    this.title = "Do you mean";
    this.note = "";         // said beside the guesses when nothing is on its way
    this.action = null;     // what picking a picture does, for its button's title
    markScrollEdges(this.guessesEl);
    markScrollEdges(this.stripEl);
    this.guessesEl.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-label]");
      if (!b) return;
      this.focus = this.focus === b.dataset.label ? null : b.dataset.label;
      if (this.focus) onChoose(this.focus, this.guesses.findIndex((g) => g.label === this.focus));
      this.render();
    });
    this.stripEl.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-id]");
      if (!b || b.getAttribute("aria-disabled") === "true") return;
      const s = this.suggestions.find((x) => x.id === b.dataset.id);
      if (s) this.onPick(s, this.suggestions);
    });
  }

  /** Shows an answer ({guesses, suggestions}); keeps the chosen label if still guessed. `note`
   *  is said beside the guesses; `action` tells what picking a picture does. */
  show({ guesses, suggestions }, { title = "Do you mean", current = null, note = "", action = null } = {}) {
    this.guesses = Array.isArray(guesses) ? guesses : [];
    this.suggestions = Array.isArray(suggestions) ? suggestions : [];
    this.title = title;
    this.current = current;
    this.note = note;
    this.action = action;
    this.stale = false;
    if (this.focus && !this.guesses.some((g) => g.label === this.focus)) this.focus = null;
    this.render();
  }

  /** Marks an answer as on its way (true) or arrived (false). */
  setPending(pending) {
    if (this.pending === pending) return;
    this.pending = pending;
    this.renderState();
  }

  /** Marks the pictures shown as no longer matching the sketch (not pickable), or fresh. */
  setStale(stale) {
    if (this.stale === stale) return;
    this.stale = stale;
    this.renderState();
    for (const b of this.stripEl.querySelectorAll("button[data-id]")) b.setAttribute("aria-disabled", String(stale));
  }

  /** The best guess's label, or "". */
  get topLabel() { return this.guesses.length ? this.guesses[0].label : ""; }

  /** Suggestions in display order: the chosen label's first, otherwise the server's rank. */
  ordered() {
    if (!this.focus) return this.suggestions;
    const mine = this.suggestions.filter((s) => s.label === this.focus);
    return [...mine, ...this.suggestions.filter((s) => s.label !== this.focus)];
  }

  renderState() {
    const r = this.root;
    r.dataset.pending = String(this.pending);
    r.dataset.stale = String(this.stale);
    r.dataset.empty = String(!this.guesses.length && !this.suggestions.length);
    r.setAttribute("aria-busy", String(this.pending));
    this.titleEl.textContent = this.title;
    this.noteEl.textContent = this.pending ? "Guessing…" : this.stale ? "These pictures are for your sketch before its last change." : this.note;
    this.noteEl.title = this.noteEl.textContent;   // in full, when it is cut short
  }

  render() {
    // Focus stays on the control that had it: found again by its label or picture id.
    const active = document.activeElement;
    const refocus = active && this.root.contains(active) ? { label: active.dataset.label, id: active.dataset.id, chip: !!active.closest("#guesses") } : null;
    this.guessesEl.replaceChildren(...this.guesses.map((g) => this.chip(g)));
    const items = this.ordered().map((s) => this.pictureButton(s));
    if (this.focus && !this.suggestions.some((s) => s.label === this.focus)) {
      const none = document.createElement("p");
      none.className = "no-pictures";
      none.textContent = `No picture of “${this.focus}” in this style.`;
      items.unshift(none);
    }
    this.stripEl.replaceChildren(...items);
    this.stripEl.scrollLeft = 0;
    this.renderState();
    if (refocus) {
      const selector = refocus.chip ? `#guesses button[data-label="${CSS.escape(refocus.label || "")}"]` : `#suggestions button[data-id="${CSS.escape(refocus.id || "")}"]`;
      const again = this.root.querySelector(selector);
      if (again) again.focus({ preventScroll: true });
    }
  }

  chip(g) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.label = g.label;
    b.setAttribute("aria-pressed", String(g.label === this.focus));
    b.append(g.label);
    if (typeof g.probability === "number") {
      const small = document.createElement("small");
      small.textContent = `${Math.round(g.probability * 100)}%`;
      b.append(" ", small);
    }
    const count = this.suggestions.filter((s) => s.label === g.label).length;
    b.dataset.pictures = String(count);
    b.title = count ? `Show pictures of “${g.label}” first` : `No picture of “${g.label}” in this style`;
    return b;
  }

  pictureButton(s) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.id = s.id;
    b.dataset.label = s.label;
    b.setAttribute("aria-disabled", String(this.stale));
    if (s.id === this.current) b.setAttribute("aria-current", "true");
    b.title = `${altText(s)} — ${this.action || `replaces ${this.current ? "this picture" : "your sketch"}`}`;
    const img = document.createElement("img");
    img.src = s.thumbnail;
    img.alt = altText(s);
    img.draggable = false;
    if (s.width && s.height) {
      img.width = s.width;
      img.height = s.height;
      b.style.setProperty("--shape", buttonShape(s.width / s.height));
    }
    b.append(img);
    const word = markOf(s, this.style);
    if (word) {
      const mark = document.createElement("span");
      mark.className = "picture-mark";
      mark.textContent = word;
      mark.setAttribute("aria-hidden", "true");   // the alt text says it
      b.append(mark);
    }
    return b;
  }
}
