"""Every screen (issue 37, point 3): the app at phone, tablet and desktop sizes, portrait and
landscape. At each size a real drawing is drawn and guessed, then the layout itself is checked: the
boxes of the visible controls (buttons, inputs, selects, guess chips, pictures, the bars and the
strip) do not intersect, none is cut off by its container or the viewport, none has content
overflowing it, each is the topmost element at its centre, targets are at least 40 px on touch
screens (24 px, WCAG 2.5.8, with a mouse), at least 3 guess chips are fully visible, every control
is reachable (in its bar or in a "more" menu) and the first-run tip speaks of the input at hand.

Sizes up to 1024 px wide are emulated as touch screens (coarse pointer), wider ones as desktops
with a mouse. Screenshots: out/screenshots/viewport-<W>x<H>.png (and -menu.png with a "more"
menu open).

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_viewports.py
"""

import sys

import pytest

from browser_helpers import canvas_rect, draw, fit_drawing, guess_labels, open_app, wait_for
from conftest import REPO, skip_module_without_browser

skip_module_without_browser()

SCREENSHOTS = REPO / "out" / "screenshots"

#: (width, height): phones and tablets in portrait, then landscape phones, tablets and monitors.
VIEWPORTS = [(360, 740), (390, 844), (768, 1024), (844, 390), (900, 600), (1024, 768), (1280, 800), (1920, 1080), (2560, 1440)]
#: Up to this width the screen is emulated as a touch screen.
TOUCH_MAX_WIDTH = 1024
TOUCH_TARGET, MOUSE_TARGET = 40, 24

#: Every control the person must be able to reach at every size, directly or through a "more" menu.
REACHABLE = ["#clear", "#load-ndjson", "#add-photo", "#save-document", "#export-png", "#export-svg", "#save-ndjson",
             "#my-shortcuts", "#help", "#tool-select", "#tool-autodraw", "#tool-draw", "#tool-shape", "#tool-text",
             "#tool-fill", "#scene-mode", "#undo", "#redo", "#erase-last", "#palette button", ".swatch.custom",
             "#width", "#zoom-out", "#zoom-fit", "#zoom-in", "#style"]

#: Lists that scroll on purpose (results): their items may run past their edge, to be scrolled to.
SCROLL_LISTS = ["#guesses", "#suggestions"]
#: Controls (a colour input is measured by its swatch) and the other things on screen they must not overlap.
CONTROLS = "button, select, input:not([type=file]):not([type=color]), .swatch, a[href]"
ITEMS = ".brand, .status, .model-info, .assist, .zoom, .first-run, .object-bar, .credits, .rail, .topbar, .more-menu"

# The layout probe. Controls: interactive elements shown on the page (a colour input is measured
# by its swatch; links count, but as inline text they have no minimum size). Items: the bars'
# other contents and the floating cards, which controls must not overlap either. For each it
# returns the box it is drawn in, what clips it, and whether its content overflows it.
PROBE = """
const [controlSelector, itemSelector, scrollLists, within] = arguments;
const root = within ? document.querySelector(within) : document;
const shown = (el) => {
  if (!el.getClientRects().length) return false;
  const cs = getComputedStyle(el);
  return cs.visibility !== 'hidden' && parseFloat(cs.opacity) > 0 && !el.closest('.sr');
};
const name = (el) => el.id ? '#' + el.id
  : el.dataset.label ? `chip ${el.dataset.label}` : el.dataset.id ? `picture ${el.dataset.id}`
  : el.dataset.color ? `swatch ${el.dataset.color}`
  : el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '')
    + (el.textContent.trim() ? ` "${el.textContent.trim().slice(0, 20)}"` : '');
const box = (r) => ({left: r.left, top: r.top, right: r.right, bottom: r.bottom});
const controls = [...root.querySelectorAll(controlSelector)].filter((el) => !el.closest('dialog:not([open])') && shown(el));
const items = within ? [] : [...document.querySelectorAll(itemSelector)].filter(shown);
const describe = (el) => {
  const r = el.getBoundingClientRect();
  // What clips it: each ancestor that hides its overflow, up to the viewport.
  let list = null;
  const cut = [];
  const visible = box(r);
  const clipTo = (c, by) => {
    if (r.left < c.left - 0.5 || r.top < c.top - 0.5 || r.right > c.right + 0.5 || r.bottom > c.bottom + 0.5) cut.push(by);
    visible.left = Math.max(visible.left, c.left); visible.top = Math.max(visible.top, c.top);
    visible.right = Math.min(visible.right, c.right); visible.bottom = Math.min(visible.bottom, c.bottom);
  };
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
      if (!list && scrollLists.some((s) => a.matches(s))) list = '#' + a.id;
      clipTo(box(a.getBoundingClientRect()), name(a));
    }
  }
  clipTo({left: 0, top: 0, right: innerWidth, bottom: innerHeight}, 'the viewport');
  const cx = (visible.left + visible.right) / 2, cy = (visible.top + visible.bottom) / 2;
  const hit = visible.right > visible.left && visible.bottom > visible.top ? document.elementFromPoint(cx, cy) : null;
  const interactive = el.matches('button, select, input, .swatch');
  return {
    name: name(el), control: controls.includes(el), interactive,
    box: box(r), visible, cut, list,
    overflowX: el.scrollWidth - el.clientWidth, overflowY: el.scrollHeight - el.clientHeight,
    // Text cut short with an ellipsis on purpose (the credits, the model line).
    ellipsis: getComputedStyle(el).textOverflow === 'ellipsis',
    topmost: !hit ? 'nothing' : el.contains(hit) ? true : name(hit),
  };
};
const all = [...controls, ...items];
const described = all.map(describe);
const nested = [];
for (let i = 0; i < all.length; i++) for (let j = i + 1; j < all.length; j++)
  if (all[i].contains(all[j]) || all[j].contains(all[i])) nested.push([i, j]);
const page = document.documentElement;
return {elements: described, nested, viewport: [innerWidth, innerHeight, page.scrollWidth, page.scrollHeight]};
"""


