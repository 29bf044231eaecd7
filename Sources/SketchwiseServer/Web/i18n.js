// The language the app speaks: English (the source of every string), Simplified Chinese, Hebrew
// (right to left), Spanish, French, German and Japanese. The person's choice is kept with the
// app's other settings; a ?lang= parameter overrides it for one page (links, tests); without
// either, the first of the browser's languages that the app speaks wins, else English. Each
// language's strings are a catalog, locales/<tag>.json: flat keys, {name} placeholders, and plural
// entries keyed by the Intl.PluralRules categories. t() looks a key up along the chain (the
// language, its base, English); localize() fills the page's data-i18n attributes. The server is
// told the language with every request (server.js, live.js), so that its words come in it too.

import { kept, keep as keepText } from "./storage.js";

/** The languages the app speaks, by BCP 47 tag. */
export const LOCALES = Object.freeze(["en", "zh-Hans", "he", "es", "fr", "de", "ja"]);
const SOURCE = "en";
const RIGHT_TO_LEFT = new Set(["he"]);
const STORAGE_KEY = "sketchwise.lang";
/** Chinese in Traditional script (or where it is written so), which the app does not speak. */
const TRADITIONAL = new Set(["hant", "tw", "hk", "mo"]);

/** The supported language a BCP 47 tag asks for, or null (as the server's AppLocale(tag:)):
 *  regions fall back to their language, Chinese is Simplified unless the tag asks for Traditional,
 *  and `iw` is Hebrew's old tag. */
function matchLocale(tag) {
  const subtags = String(tag || "").toLowerCase().split(/[-_]/);
  const language = subtags[0] === "iw" ? "he" : subtags[0];
  if (language === "zh") return !subtags.includes("hans") && subtags.some((s) => TRADITIONAL.has(s)) ? null : "zh-Hans";
  return LOCALES.includes(language) ? language : null;
}

/** The language to start in: ?lang=, else the person's kept choice, else the browser's first
 *  supported language, else English. */
export function preferredLocale() {
  const asked = new URLSearchParams(location.search).get("lang");
  for (const tag of [asked, kept(STORAGE_KEY), ...(navigator.languages || [navigator.language])]) {
    const found = tag && matchLocale(tag);
    if (found) return found;
  }
  return SOURCE;
}

/** The language's own name ("Deutsch", "日本語"), as the language picker lists it. */
export function endonym(tag) {
  const name = new Intl.DisplayNames([tag], { type: "language" }).of(tag) || tag;
  return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
}

let current = SOURCE;
const catalogs = new Map();   // tag → its catalog, once loaded
const listeners = new Set();

/** The tags a lookup in `tag` tries, in order: itself, its base language, English. */
const chain = (tag) => [...new Set([tag, tag.split("-")[0], SOURCE])].filter((x) => LOCALES.includes(x));

/** Loads the catalog of `tag` unless it is loaded; one that can't be loaded is tried again next time. */
async function load(tag) {
  if (catalogs.has(tag)) return;
  try {
    const r = await fetch(`locales/${tag}.json`);
    if (r.ok) catalogs.set(tag, await r.json());
  } catch {
    // Offline and never kept: the chain falls back to what is loaded.
  }
}

/** The language the app speaks now. */
export const locale = () => current;

/**
 * Speaks `tag` (a supported one, else English): loads its catalogs, sets <html lang dir> and the
 * manifest's language, fills the page and tells the listeners. `keep`: the person chose it, and
 * it is kept for next time.
 */
export async function setLocale(tag, { keep = false } = {}) {
  const chosen = matchLocale(tag) || SOURCE;
  await Promise.all(chain(chosen).map(load));
  current = chosen;
  if (keep) keepText(STORAGE_KEY, chosen);
  document.documentElement.lang = chosen;
  document.documentElement.dir = RIGHT_TO_LEFT.has(chosen) ? "rtl" : "ltr";
  // The server's manifest in this language: an install prompt speaks it too.
  document.querySelector("link[rel=manifest]")?.setAttribute("href", `manifest.webmanifest?lang=${encodeURIComponent(chosen)}`);
  localize(document.documentElement);
  for (const f of listeners) f(chosen);
}

