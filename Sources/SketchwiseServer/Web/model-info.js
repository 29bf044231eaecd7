// The models that answer, from GET /api/models, in the "?" dialog: a short line ("raster-cnn
// 2.0.0, downloaded", or the library re-index while a new raster model is being switched to) and
// every active model with its version, source and roles. Refreshed every 30 s, so a switch on the
// server shows without a reload.

const REFRESH_MS = 30000;

/** The line for a listing (the raster model's version and source, and the re-index under way)
 *  and one line per active model. */
export function describeModels(listing) {
  const active = (listing.models || []).filter((m) => m.status === "active");
  const raster = active.find((m) => m.roles.includes("raster"));
  const hosted = active.filter((m) => m.source === "hosted");
  let text = raster ? `${raster.name} ${raster.version}${raster.source === "hosted" ? ", downloaded" : ""}` : "no raster model";
  if (hosted.length > (raster && raster.source === "hosted" ? 1 : 0)) text += ` +${hosted.length - (raster && raster.source === "hosted" ? 1 : 0)} downloaded`;
  const r = listing.reindex;
  if (r) text += ` · switching to ${r.model}: ${r.total ? Math.floor((100 * r.done) / r.total) : 0}%`;
  const lines = active.map((m) => `${m.name} ${m.version} (${m.source}${m.roles.length ? `; ${m.roles.join(", ")}` : ""})`);
  return { text, lines };
}

/** Keeps `element` showing the line and `list` the active models, one item each. */
export class ModelInfo {
  constructor(element, list) {
    this.element = element;
    this.list = list;
    this.listing = null;
  }

  start() {
    this.refresh();
    setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    try {
      const r = await fetch("/api/models", { cache: "no-store" });
      if (!r.ok) return;
      this.listing = await r.json();
      const { text, lines } = describeModels(this.listing);
      this.element.textContent = text;
      this.list.replaceChildren(...lines.map((line) => {
        const item = document.createElement("li");
        item.textContent = line;
        return item;
      }));
    } catch {
      // Offline: the status line says so; the last known models stay listed.
    }
  }
}