# Which of the selectors name controls that are all on the page, whole and uncovered: each inside the
# viewport and the topmost element at its centre.
REACHED = """
const whole = (el) => {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height || r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) return false;
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return !!hit && el.contains(hit);
};
return arguments[0].filter((s) => [...document.querySelectorAll(s)].every(whole));
"""


def emulate(driver, width, height):
    touch = width <= TOUCH_MAX_WIDTH
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2 if touch else 1, "mobile": touch})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": touch, "maxTouchPoints": 5 if touch else 1})
    return touch


def layout(driver, within=None):
    return driver.execute_script(PROBE, CONTROLS, ITEMS, SCROLL_LISTS, within)


def intersection(a, b):
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return (w, h) if w > 0.5 and h > 0.5 else None


def layout_problems(result, min_target):
    """What is wrong with a probed layout: a list of sentences (empty when all is well)."""
    problems = []
    vw, vh, sw, sh = result["viewport"]
    if sw > vw or sh > vh:
        problems.append(f"the page scrolls: {sw}×{sh} in a {vw}×{vh} viewport")
    els = result["elements"]
    nested = {tuple(p) for p in result["nested"]}
    on_screen = [i for i, e in enumerate(els)
                 if e["visible"]["right"] > e["visible"]["left"] and e["visible"]["bottom"] > e["visible"]["top"]]
    for i in on_screen:
        e = els[i]
        if e["cut"] and not e["list"]:
            problems.append(f"{e['name']} is cut off by {', '.join(e['cut'])}: {e['box']}")
        if not e["ellipsis"] and (e["overflowX"] > 1 or e["overflowY"] > 1):
            problems.append(f"{e['name']}'s content overflows it by {e['overflowX']}×{e['overflowY']} px")
        if e["control"] and e["topmost"] is not True:
            problems.append(f"{e['name']} is covered at its centre by {e['topmost']}")
        if e["interactive"]:
            w, h = e["box"]["right"] - e["box"]["left"], e["box"]["bottom"] - e["box"]["top"]
            if w < min_target - 0.5 or h < min_target - 0.5:
                problems.append(f"{e['name']} is {w:.0f}×{h:.0f} px, under {min_target} px")
    for n, i in enumerate(on_screen):
        for j in on_screen[n + 1:]:
            if (i, j) in nested or not (els[i]["control"] or els[j]["control"]):
                continue
            overlap = intersection(els[i]["visible"], els[j]["visible"])
            if overlap:
                problems.append(f"{els[i]['name']} and {els[j]['name']} overlap by {overlap[0]:.0f}×{overlap[1]:.0f} px")
    return problems


def draw_in_clear_band(driver, record):
    """Draws `record` in the part of the canvas that the strip (at its full height, with guesses and
    pictures) and the zoom buttons leave clear, and waits for its guesses."""
    rect = canvas_rect(driver)
    # A first stroke brings the strip to its full height; it is measured, then cleared.
    draw(driver, [([(rect["w"] * 0.3, rect["h"] - 90), (rect["w"] * 0.7, rect["h"] - 80)], [0, 200])], rect)
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses for a first stroke")
    wait_for(lambda: driver.find_elements("css selector", "#suggestions button[data-id]"), 30, message="pictures")
    strip_bottom = driver.execute_script("return document.getElementById('assist').getBoundingClientRect().bottom")
    driver.execute_script("window.sketchwise.clear()")
    wait_for(lambda: not guess_labels(driver), 10, message="the strip emptied by Clear")
    top = strip_bottom + 8
    bottom = rect["y"] + rect["h"] - 64
    assert bottom - top >= 60, f"no room to draw under the strip: {top:.0f}..{bottom:.0f}"
    band = {"x": rect["x"] + 16, "y": top, "w": rect["w"] - 32, "h": bottom - top}
    strokes = fit_drawing(record["drawing"], band, fill=0.9)
    draw(driver, strokes, band)
    assert driver.execute_script("return window.sketchwise.currentSketch().length") == len(strokes), "every stroke reached the canvas"
    wait_for(lambda: len(guess_labels(driver)) >= 3 or None, 60, message="at least 3 guesses")
    wait_for(lambda: driver.find_elements("css selector", "#suggestions button[data-id]"), 30, message="pictures")


