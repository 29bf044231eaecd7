// The "Do you mean" row (one button per guess, in rank order) and the suggestion strip (one
// button per picture). Clicking a guess shows that label's pictures first. A guess without
// pictures says so, in the row and in the strip when it is chosen.

/** A suggestion's width over its height for a picture of width/height `aspect` (style.css sizes
 *  the button by it): wide pictures get up to twice the box, tall ones down to half, so a very
 *  wide or tall picture stays readable. */
const buttonShape = (aspect) => Math.min(2, Math.max(0.5, aspect)).toFixed(3);

const SOURCE_NAMES = { emoji: "emoji", clipart: "clip-art", openmoji: "OpenMoji line art", lucide: "Lucide icon", web: "web" };

export class SuggestionPanel {
  /**
   * @param {HTMLElement} guessesEl   #guesses
   * @param {HTMLElement} stripEl     #suggestions
   * @param {(s: object) => void} onPick  called with the suggestion clicked
   */
  constructor(guessesEl, stripEl, onPick) {
    this.guessesEl = guessesEl;
    this.stripEl = stripEl;
    this.onPick = onPick;
    this.guesses = [];
    this.suggestions = [];
    this.focus = null;   // label chosen in the guesses row
    guessesEl.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-label]");
      if (!b) return;
      this.focus = this.focus === b.dataset.label ? null : b.dataset.label;
      this.render();
    });
    stripEl.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-id]");
      if (!b) return;
      const s = this.suggestions.find((x) => x.id === b.dataset.id);
      if (s) this.onPick(s);
    });
  }

  /** Shows a new result ({guesses, suggestions}); keeps the chosen label if still guessed. */
  show({ guesses, suggestions }) {
    this.guesses = Array.isArray(guesses) ? guesses : [];
    this.suggestions = Array.isArray(suggestions) ? suggestions : [];
    if (this.focus && !this.guesses.some((g) => g.label === this.focus)) this.focus = null;
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

  render() {
    const guessButtons = this.guesses.map((g) => {
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
    });
    this.guessesEl.replaceChildren(...guessButtons);

    const items = this.ordered().map((s) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.id = s.id;
      b.dataset.label = s.label;
      b.title = `${s.title || s.label} (${SOURCE_NAMES[s.source] || s.source}) — click to use`;
      const img = document.createElement("img");
      img.src = s.thumbnail;
      img.alt = s.title || s.label;
      img.draggable = false;
      if (s.width && s.height) {
        img.width = s.width;
        img.height = s.height;
        b.style.setProperty("--shape", buttonShape(s.width / s.height));
      }
      b.append(img);
      return b;
    });
    if (this.focus && !this.suggestions.some((s) => s.label === this.focus)) {
      const none = document.createElement("p");
      none.className = "no-pictures";
      none.textContent = `No picture of “${this.focus}” in this style.`;
      items.unshift(none);
    }
    this.stripEl.replaceChildren(...items);
    this.stripEl.scrollLeft = 0;
  }
}
