// The floating "Do you mean" strip: one chip per guess, in rank order, and one button per
// picture. Clicking a chip shows that label's pictures first. While an answer is on its way
// the strip says so; guesses for a sketch that has changed since (or while offline) are marked
// stale and can't be picked. The pictures a search found (search.js) show in place of the
// guesses until the search is cleared. Focus stays on the control that was used when the strip
// redraws. Guesses and pictures show the names the server gave them in the person's language
// (`display`, `displayTitle`); their English `label` stays their identity.

import { LINE_SOURCES } from "./canvas.js";
import { markScrollEdges } from "./scroll-edges.js";
import { t, formatPercent, formatList } from "./i18n.js";

/** A suggestion's width over its height for a picture of width/height `aspect` (style.css sizes
 *  the button by it): wide pictures get up to twice the box, tall ones down to half. */
const buttonShape = (aspect) => Math.min(2, Math.max(0.5, aspect)).toFixed(3);

/** The name of each source's kind of picture. */
const SOURCE_NAMES = {
  emoji: () => t("source.emoji"),
  clipart: () => t("source.clipart"),
  openmoji: () => t("source.lineArt"),
  lucide: () => t("source.lineArt"),
  tabler: () => t("source.lineArt"),
  doodle: () => t("source.doodle"),
  web: () => t("source.web"),
};
const sourceName = (source) => (SOURCE_NAMES[source] ? SOURCE_NAMES[source]() : source || t("source.picture"));

/** The name of a guess or picture's class in the person's language (its label when the server
 *  gave none). */
export const displayName = (g) => g.display || g.label;

/** The name of a picture in the person's language. */
export const pictureTitle = (s) => s.displayTitle || s.title || displayName(s);

/** The sets of line art, by their own names (the same in every language): three pictures of one
 *  class from three sets would otherwise read alike. */
const LINE_SETS = { openmoji: "OpenMoji", lucide: "Lucide", tabler: "Tabler" };

/** The alternative text of a picture: "cat — line art from OpenMoji: Cat face". */
export const altText = (s) => t("picture.alt", {
  label: displayName(s),
  source: LINE_SETS[s.source] ? t("source.lineArtFrom", { set: LINE_SETS[s.source] }) : sourceName(s.source),
  title: pictureTitle(s),
});

/** The word shown on a picture that is not what the style promises: "doodle" (the last resort of
 *  a class no picture set draws), or the style of a picture offered because the chosen style has
 *  none for its guess ("emoji"); null for the others. */
const markOf = (s, style) => {
  if (s.source === "doodle") return sourceName(s.source);
  const own = LINE_SOURCES.has(s.source) ? "line" : s.source;
  return style !== "all" && s.source !== "web" && own !== style ? sourceName(s.source) : null;
};

