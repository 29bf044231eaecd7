// The models that answer, from GET /api/models, in the "?" dialog: a short line ("raster-cnn
// 2.0.0, downloaded", or the library re-index while a new raster model is being switched to) and
// every active model with its version, source and roles (model names are the server's, as they are).
// Refreshed every 30 s, so a switch on the server shows without a reload.

import { t, formatPercent, formatList } from "./i18n.js";

const REFRESH_MS = 30000;

/** The names of the server's model sources and roles; one the app does not know shows as it is. */
const SOURCE_NAMES = {
  bundled: () => t("models.source.bundled"),
  local: () => t("models.source.local"),
  fetched: () => t("models.source.fetched"),
  hosted: () => t("models.source.hosted"),
};
const ROLE_NAMES = {
  raster: () => t("models.role.raster"),
  strokes: () => t("models.role.strokes"),
  embedding: () => t("models.role.embedding"),
  ensemble: () => t("models.role.ensemble"),
  photo: () => t("models.role.photo"),
};
const nameIn = (names, key) => (names[key] ? names[key]() : key);

/** The line for a listing (the raster model's version and source, and the re-index under way)
 *  and one line per active model. */
export function describeModels(listing) {
  const active = (listing.models || []).filter((m) => m.status === "active");
  const raster = active.find((m) => m.roles.includes("raster"));
  const hosted = active.filter((m) => m.source === "hosted");
  const rasterHosted = raster && raster.source === "hosted";
  const named = raster && { name: raster.name, version: raster.version };
  const parts = [!raster ? t("models.noRaster") : rasterHosted ? t("models.raster.downloaded", named) : t("models.raster", named)];
  const others = hosted.length - (rasterHosted ? 1 : 0);
  if (others > 0) parts.push(t("models.moreDownloaded", { count: others }));
  let text = parts.join(" ");
  const r = listing.reindex;
  if (r) text += ` · ${t("models.switching", { model: r.model, percent: formatPercent(r.total ? Math.floor((100 * r.done) / r.total) / 100 : 0) })}`;
  const lines = active.map((m) => {
    const about = {
      name: m.name, version: m.version, source: nameIn(SOURCE_NAMES, m.source),
      roles: formatList(m.roles.map((role) => nameIn(ROLE_NAMES, role)), "unit"),
    };
    return m.roles.length ? t("models.line.roles", about) : t("models.line", about);
  });
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
    this.render();
    this.refresh();
    setInterval(() => this.refresh(), REFRESH_MS);
  }

  async refresh() {
    try {
      const r = await fetch("/api/models", { cache: "no-store" });
      if (!r.ok) return;
      this.listing = await r.json();
      this.render();
    } catch {
      // Offline: the status line says so; the last known models stay listed.
    }
  }

  /** Shows the last listing in the person's language (or that none has come yet). */
  render() {
    if (!this.listing) { this.element.textContent = t("models.unknown"); return; }
    const { text, lines } = describeModels(this.listing);
    this.element.textContent = text;
    this.list.replaceChildren(...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }));
  }
}
