// Personal shortcuts: a drawing of one's own, taught from three examples, that places its
// picture when drawn again. The bearer token of the person lives in the browser's storage;
// the examples and the learned shortcut live on the server (/api/shortcuts).

import { request, ApiError, errorText } from "./server.js";
import { t } from "./i18n.js";
import { altText, displayName, pictureTitle } from "./panel.js";
import { kept, keep, forget } from "./storage.js";

const TOKEN_KEY = "sketchwise.token";
const EXAMPLES = 3;

/** The library picture a shortcut's label stands for: a picture id as it is ("emoji:U+1F300",
 *  "openmoji:1F300.svg"), or one emoji (variation selectors ignored) as its Noto picture. */
export function pictureIdFor(label) {
  if (/^[a-z]+:/.test(label)) return label;
  const scalars = [...label].filter((c) => c !== "\uFE0F" && c !== "\uFE0E");
  if (scalars.length !== 1) return null;
  const code = scalars[0].codePointAt(0);
  return code > 0x7f ? `emoji:U+${code.toString(16).toUpperCase()}` : null;
}

/** A suggestion-like picture for a shortcut's label (what the canvas places), or null. */
export function shortcutPicture(label) {
  const id = pictureIdFor(label);
  if (!id) return null;
  const path = `/api/library/${encodeURIComponent(id)}`;
  return { id, label, title: label, source: id.split(":")[0], image: `${path}/image`, thumbnail: `${path}/thumbnail`, width: 1, height: 1 };
}

/** The person's token and their calls to the server. */
export class PersonalClient {
  constructor() {
    this.shortcuts = [];      // [{label, examples}]
  }

  get token() { return kept(TOKEN_KEY); }

  /** Calls the API with the token (made on first need); a token the server no longer knows is replaced once. */
  async call(method, path, body, { create = true, retried = false, keepalive = false } = {}) {
    let token = this.token;
    if (!token) {
      if (!create) return null;
      token = await this.newToken();
    }
    try {
      return await request(method, path, { body: body || null, headers: { Authorization: `Bearer ${token}` }, keepalive });
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 401) || retried || !create) throw e;
      forget(TOKEN_KEY);
      return this.call(method, path, body, { create, retried: true, keepalive });
    }
  }

  async newToken() {
    const body = await request("POST", "/api/users");
    if (!body || !body.token) throw new ApiError(200, null);
    keep(TOKEN_KEY, body.token);
    return body.token;
  }

  /** Refreshes the list of shortcuts (none without a token). */
  async refresh() {
    const body = await this.call("GET", "/api/shortcuts", null, { create: false });
    this.shortcuts = body ? body.shortcuts : [];
    return this.shortcuts;
  }

  async add(label, examples) {
    await this.call("POST", "/api/shortcuts", { label, examples });
    return this.refresh();
  }

  async remove(label) {
    await this.call("DELETE", `/api/shortcuts/${encodeURIComponent(label)}`);
    return this.refresh();
  }

  /** The person's shortcut for a sketch (Quick, Draw! strokes), or null. */
  async predict(strokes) {
    if (!this.shortcuts.length || !this.token) return null;
    const body = await this.call("POST", "/api/shortcuts/predict", { strokes }, { create: false });
    return body && body.label !== null ? body : null;
  }

  /** Tells the server that the shortcut `label` fired on these strokes and the person undid it
   *  at once: they are kept as a misfire, so that the shortcuts stay quiet on drawings like them.
   *  With `keepalive` the request outlives the page (sent as the page goes away). */
  async misfire(label, strokes, { keepalive = false } = {}) {
    if (!this.token || !strokes.length) return;
    await this.call("POST", "/api/shortcuts/misfires", { label, strokes }, { create: false, keepalive });
  }

  /** Keeps a sketch and the label the person chose for it (when they have a token); `kind` says
   * whether they picked a suggested picture ("suggestion", counted by an A/B test) or a guess. */
  async correct(label, strokes, kind = "suggestion") {
    if (!this.token || !strokes.length) return;
    await this.call("POST", "/api/corrections", { label, strokes, kind }, { create: false });
  }

  async settings() { return this.call("GET", "/api/users/me"); }
  async setKeepCorrections(on) { return this.call("PATCH", "/api/users/me", { keepCorrections: on }); }
}