/** Calls f(tag) after every change of language. */
export function onLocaleChange(f) {
  listeners.add(f);
}

const numberFormats = new Map();

/** A number as the language writes it (1,234.5 / 1 234,5 / 1.234,5); `options` as Intl.NumberFormat's. */
export function formatNumber(value, options = {}) {
  const id = `${current} ${JSON.stringify(options)}`;
  if (!numberFormats.has(id)) numberFormats.set(id, new Intl.NumberFormat(current, options));
  return numberFormats.get(id).format(value);
}

/** A share 0…1 as a whole percentage ("42%", "42 %"). */
export const formatPercent = (share) => formatNumber(share, { style: "percent", maximumFractionDigits: 0 });

/** A list as the language joins it: "a, b and c" (conjunction), "a, b or c" (disjunction) or "a, b, c" (unit). */
export const formatList = (items, type = "conjunction") => new Intl.ListFormat(current, { type }).format(items);

/** `template` with its {name} placeholders replaced by `params` (numbers as the language writes
 *  them); a placeholder without a value stays as it is. */
function fill(template, params) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? formatNumber(value) : String(value);
  });
}

/**
 * The text of catalog key `key` in the current language (else along the chain; the key itself
 * when no catalog has it), with `params` in its placeholders. A plural entry takes the form the
 * language's rules choose for `params.count`.
 */
export function t(key, params = {}) {
  for (const tag of chain(current)) {
    const entry = (catalogs.get(tag) || {})[key];
    if (entry === undefined) continue;
    if (typeof entry === "string") return fill(entry, params);
    const form = new Intl.PluralRules(tag).select(Number(params.count) || 0);
    return fill(entry[form] ?? entry.other, params);
  }
  return key;
}

const TEXT = "data-i18n", PARAMS = "data-i18n-params", SLOT = "data-i18n-slot";

/** Sets an element's text to `text`; its placeholders that name one of its [data-i18n-slot]
 *  children put that child there (a link, a key), kept as it is. */
function fillText(el, text) {
  const slots = new Map([...el.children].filter((c) => c.hasAttribute(SLOT)).map((c) => [c.getAttribute(SLOT), c]));
  if (!slots.size) { el.textContent = text; return; }
  const parts = text.split(/\{(\w+)\}/).map((part, i) => (i % 2 ? slots.get(part) || `{${part}}` : part));
  el.replaceChildren(...parts.filter((p) => p !== ""));
}

/**
 * Fills `root` and the elements in it with the current language's words: an element's data-i18n
 * names the catalog key of its text, its data-i18n-<attribute> the key of that attribute (title,
 * aria-label, placeholder, alt, content…), and its data-i18n-params (JSON) gives the placeholders
 * their values. Returns root.
 */
function localize(root) {
  for (const el of [root, ...root.querySelectorAll("*")]) {
    const params = el.hasAttribute(PARAMS) ? JSON.parse(el.getAttribute(PARAMS)) : {};
    for (const { name, value } of [...el.attributes]) {
      if (name === TEXT) fillText(el, t(value, params));
      else if (name.startsWith(`${TEXT}-`) && name !== PARAMS && name !== SLOT) el.setAttribute(name.slice(TEXT.length + 1), t(value, params));
    }
  }
  return root;
}

/** Marks element `el` (one the code makes) with catalog keys ({text: key, title: key,
 *  "aria-label": key…}) and fills it: it is filled again at each change of language. Returns el. */
export function translated(el, keys) {
  for (const [what, key] of Object.entries(keys)) el.setAttribute(what === "text" ? TEXT : `${TEXT}-${what}`, key);
  return localize(el);
}