def more_menus(driver):
    """The "more" buttons shown: [(button id, menu id)]."""
    return driver.execute_script("""
      return [...document.querySelectorAll('button[aria-controls][aria-expanded]')]
        .filter((b) => b.getClientRects().length && document.getElementById(b.getAttribute('aria-controls')).matches('.more-menu'))
        .map((b) => [b.id, b.getAttribute('aria-controls')]);""")


def fully_visible_chips(driver):
    return driver.execute_script("""
      const row = document.getElementById('guesses').getBoundingClientRect();
      return [...document.querySelectorAll('#guesses button')].filter((b) => {
        const r = b.getBoundingClientRect();
        return r.width > 0 && r.left >= row.left - 0.5 && r.right <= row.right + 0.5 && r.right <= innerWidth && r.left >= 0;
      }).length;""")


@pytest.mark.parametrize("width,height", VIEWPORTS, ids=[f"{w}x{h}" for w, h in VIEWPORTS])
def test_every_control_fits_at(driver, server, known_drawing, width, height):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    touch = emulate(driver, width, height)
    min_target = TOUCH_TARGET if touch else MOUSE_TARGET
    open_app(driver, server.base)
    assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]
    assert driver.execute_script("return matchMedia('(pointer: coarse)').matches") == touch
    # The first-run tip waits until the drawing is done (it would sit where strokes go), then shows.
    driver.execute_script("localStorage.setItem('sketchwise.firstRunDone', '1')")
    draw_in_clear_band(driver, known_drawing[1])
    # Undo and redo, each answered in turn (together they could be one unchanged sketch, never asked).
    driver.execute_script("window.__answers = 0; window.sketchwise.onResult(() => { window.__answers += 1; });"
                          "localStorage.removeItem('sketchwise.firstRunDone'); window.sketchwise.undo();")
    wait_for(lambda: driver.execute_script("return window.__answers") >= 1, 60, message="the answer after undo")
    driver.execute_script("window.sketchwise.redo();")
    wait_for(lambda: driver.execute_script("return window.__answers") >= 2, 60, message="the answer after redo")
    wait_for(lambda: driver.execute_script("return !document.getElementById('first-run').hidden"), 30, message="the first-run tip")
    wait_for(lambda: len(guess_labels(driver)) >= 3 or None, 60, message="guesses again")
    wait_for(lambda: not driver.execute_script("return document.getElementById('assist').dataset.pending === 'true'"), 30,
             message="no answer pending")

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / f"viewport-{width}x{height}.png"
    driver.save_screenshot(str(shot))
    print(f"\n[screenshot] {shot.relative_to(REPO)}", file=sys.stderr)

    result = layout(driver)
    problems = layout_problems(result, min_target)
    names = [e["name"] for e in result["elements"] if e["control"]]
    print(f"[layout] {width}x{height}: {len(names)} controls checked, {len(problems)} problems", file=sys.stderr)
    chips = fully_visible_chips(driver)
    if chips < 3:
        problems.append(f"{chips} guess chips fully visible, fewer than 3 (guesses: {guess_labels(driver)})")
    tip = driver.find_element("id", "first-run").text
    if touch and ("Ctrl" in tip or "key" in tip.lower()):
        problems.append(f"the tip speaks of keys on a touch screen: {tip!r}")
    if not touch and "Ctrl+Z" not in tip:
        problems.append(f"the tip does not give the keyboard shortcut on a desktop: {tip!r}")

    # Every control is reachable: shown as it is, or in a "more" menu that opens and shows it.
    reachable = set(driver.execute_script(REACHED, REACHABLE))
    for button, menu in more_menus(driver):
        driver.find_element("id", button).click()
        wait_for(lambda: driver.execute_script("return !document.getElementById(arguments[0]).hidden", menu), 5,
                 message=f"#{menu} open")
        driver.save_screenshot(str(SCREENSHOTS / f"viewport-{width}x{height}-{menu}.png"))
        print(f"[screenshot] {(SCREENSHOTS / f'viewport-{width}x{height}-{menu}.png').relative_to(REPO)}", file=sys.stderr)
        in_menu = layout(driver, within=f"#{menu}")
        assert in_menu["elements"], f"#{menu} opened empty"
        problems += [f"in #{menu}: {p}" for p in layout_problems(in_menu, min_target)]
        reachable |= set(driver.execute_script(REACHED, REACHABLE))
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: driver.execute_script("return document.getElementById(arguments[0]).hidden", menu), 5,
                 message=f"#{menu} closed by Escape")
    missing = [s for s in REACHABLE if s not in reachable]
    if missing:
        problems.append(f"not reachable: {missing}")
    assert not problems, f"{width}x{height}:\n  " + "\n  ".join(problems)