/** A small canvas to draw one example on; its strokes in Quick, Draw! raw form. */
class ExamplePad {
  constructor(canvas, onChange) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.strokes = [];
    this.onChange = onChange;
    let current = null, start = 0;
    const point = (e) => {
      const r = canvas.getBoundingClientRect();
      return [(e.clientX - r.left) * (canvas.width / r.width), (e.clientY - r.top) * (canvas.height / r.height)];
    };
    canvas.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      canvas.setPointerCapture(e.pointerId);
      if (!this.strokes.length) start = performance.now();
      const [x, y] = point(e);
      current = [[x], [y], [Math.round(performance.now() - start)]];
      this.strokes.push(current);
      this.draw();
    });
    canvas.addEventListener("pointermove", (e) => {
      if (!current) return;
      const [x, y] = point(e);
      current[0].push(x); current[1].push(y); current[2].push(Math.round(performance.now() - start));
      this.draw();
    });
    const end = () => { if (current) { current = null; this.onChange(); } };
    canvas.addEventListener("pointerup", end);
    canvas.addEventListener("pointercancel", end);
    this.draw();
  }

  clear() { this.strokes = []; this.draw(); this.onChange(); }

  draw() {
    const { ctx, canvas } = this;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.lineWidth = 3; ctx.lineCap = "round"; ctx.lineJoin = "round"; ctx.strokeStyle = "#1f2937";
    for (const [xs, ys] of this.strokes) {
      ctx.beginPath();
      ctx.moveTo(xs[0], ys[0]);
      for (let i = 1; i < xs.length; i++) ctx.lineTo(xs[i], ys[i]);
      if (xs.length === 1) ctx.lineTo(xs[0] + 0.1, ys[0]);
      ctx.stroke();
    }
  }
}

