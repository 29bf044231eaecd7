// A row that scrolls sideways says so: its data-more names the edges with more beyond them
// ("start", "end" or "both"), which the style sheet fades, so that a chip or picture cut at an
// edge reads as "more this way" rather than as a slip of the layout.

/** Keeps `el`'s data-more up to date as it scrolls, resizes or changes; returns its update. Right
 *  to left, scrollLeft runs from 0 at the start to negative values. */
export function markScrollEdges(el) {
  const update = () => {
    const scrolled = Math.abs(el.scrollLeft);
    const start = scrolled > 1;
    const end = scrolled + el.clientWidth < el.scrollWidth - 1;
    if (start || end) el.dataset.more = start && end ? "both" : start ? "start" : "end";
    else delete el.dataset.more;
  };
  el.addEventListener("scroll", update, { passive: true });
  new ResizeObserver(update).observe(el);
  new MutationObserver(update).observe(el, { childList: true });
  return update;
}
