// What the app tells the person outside the strip: the short message over the canvas (say), and
// the first-run hint, shown until a first picture has been placed (kept in the browser's storage).

import { kept, keep } from "./storage.js";

const FIRST_RUN_KEY = "sketchwise.firstRunDone";

export class Notices {
  /** @param {(sel: string) => HTMLElement} $ */
  constructor($) {
    this.message = $("#message");
    this.firstRun = $("#first-run");
    this.timer = 0;
  }

  /** Shows a short message over the canvas; kind "error" stays longer. */
  say(text, kind = "info") {
    const el = this.message;
    el.textContent = text;
    el.dataset.kind = kind;
    // An error interrupts a screen reader; anything else waits its turn.
    el.setAttribute("role", kind === "error" ? "alert" : "status");
    el.hidden = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 8000 : 3500);
  }

  /** Whether the first-run hint has been dismissed (or can't be kept: then it never shows). */
  firstRunDone() {
    return kept(FIRST_RUN_KEY, "1") === "1";
  }

  /** Shows the first-run hint unless it was dismissed. */
  offerFirstRun() {
    if (!this.firstRunDone()) this.firstRun.hidden = false;
  }

  /** Hides the hint if it was dismissed meanwhile (Escape). */
  hideFirstRunIfDone() {
    this.firstRun.hidden = this.firstRunDone() || this.firstRun.hidden;
  }

  /** Hides the hint for good. */
  finishFirstRun() {
    this.firstRun.hidden = true;
    keep(FIRST_RUN_KEY, "1");
  }
}
