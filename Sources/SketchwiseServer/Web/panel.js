// The "Do you mean" row (one button per guess, in rank order) and the suggestion strip (one
// button per picture). Clicking a guess shows that label's pictures first.

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
      b.title = `Show pictures of “${g.label}” first`;
      return b;
    });
    this.guessesEl.replaceChildren(...guessButtons);

    const items = this.ordered().map((s) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.id = s.id;
      b.dataset.label = s.label;
      b.title = `${s.title || s.label} (${s.source === "emoji" ? "emoji" : "clip-art"}) — click to use`;
      const img = document.createElement("img");
      img.src = s.thumbnail;
      img.alt = s.title || s.label;
      img.draggable = false;
      if (s.width && s.height) { img.width = s.width; img.height = s.height; }
      b.append(img);
      return b;
    });
    this.stripEl.replaceChildren(...items);
    this.stripEl.scrollLeft = 0;
  }
}
