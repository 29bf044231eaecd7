// The controls around the canvas: the tool rail (tools, shape kinds, scene toggle, undo, redo,
// erase, clear, zoom), the document buttons, the object bar, the colour palette and width, and
// the keyboard shortcuts; each wires to the module that does the work. Also setTool, and drawing
// the rail's state whenever the tool or shape kind changes.

import * as M from "./model.js";
import { Tool, TOOLS } from "./ui-state.js";
import { isTyping, letGoAfterPointerChoice } from "./input.js";
import { LOCALES, endonym, formatNumber, locale, setLocale } from "./i18n.js";
import { kept, keep } from "./storage.js";

/** Where the person's choice of single-key shortcuts is kept ("off": turned off). */
const SINGLE_KEYS_KEY = "sketchwise.singleKeys";

/** The tool each letter key picks. */
const TOOL_KEYS = { v: Tool.select, a: Tool.autodraw, d: Tool.draw, s: Tool.shape, t: Tool.text, f: Tool.fill };

/**
 * The key a shortcut reads from a key event: a letter in lower case, or the key's name ("Enter",
 * "ArrowLeft"). A letter key that types no Latin letter (a Hebrew or Russian layout's "ה" for V)
 * reads as the Latin letter at its place on the keyboard, so that V, Ctrl+Z… work in any layout.
 */
function shortcutKey(e) {
  if (e.key.length !== 1) return e.key;
  const latin = /^Key([A-Z])$/.exec(e.code || "");
  return latin && !/^[a-z]$/i.test(e.key) ? latin[1].toLowerCase() : e.key.toLowerCase();
}

export class Toolbar {
  /** @param {object} ctx  the app's parts (app.js) */
  constructor(ctx) {
    this.ctx = ctx;
  }

  /** Picks a tool: text being typed is placed, the selection goes (except for Select), and a
   *  tool other than AutoDraw or Select ends the current sketch (the next stroke starts one). */
  setTool(name) {
    const { ui, text, editor } = this.ctx;
    if (!TOOLS.includes(name)) throw new Error(`no tool ${name}`);
    text.close(true);
    ui.commit({ tool: name });
    if (name !== Tool.select) editor.select(null);
    // Not an edit (nothing to draw, save or undo): only where the next stroke goes.
    if (name !== Tool.autodraw && name !== Tool.select) ui.commit({ doc: M.closeSketch(ui.state.doc) }, { quiet: true });
  }

  setShapeKind(kind) {
    this.ctx.ui.commit({ shapeKind: kind });
  }

  /** Draws the rail's state (after a change of tool or shape kind); the rail is fitted again when
   *  the shape kinds come or go. */
  render() {
    const { ui, canvasEl, railMenu, $ } = this.ctx;
    const { tool, shapeKind } = ui.state;
    canvasEl.dataset.tool = tool;
    for (const t of TOOLS) $(`#tool-${t}`).setAttribute("aria-pressed", String(t === tool));
    const kinds = $("#shape-kinds");
    if (kinds.hidden !== (tool !== Tool.shape)) {
      kinds.hidden = tool !== Tool.shape;
      railMenu.fit();
    }
    for (const b of document.querySelectorAll("#shape-kinds button")) b.setAttribute("aria-checked", String(b.dataset.shape === shapeKind));
  }