/** The "My shortcuts" dialog: the list with delete buttons, and the form that teaches a new one. */
export class ShortcutDialog {
  /**
   * @param {HTMLDialogElement} dialog
   * @param {PersonalClient} client
   * @param {() => object[]} offered  the pictures the suggestion strip shows now (to pick from)
   */
  constructor(dialog, client, offered) {
    this.dialog = dialog;
    this.client = client;
    this.offered = offered;
    this.chosen = null;       // {id, name}: the picture on offer picked last
    const $ = (sel) => dialog.querySelector(sel);
    this.list = $("#shortcut-list");
    this.label = $("#shortcut-label");
    this.pictures = $("#shortcut-pictures");
    this.save = $("#shortcut-save");
    this.status = $("#shortcut-status");
    this.keep = $("#keep-corrections");
    this.pads = [...dialog.querySelectorAll("canvas.example-pad")].map((c) => new ExamplePad(c, () => this.update()));
    dialog.querySelectorAll("button[data-clear-pad]").forEach((b) => b.addEventListener("click", () => this.pads[Number(b.dataset.clearPad)].clear()));
    this.label.addEventListener("input", () => { this.showChoice(); this.update(); });
    $("#shortcut-form").addEventListener("submit", (e) => { e.preventDefault(); this.submit(); });
    this.list.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-remove]");
      if (b) this.removeShortcut(b.dataset.remove);
    });
    this.pictures.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-id]");
      if (b) this.choose(b);
    });
    this.keep.addEventListener("change", () => this.client.setKeepCorrections(this.keep.checked).catch((err) => this.say(errorText(err), "error")));
  }

  async open() {
    this.say("");
    if (this.chosen) this.label.value = "";   // the pictures on offer have changed
    this.chosen = null;
    this.showOffered();
    this.dialog.showModal();
    // The list shown is the last one loaded until the server's comes (then it is redrawn).
    this.list.setAttribute("aria-busy", "true");
    try {
      await this.client.refresh();
      this.renderList();
      if (this.client.token) this.keep.checked = (await this.client.settings()).keepCorrections;
    } catch (e) {
      this.say(t("shortcuts.loadFailed", { reason: errorText(e) }));
    } finally {
      this.list.removeAttribute("aria-busy");
    }
    this.update();
  }

  showOffered() {
    this.pictures.replaceChildren(...this.offered().slice(0, 8).map((s) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.id = s.id;
      b.dataset.name = displayName(s);
      b.setAttribute("aria-pressed", "false");
      b.title = t("shortcuts.offeredPicture", { label: displayName(s), title: pictureTitle(s) });
      const img = document.createElement("img");
      img.src = s.thumbnail || s.image;
      img.alt = altText(s);
      b.append(img);
      return b;
    }));
    this.pictures.hidden = !this.pictures.children.length;
  }

  renderList() {
    const items = this.client.shortcuts.map(({ label, display, examples }) => {
      const li = document.createElement("li");
      const picture = shortcutPicture(label);
      if (picture) {
        const img = document.createElement("img");
        img.src = picture.thumbnail;
        img.alt = "";
        li.append(img);
      }
      const name = document.createElement("span");
      name.textContent = t("shortcuts.item", { name: display || label, count: examples });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.dataset.remove = label;
      remove.textContent = t("shortcuts.delete");
      remove.setAttribute("aria-label", t("shortcuts.delete.name", { name: display || label }));
      li.append(name, remove);
      return li;
    });
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = t("shortcuts.none");
      items.push(li);
    }
    this.list.replaceChildren(...items);
  }

  /** Picks a picture on offer: the field shows its name ("cat", not the id "lucide:cat"), and
   *  its id is what is saved while the field still shows that name. */
  choose(button) {
    this.chosen = { id: button.dataset.id, name: button.dataset.name };
    this.label.value = this.chosen.name;
    this.showChoice();
    this.update();
  }

  /** The shortcut's label: the chosen picture's id while the field shows its name, else what was
   *  typed (an emoji, or a picture id). */
  labelToSave() {
    const typed = this.label.value.trim();
    return this.chosen && typed === this.chosen.name ? this.chosen.id : typed;
  }

  /** Marks the picture on offer that the label stands for as pressed. */
  showChoice() {
    const id = this.labelToSave();
    for (const b of this.pictures.querySelectorAll("button[data-id]")) b.setAttribute("aria-pressed", String(b.dataset.id === id));
  }

  /** Enables Save when the label and the three drawings are there, and says what is missing;
   *  `keepMessage` leaves the last message (a "Saved" stays until the next action). */
  update(keepMessage = false) {
    const label = this.labelToSave();
    const ready = this.pads.every((p) => p.strokes.length > 0);
    const picture = label && pictureIdFor(label);
    this.save.disabled = !ready || !picture;
    if (keepMessage) return;
    // No usable label: said once there is one, or once the drawings are done (Save stays off).
    if (!picture && (label || ready)) this.say(this.pictures.hidden ? t("shortcuts.needEmoji") : t("shortcuts.needPicture"));
    else if (this.status.dataset.kind !== "error") this.say(ready ? "" : t("shortcuts.needExamples", { count: EXAMPLES }));
  }

  async submit() {
    const label = this.labelToSave(), name = this.label.value.trim();
    this.save.disabled = true;
    this.say(t("shortcuts.learning"));
    try {
      await this.client.add(label, this.pads.map((p) => p.strokes));
      this.renderList();
      this.pads.forEach((p) => p.clear());
      this.label.value = "";
      this.chosen = null;
      this.showChoice();
      this.say(t("shortcuts.saved", { name }));
    } catch (e) {
      this.say(t("shortcuts.notSaved", { reason: errorText(e) }), "error");
    }
    this.update(true);
  }

  async removeShortcut(label) {
    try {
      await this.client.remove(label);
      this.renderList();
      this.say(t("shortcuts.deleted", { name: label }));
    } catch (e) {
      this.say(t("shortcuts.notDeleted", { reason: errorText(e) }), "error");
    }
  }

  say(text, kind = "info") {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
  }
}
