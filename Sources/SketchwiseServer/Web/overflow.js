// A bar that never overflows: when its controls don't fit, it first drops their labels (its
// data-compact), then moves them, least needed first, into its "more" menu, which its More button
// opens beside the bar. Each control that may move carries data-overflow="N" (the lowest N moves
// first); it keeps its element, id and listeners, and goes back to its place when there is room.

export class OverflowMenu {
  /**
   * @param {HTMLElement} bar       the bar (it hides its overflow, so that the overflow can be measured)
   * @param {HTMLButtonElement} button  its More button, inside the bar (aria-controls names the menu)
   * @param {HTMLElement} menu      the menu, outside the bar (position: fixed)
   */
  constructor(bar, button, menu) {
    this.bar = bar;
    this.button = button;
    this.menu = menu;
    // Each control that may move, with a marker where it belongs in the bar.
    this.units = [...bar.querySelectorAll("[data-overflow]")].map((el) => {
      const mark = document.createComment(el.id || el.className);
      el.before(mark);
      return { el, mark, rank: Number(el.dataset.overflow) };
    });
    this.byRank = [...this.units].sort((a, b) => a.rank - b.rank);
    button.addEventListener("click", () => (this.isOpen ? this.close(true) : this.open()));
    // A control used in the menu closes it (a slider, which is dragged, leaves it open).
    menu.addEventListener("click", (e) => { if (e.target.closest("button")) this.close(); });
    menu.addEventListener("change", (e) => { if (e.target.type === "color") this.close(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.isOpen) this.close(true); });
    menu.addEventListener("keydown", (e) => this.tabOut(e));
    document.addEventListener("pointerdown", (e) => {
      if (this.isOpen && !menu.contains(e.target) && !button.contains(e.target)) this.close();
    });
    new ResizeObserver(() => this.fit()).observe(bar);
  }

  get isOpen() { return !this.menu.hidden; }

  /** Whether everything in the bar is inside it. */
  fits() {
    const b = this.bar;
    return b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1;
  }

  /** Lays the bar out again for its size: labels, then compact, then controls into the menu.
   *  A control that had the keyboard keeps it where it stays in the bar (moving an element takes
   *  its focus away); one that went into the menu hands it to the More button. */
  fit() {
    const focused = document.activeElement;
    this.layOut();
    if (!focused || focused === document.activeElement || !this.bar.contains(focused) && !this.menu.contains(focused)) return;
    (this.menu.contains(focused) ? this.button : focused).focus();
  }

  layOut() {
    this.close();
    const moved = new Set();
    const place = () => {
      for (const u of this.units) {
        if (moved.has(u)) this.menu.append(u.el);
        else if (u.mark.nextSibling !== u.el) u.mark.after(u.el);
      }
    };
    this.bar.dataset.compact = "false";
    this.button.hidden = true;
    place();
    if (this.fits()) return;
    this.bar.dataset.compact = "true";
    if (this.fits()) return;
    this.button.hidden = false;
    for (const u of this.byRank) {
      moved.add(u);
      place();
      if (this.fits()) break;
    }
  }

  /** Opens the menu beside the bar (beside a vertical bar, on its inner side; under or over a
   *  horizontal one, as there is room, lined up with the More button's end), within the window,
   *  and focuses its first control. Right to left, it opens mirrored. */
  open() {
    const { menu, button } = this;
    const b = button.getBoundingClientRect(), bar = this.bar.getBoundingClientRect();
    const gap = 6, edge = 8, beside = bar.height > bar.width;
    const rtl = getComputedStyle(this.bar).direction === "rtl";
    // Beside a vertical bar, the menu keeps clear of it.
    menu.style.maxWidth = beside ? `${(rtl ? b.left : innerWidth - b.right) - gap - edge}px` : "";
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    const m = menu.getBoundingClientRect();
    let left, top;
    if (beside) {
      left = rtl ? b.left - gap - m.width : b.right + gap;
      top = b.bottom - m.height;
    } else {
      left = rtl ? b.left : b.right - m.width;
      top = b.bottom + gap + m.height <= innerHeight - edge ? b.bottom + gap : b.top - gap - m.height;
    }
    menu.style.left = `${Math.max(edge, Math.min(left, innerWidth - edge - m.width))}px`;
    menu.style.top = `${Math.max(edge, Math.min(top, innerHeight - edge - m.height))}px`;
    const first = menu.querySelector("button, input, select");
    if (first) first.focus({ preventScroll: true });
  }

  /** Tab past the menu's last control (Shift+Tab before its first) closes it and goes back to
   *  the More button: the menu stands at the end of the page, so the browser's own Tab would
   *  leave the bar's order (and the menu open). */
  tabOut(e) {
    if (e.key !== "Tab") return;
    const controls = [...this.menu.querySelectorAll("button, input, select")].filter((c) => !c.disabled && c.getClientRects().length);
    if (document.activeElement !== (e.shiftKey ? controls[0] : controls[controls.length - 1])) return;
    e.preventDefault();
    this.close(true);
  }

  /** Closes the menu; `refocus`: the focus goes back to the More button. */
  close(refocus = false) {
    if (!this.isOpen) return;
    this.menu.hidden = true;
    this.button.setAttribute("aria-expanded", "false");
    if (refocus) this.button.focus({ preventScroll: true });
  }
}