const guessesTitle = () => t("strip.title.guesses");
const nothing = () => "";

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
    this.title = guessesTitle;
    this.note = nothing;    // said beside the guesses when nothing is on its way
    this.action = null;     // what picking a picture does, for its button's title
    this.announced = "";    // the last text said to a screen reader (announce)
    this.found = null;      // a search's {query, suggestions (null while it is on its way)}, shown instead
    markScrollEdges(this.guessesEl);
    markScrollEdges(this.stripEl);
    // A chip or picture reached with Tab comes fully into its row (Chromium may leave it half
    // hidden at the row's edge).
    root.addEventListener("focusin", (e) => {
      if (e.target.matches("#guesses button, #suggestions button")) e.target.scrollIntoView({ block: "nearest", inline: "nearest" });
    });
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
      const shown = this.found ? this.found.suggestions || [] : this.suggestions;
      const s = shown.find((x) => x.id === b.dataset.id);
      if (s) this.onPick(s, shown);
    });
  }

  /** Shows an answer ({guesses, suggestions}); keeps the chosen label if still guessed. The
   *  strip's `title`, the `note` said beside the guesses and the `action` that picking a picture
   *  does are functions that say them in the person's language (called again when it changes). */
  show({ guesses, suggestions }, { title = guessesTitle, current = null, note = nothing, action = null } = {}) {
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
    if (this.found) return;   // a search's pictures stay pickable
    for (const b of this.stripEl.querySelectorAll("button[data-id]")) b.setAttribute("aria-disabled", String(stale));
  }

  /** Shows what a search found ({query, suggestions}; suggestions null: on its way) in place of the
   *  guesses, or (null) the guesses again. */
  showFound(found) {
    if (!found && !this.found) return;
    this.found = found;
    this.render();
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
    const r = this.root, found = this.found;
    const pending = found ? !found.suggestions : this.pending, stale = !found && this.stale;
    r.dataset.pending = String(pending);
    r.dataset.stale = String(stale);
    // The hint ("Draw something…") is for a sketch not guessed yet; a photo or an object with
    // nothing to offer has its own title and says why in its note.
    r.dataset.empty = String(!found && !this.guesses.length && !this.suggestions.length && this.title === guessesTitle);
    r.dataset.searching = String(!!found);
    r.setAttribute("aria-busy", String(pending));
    this.titleEl.textContent = found ? t("search.found") : this.title();
    this.noteEl.textContent = found ? (pending ? t("search.searching") : "")
      : pending ? t("strip.guessing") : stale ? t("strip.stale") : this.note();
    this.noteEl.title = this.noteEl.textContent;   // in full, when it is cut short
    this.announce(this.settled(pending, stale));
  }

  /** What a screen reader is told of the strip once it has settled (nothing while an answer is
   *  on its way or stale, so a stroke is not followed by three announcements): the first
   *  guesses and the note, or what a search found. */
  settled(pending, stale) {
    if (pending || stale) return "";
    const found = this.found;
    if (found) {
      const count = found.suggestions.length;
      return count ? t("announce.found", { count, query: found.query }) : t("search.none", { query: found.query });
    }
    const guesses = this.guesses.slice(0, 3).map(displayName);
    return [guesses.length ? t("announce.guesses", { labels: formatList(guesses, "unit") }) : "", this.note()].filter(Boolean).join(" ");
  }

  /** Says `text` in the page's polite status region (#announce), once. */
  announce(text) {
    const region = document.getElementById("announce");
    if (!text || !region || text === this.announced) return;
    this.announced = text;
    region.textContent = text;
  }

  /** A line in the row of pictures that says there are none. */
  static none(text) {
    const p = document.createElement("p");
    p.className = "no-pictures";
    p.textContent = text;
    return p;
  }

  /** The row of pictures: a search's, or the answer's (the chosen guess's first). */
  pictures() {
    const found = this.found;
    if (found) {
      const list = found.suggestions || [];
      const none = found.suggestions && !list.length ? [SuggestionPanel.none(t("search.none", { query: found.query }))] : [];
      return [...none, ...list.map((s) => this.pictureButton(s, false))];
    }
    const items = this.ordered().map((s) => this.pictureButton(s, this.stale));
    if (this.focus && !this.suggestions.some((s) => s.label === this.focus)) {
      const chosen = this.guesses.find((g) => g.label === this.focus);
      items.unshift(SuggestionPanel.none(t("strip.noPictureOf", { label: chosen ? displayName(chosen) : this.focus })));
    }
    return items;
  }

  render() {
    // Focus stays on the control that had it: found again by its label or picture id.
    const active = document.activeElement;
    const refocus = active && this.root.contains(active) ? { label: active.dataset.label, id: active.dataset.id, chip: !!active.closest("#guesses") } : null;
    this.guessesEl.replaceChildren(...(this.found ? [] : this.guesses.map((g) => this.chip(g))));
    const items = this.pictures();
    this.stripEl.replaceChildren(...items);
    this.stripEl.scrollLeft = 0;
    this.renderState();
    if (refocus) {
      const selector = refocus.chip ? `#guesses button[data-label="${CSS.escape(refocus.label || "")}"]` : `#suggestions button[data-id="${CSS.escape(refocus.id || "")}"]`;
      // A control that went (the strip now shows other guesses) gives the keyboard to the
      // strip's first, rather than to the top of the page.
      const gone = !this.root.contains(document.activeElement);
      const again = this.root.querySelector(selector) || (gone ? this.root.querySelector("#guesses button, #suggestions button[data-id]") : null);
      if (again) again.focus({ preventScroll: true });
    }
  }

  chip(g) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.label = g.label;
    b.setAttribute("aria-pressed", String(g.label === this.focus));
    const name = displayName(g);
    b.append(name);
    if (typeof g.probability === "number") {
      const small = document.createElement("small");
      small.textContent = formatPercent(g.probability);
      b.append(" ", small);
    }
    const count = this.suggestions.filter((s) => s.label === g.label).length;
    b.dataset.pictures = String(count);
    b.title = count ? t("strip.showFirst", { label: name }) : t("strip.noPictureOf", { label: name });
    return b;
  }

  /** What picking a picture does, for its button's title. */
  actionText() {
    if (this.found) return t("search.action");
    if (this.action) return this.action();
    return this.current ? t("strip.action.replacePicture") : t("strip.action.replaceSketch");
  }

  pictureButton(s, disabled) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.id = s.id;
    b.dataset.label = s.label;
    b.setAttribute("aria-disabled", String(disabled));
    if (s.id === this.current) b.setAttribute("aria-current", "true");
    b.title = t("picture.button", { alt: altText(s), action: this.actionText() });
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