  /** Wires every button, the palette and the keys. */
  wire() {
    const { $, editor, files, photos, scene, viewport, strip, notices, shortcutDialog } = this.ctx;
    const on = (sel, type, f) => $(sel).addEventListener(type, f);
    for (const t of TOOLS) on(`#tool-${t}`, "click", () => this.setTool(t));
    for (const b of document.querySelectorAll("#shape-kinds button")) b.addEventListener("click", () => this.setShapeKind(b.dataset.shape));
    on("#scene-mode", "click", () => scene.toggle());
    on("#undo", "click", () => editor.undo());
    on("#redo", "click", () => editor.redo());
    on("#erase-last", "click", () => editor.eraseLast());
    on("#clear", "click", () => editor.clearAll());
    on("#export-png", "click", () => files.exportPNG());
    on("#export-svg", "click", () => files.exportSVG());
    on("#save-ndjson", "click", () => files.saveNdjson());
    on("#save-document", "click", () => files.saveDocument());
    on("#load-ndjson", "click", () => $("#load-file").click());
    on("#load-file", "change", (e) => {
      const file = e.target.files && e.target.files[0];
      files.openFile(file).finally(() => { e.target.value = ""; });
    });
    on("#add-photo", "click", () => $("#photo-file").click());
    on("#photo-file", "change", (e) => {
      const file = e.target.files && e.target.files[0];
      if (file) photos.add(file).finally(() => { e.target.value = ""; });
    });
    on("#width", "input", () => this.showWidth());
    on("#zoom-in", "click", () => viewport.zoomBy(1.25));
    on("#zoom-out", "click", () => viewport.zoomBy(0.8));
    on("#zoom-fit", "click", () => viewport.fit(true));
    on("#help", "click", () => $("#shortcuts").showModal());
    on("#my-shortcuts", "click", () => shortcutDialog.open());
    on("#first-run-ok", "click", () => notices.finishFirstRun());
    on("#object-suggest", "click", () => strip.reopen());
    on("#object-colour", "click", () => { const o = editor.selectedObject; if (o) editor.toggleColour(o); });
    on("#object-dim", "click", () => photos.toggleDim());
    on("#object-duplicate", "click", () => editor.duplicateSelected());
    on("#object-forward", "click", () => editor.reorderSelected(1));
    on("#object-back", "click", () => editor.reorderSelected(-1));
    on("#object-delete", "click", () => editor.deleteSelected());

    for (const b of document.querySelectorAll("#palette button")) {
      const value = b.dataset.color;
      b.style.background = value;
      b.setAttribute("aria-pressed", String(value === $("#color").value));
      b.addEventListener("click", () => editor.setColour(value));
    }
    on("#color", "change", (e) => editor.setColour(e.target.value));
    this.showWidth();

    // The languages, each by its own name.
    const language = $("#language");
    language.replaceChildren(...LOCALES.map((tag) => Object.assign(new Option(endonym(tag), tag), { lang: tag })));
    language.value = locale();
    on("#language", "change", () => this.chooseLanguage(language.value));
    letGoAfterPointerChoice(language);

    // Shortcuts of one character (V, O, +, ?…) can be turned off (WCAG 2.1.4): speech input and
    // stray key presses would otherwise switch tools and modes.
    const singleKeys = $("#single-keys");
    singleKeys.checked = kept(SINGLE_KEYS_KEY) !== "off";
    on("#single-keys", "change", () => keep(SINGLE_KEYS_KEY, singleKeys.checked ? "on" : "off"));

    document.addEventListener("keydown", (e) => this.key(e));
  }

  /** The person picked a language: the page speaks it at once, and it is kept for next time (a
   *  ?lang= of the address gives way to it). */
  chooseLanguage(tag) {
    const url = new URL(location.href);
    if (url.searchParams.has("lang")) {
      url.searchParams.delete("lang");
      history.replaceState(history.state, "", url);
    }
    return setLocale(tag, { keep: true });
  }

  /** Shows the pen's width beside its slider, as the person's language writes numbers. */
  showWidth() {
    const { $ } = this.ctx;
    $("#width-value").textContent = formatNumber(Number($("#width").value));
  }

  /** The keyboard shortcuts (not while typing, nor while a dialog is open: they would change the
   *  drawing hidden behind it). */
  key(e) {
    const { ui, $, editor, files, input, notices, strip, scene, viewport, camera } = this.ctx;
    if (isTyping(e.target) || document.querySelector("dialog[open]")) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = shortcutKey(e);
    const act = (f) => { e.preventDefault(); f(); };
    const selected = ui.state.selected;
    if (mod && key === "z" && !e.shiftKey) act(() => editor.undo());
    else if (mod && ((key === "z" && e.shiftKey) || key === "y")) act(() => editor.redo());
    else if (mod && key === "s") act(() => files.saveDocument());
    else if (mod && key === "o") act(() => $("#load-file").click());
    else if (mod && key === "d") act(() => editor.duplicateSelected());
    else if (mod && key === "]") act(() => editor.reorderSelected(1));
    else if (mod && key === "[") act(() => editor.reorderSelected(-1));
    else if (mod || e.altKey) return;
    else if (key.length === 1 && !$("#single-keys").checked) return;
    else if ((key === "Delete" || key === "Backspace") && selected !== null) act(() => editor.deleteSelected());
    else if (key === "Backspace" && e.target === document.body) act(() => editor.eraseLast());
    else if (key === "Escape") { input.cancel(); editor.select(null); notices.hideFirstRunIfDone(); }
    else if (key === "Enter" && selected !== null && e.target === document.body) act(() => strip.reopen());
    else if (key.startsWith("Arrow")) {
      if (e.target instanceof HTMLInputElement) return;   // a slider's or a checkbox's own keys
      const step = e.shiftKey ? 10 : 1;
      const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
      if (selected !== null) act(() => editor.moveSelected((dx * step) / camera.zoom, (dy * step) / camera.zoom));
      else if (e.target === document.body) act(() => viewport.panBy(-dx * 40, -dy * 40));
    } else if (key === "?") act(() => $("#shortcuts").showModal());
    else if (key === "+" || key === "=") act(() => viewport.zoomBy(1.25));
    else if (key === "-") act(() => viewport.zoomBy(0.8));
    else if (key === "0") act(() => viewport.fit(true));
    else if (key === "o") act(() => scene.toggle());
    else if (key === "n") act(() => editor.selectNext(e.shiftKey ? -1 : 1));
    else if (TOOL_KEYS[key]) act(() => this.setTool(TOOL_KEYS[key]));
  }
}
