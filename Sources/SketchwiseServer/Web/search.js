// The picture search of the strip: what the person types, in their language, finds pictures by
// their class names and keywords (GET /api/pictures/search, in the chosen style), shown in the
// strip in place of the guesses until the field is cleared; a picture picked from them is placed
// as a suggested one is (Strip.pick). Typing waits for a pause before it asks; only the answer to
// the latest query is shown.

import { request, errorText } from "./server.js";
import { t } from "./i18n.js";

const PAUSE_MS = 250;   // how long typing rests before the query is asked
const LIMIT = 24;       // the most pictures asked for

export class PictureSearch {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
    this.input = ctx.$("#picture-search");
    this.timer = 0;
    this.asked = 0;   // the number of the latest query asked: older answers are dropped
    this.input.addEventListener("input", () => this.schedule());
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.run(); }
      else if (e.key === "Escape" && this.input.value) { e.preventDefault(); e.stopPropagation(); this.clear(); }
    });
  }

  /** The text searched for, trimmed. */
  get query() { return this.input.value.trim(); }

  /** Asks once typing has paused. */
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), PAUSE_MS);
  }

  /** Asks for the pictures of the query now (in the current style and language) and shows them;
   *  an empty query shows the guesses again. */
  async run() {
    clearTimeout(this.timer);
    const { panel, styleSelect, say } = this.ctx;
    const query = this.query, ask = ++this.asked;
    if (!query) { panel.showFound(null); return; }
    panel.showFound({ query, suggestions: null });
    try {
      const answer = await request("GET", "/api/pictures/search", { query: { q: query, style: styleSelect.value, limit: LIMIT } });
      if (ask !== this.asked) return;
      panel.showFound({ query, suggestions: Array.isArray(answer && answer.suggestions) ? answer.suggestions : [] });
    } catch (e) {
      if (ask !== this.asked) return;
      panel.showFound({ query, suggestions: [] });
      say(t("search.failed", { reason: errorText(e) }), "error");
    }
  }

  /** Empties the field: the strip shows the guesses again. */
  clear() {
    clearTimeout(this.timer);
    this.asked++;
    if (!this.input.value && !this.ctx.panel.found) return;
    this.input.value = "";
    this.ctx.panel.showFound(null);
  }

  /** The style or the language changed: the query is asked again in it. */
  refresh() {
    if (this.query) this.run();
  }
}
