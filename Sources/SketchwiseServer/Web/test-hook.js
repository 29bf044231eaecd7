// window.sketchwise: read-only views of the editor and a few of its actions, for the browser
// tests and for scripts. Its names and answers are an interface: keep them when the app changes.

import * as M from "./model.js";
import { Tool } from "./ui-state.js";
import { locale } from "./i18n.js";

/** Installs window.sketchwise over the app's parts (app.js). */
export function installTestHook(ctx) {
  const { ui, view, canvasEl, camera, panel, live, personal, modelInfo, styleSelect, editor, files, toolbar, scene } = ctx;
  const doc = () => ui.state.doc;
  window.sketchwise = Object.freeze({
    /** PNG data URL of what the canvas shows, at its backing size. */
    exportPNGDataURL: () => view.toDataURL(),
    /** PNG data URL of the export: the drawing cropped to its content, at 2× scale. */
    exportedPNGDataURL: async () => (await files.croppedPNG()).toDataURL("image/png"),
    /** All strokes on the page, Quick, Draw! raw form. */
    strokes: () => M.toQuickDraw(M.allStrokes(doc())),
    /** The current AutoDraw sketch, Quick, Draw! raw form. */
    currentSketch: () => M.toQuickDraw(M.recognitionStrokes(doc())),
    /** Placed pictures: {id, label, title, displayTitle, colour, x, y, w, h, rotation}. */
    pictures: () => doc().objects.filter((o) => o.type === "picture").map(({ libraryId, label, title, displayTitle, colour, x, y, w, h, rotation }) => ({ id: libraryId, label, title, displayTitle, colour, x, y, w, h, rotation })),
    /** Photos on the canvas: {id, src, opacity, labels, classes, pictures (how many offered), x, y, w, h, rotation}. */
    photos: () => doc().objects.filter((o) => o.type === "photo").map(({ alternatives, ...rest }) => ({ ...rest, pictures: alternatives ? alternatives.length : null })),
    /** Every object, back to front (strokes left out): {id, type, x, y, w, h, rotation, …}. */
    objects: () => doc().objects.map(({ strokes, sketch, alternatives, ...rest }) => ({ ...rest, strokeCount: strokes ? strokes.length : 0 })),
    selected: () => ui.state.selected,
    select: (id) => { toolbar.setTool(Tool.select); editor.select(id); },
    /** Where a document point is on the page (client coordinates). */
    clientPoint: (x, y) => { const r = canvasEl.getBoundingClientRect(), s = camera.toScreen({ x, y }); return { x: r.left + s.x, y: r.top + s.y }; },
    camera: () => camera.toJSON(),
    guesses: () => panel.guesses.slice(),
    suggestions: () => panel.suggestions.slice(),
    status: () => live.state,
    /** The language the app speaks (a BCP 47 tag: "en", "zh-Hans", "he"…). */
    locale: () => locale(),
    /** Picks the pictures' style (line, emoji, clipart, all) as the menu does. */
    setStyle: (style) => { styleSelect.value = style; styleSelect.dispatchEvent(new Event("change")); },
    canvasSize: () => ({ width: canvasEl.width, height: canvasEl.height, cssWidth: view.width, cssHeight: view.height }),
    /** Resolves when every placed picture has loaded (and been drawn). */
    picturesReady: () => view.picturesReady(),
    svg: () => files.svg(),
    ndjson: () => files.ndjson(),
    documentText: () => files.documentText(),
    loadNdjsonText: (text, name) => files.openText(text, name),
    openText: (text, name) => files.openText(text, name),
    undo: () => editor.undo(),
    redo: () => editor.redo(),
    clear: () => editor.clearAll(),
    setTool: (name) => toolbar.setTool(name),
    onResult: (f) => { ctx.resultListeners.add(f); return () => ctx.resultListeners.delete(f); },
    /** The person's shortcuts as last listed: [{label, examples}]. */
    shortcuts: () => personal.shortcuts.slice(),
    refreshModelInfo: () => modelInfo.refresh(),
    setSceneMode: (on) => scene.set(on),
    /** The objects of the scene as last found: [{frame, trackingID, labels, strokes}]. */
    sceneObjects: () => ui.state.scene.objects.slice(),
    onScene: (f) => { ctx.sceneListeners.add(f); return () => ctx.sceneListeners.delete(f); },
  });
}
