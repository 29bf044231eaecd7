"""Helpers shared by the browser tests: waiting, opening the app (in a language), drawing, dragging
and pressing keys with real input events, reading PNGs, screenshots into out/test-artifacts/, probes
of results, what the service worker keeps, and the layout probe (emulated screens, controls that
overlap, are cut off or overflow)."""

import base64
import struct
import sys
import time
import zlib
from pathlib import Path

from conftest import ARTIFACTS


def wait_for(predicate, timeout=30.0, interval=0.1, message="condition"):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {message} (last: {last!r})")


def open_app(driver, base, expect_state="connected", timeout=30, lang=None):
    """Opens the app (in language `lang` by ?lang=, else the browser's) and waits for its hook and
    the connection state `expect_state` (None: any)."""
    driver.get(base + "/" + (f"?lang={lang}" if lang else ""))
    wait_for(lambda: driver.execute_script("return !!window.sketchwise"), 15, message="window.sketchwise")
    if expect_state:
        wait_for(lambda: driver.execute_script("return document.getElementById('status').dataset.state") == expect_state,
                 timeout, message=f"#status data-state={expect_state}")


def canvas_rect(driver):
    return driver.execute_script(
        "const r = document.getElementById('canvas').getBoundingClientRect();"
        "return {x: r.left, y: r.top, w: r.width, h: r.height};")


def attr_int(driver, name):
    return int(driver.execute_script(f"return document.getElementById('canvas').getAttribute('{name}')"))


def fit_drawing(drawing, rect, fill=0.7):
    """The drawing scaled (aspect kept) to `fill` of the canvas and centred, in canvas pixels."""
    xs = [v for s in drawing for v in s[0]]
    ys = [v for s in drawing for v in s[1]]
    minx, maxx, miny, maxy = min(xs), max(xs), min(ys), max(ys)
    bw, bh = max(maxx - minx, 1), max(maxy - miny, 1)
    scale = min(rect["w"] * fill / bw, rect["h"] * fill / bh)
    ox = (rect["w"] - bw * scale) / 2 - minx * scale
    oy = (rect["h"] - bh * scale) / 2 - miny * scale
    out = []
    for s in drawing:
        pts = [(x * scale + ox, y * scale + oy) for x, y in zip(s[0], s[1])]
        ts = list(s[2]) if len(s) > 2 else [i * 16 for i in range(len(pts))]
        out.append((pts, ts))
    return out


def without_needless_points(points, times, tolerance):
    """The points (and their times) that Ramer–Douglas–Peucker keeps: those that move the polyline
    by more than `tolerance` px when left out."""
    keep = [0, len(points) - 1] if len(points) > 1 else [0]
    spans = [(0, len(points) - 1)]
    while spans:
        first, last = spans.pop()
        (ax, ay), (bx, by) = points[first], points[last]
        length = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
        farthest, distance = None, tolerance
        for i in range(first + 1, last):
            px, py = points[i]
            d = abs((bx - ax) * (py - ay) - (by - ay) * (px - ax)) / length if length else ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
            if d > distance:
                farthest, distance = i, d
        if farthest is not None:
            keep.append(farthest)
            spans += [(first, farthest), (farthest, last)]
    keep = sorted(set(keep))
    return [points[i] for i in keep], [times[i] for i in keep]


def draw(driver, strokes, rect, min_step=3.0, max_dt_ms=16, gaps=None, tolerance=0.75):
    """Draws strokes [(points in canvas px, times ms)] with real mouse pointer events, each move
    lasting the recorded time up to `max_dt_ms`, pausing between strokes. Headless Chromium
    delivers one pointer move per 60 Hz frame whatever its duration, so a move costs at least
    16.7 ms: points within `tolerance` px of the polyline without them are left out (and moves
    last at most about one frame), which halves the time a real drawing takes to draw without
    changing its shape by a pixel."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.mouse_button import MouseButton
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    def vp(x, y):
        vx = min(max(rect["x"] + x, rect["x"] + 1), rect["x"] + rect["w"] - 2)
        vy = min(max(rect["y"] + y, rect["y"] + 1), rect["y"] + rect["h"] - 2)
        return int(round(vx)), int(round(vy))

    for k, (pts, ts) in enumerate(strokes):
        if tolerance > 0:
            pts, ts = without_needless_points(pts, ts, tolerance)
        ab = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_MOUSE, "mouse"))
        mouse = ab.pointer_inputs[0]
        x0, y0 = vp(*pts[0])
        mouse.create_pointer_move(duration=0, x=x0, y=y0, origin="viewport")
        mouse.create_pointer_down(button=MouseButton.LEFT)
        last, last_t = (x0, y0), ts[0]
        for i in range(1, len(pts)):
            x, y = vp(*pts[i])
            if (x - last[0]) ** 2 + (y - last[1]) ** 2 < min_step ** 2 and i != len(pts) - 1:
                continue
            dt = int(min(max(ts[i] - last_t, 8), max_dt_ms))
            mouse.create_pointer_move(duration=dt, x=x, y=y, origin="viewport")
            last, last_t = (x, y), ts[i]
        mouse.create_pointer_up(MouseButton.LEFT)
        gap = gaps[k] if gaps else 0.25
        if k + 1 < len(strokes):
            mouse.create_pause(gap)
        ab.perform()


def client(driver, x, y):
    """The client (viewport) point of document point (x, y)."""
    p = driver.execute_script("return window.sketchwise.clientPoint(arguments[0], arguments[1])", x, y)
    return p["x"], p["y"]


def drag(driver, start, end, steps=8, key=None):
    """A mouse drag between client points with real pointer events."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.mouse_button import MouseButton
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    ab = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_MOUSE, "mouse"))
    mouse = ab.pointer_inputs[0]
    mouse.create_pointer_move(duration=0, x=int(start[0]), y=int(start[1]), origin="viewport")
    mouse.create_pointer_down(button=MouseButton.LEFT)
    for i in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        mouse.create_pointer_move(duration=16, x=int(round(x)), y=int(round(y)), origin="viewport")
    mouse.create_pointer_up(MouseButton.LEFT)
    ab.perform()


def click_at(driver, point):
    drag(driver, point, point, steps=1)


def element_centre(driver, css):
    r = driver.execute_script("const r = document.querySelector(arguments[0]).getBoundingClientRect(); "
                              "return [r.left + r.width / 2, r.top + r.height / 2];", css)
    return r[0], r[1]


def reveal(driver, el):
    """Opens the "more" menu that holds control `el`, if it is in one; returns the menu's More
    button id, or None when `el` is in its bar."""
    button = driver.execute_script(
        "const menu = arguments[0].closest('.more-menu');"
        "return menu && menu.hidden ? document.querySelector(`[aria-controls='${menu.id}']`).id : null;", el)
    if button:
        driver.find_element("id", button).click()
        wait_for(lambda: el.is_displayed(), 5, message=f"the control in #{button}'s menu")
    return button


def press(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver)
    mods = [k for k in keys[:-1]]
    for m in mods:
        chain.key_down(getattr(Keys, m))
    chain.send_keys(getattr(Keys, keys[-1]) if len(keys[-1]) > 1 else keys[-1])
    for m in reversed(mods):
        chain.key_up(getattr(Keys, m))
    chain.perform()


def png_info(data):
    """(width, height) of a PNG, after checking its chunks' CRCs and inflating its image data."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack("!I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack("!I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"bad CRC in {kind!r}"
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack("!IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    assert width, "no IHDR"
    raw = zlib.decompress(idat)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    row = 1 + (width * channels * depth + 7) // 8
    assert len(raw) == row * height, "image data does not match the size"
    return width, height


def data_url_png(url):
    assert url.startswith("data:image/png;base64,"), url[:40]
    return base64.b64decode(url.split(",", 1)[1])


def save_screenshot(driver, name):
    """Saves a screenshot as out/test-artifacts/<name> (name may hold a folder)."""
    path = ARTIFACTS / name
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    print(f"\n[screenshot] {path}", file=sys.stderr)
    return path


def install_probe(driver):
    """Records pointer-up times and result arrival times in window.__probe."""
    driver.execute_script("""
      const p = window.__probe = {ups: [], results: []};
      document.getElementById('canvas').addEventListener('pointerup', () => p.ups.push(performance.now()));
      window.sketchwise.onResult((r) => p.results.push({t: performance.now(),
        n: window.sketchwise.currentSketch().length, labels: r.guesses.map((g) => g.label)}));
    """)


def wait_for_full_result(driver, n, timeout=60):
    """The first result (probe record) after the last pointer-up for a sketch of n strokes."""
    return wait_for(lambda: driver.execute_script(
        "const p = window.__probe; const up = p.ups[p.ups.length - 1];"
        "return p.results.find(r => r.t > up && r.n === arguments[0]) || null;", n), timeout,
        message=f"a result for the whole {n}-stroke sketch")


def draw_and_recognise(driver, base, drawing):
    """Opens the app, draws a recorded drawing (strokes [[x…], [y…], [t…]]) fitted to the canvas
    and waits for the result for all of its strokes; returns the strokes drawn."""
    open_app(driver, base)
    install_probe(driver)
    rect = canvas_rect(driver)
    strokes = fit_drawing(drawing, rect)
    draw(driver, strokes, rect)
    wait_for_full_result(driver, len(strokes))
    return strokes


def guess_labels(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#guesses button[data-label]')].map(b => b.dataset.label)")


def wait_for_downloads(directory, name, timeout=15):
    path = Path(directory) / name
    wait_for(lambda: path.exists() and path.stat().st_size > 0 and not (Path(directory) / (name + ".crdownload")).exists(),
             timeout, message=f"download {name}")
    return path


SHELL_KEPT = """
const [urls, done] = arguments;
caches.open("sketchwise-shell")
  .then((cache) => Promise.all(urls.map((url) => cache.match(url))))
  .then((kept) => done(!!navigator.serviceWorker.controller && kept.every(Boolean)), () => done(false));
"""


def shell_kept(driver, files):
    """Whether the service worker controls the page and keeps the page itself and `files` (paths
    relative to it) for the app to open offline."""
    urls = driver.execute_script("return [location.href.split('#')[0], ...arguments[0].map((f) => new URL(f, location.href).href)]", files)
    return driver.execute_async_script(SHELL_KEPT, urls)


def ink_pixels(driver, box):
    """Non-white pixels of the canvas inside box (CSS px)."""
    return driver.execute_script("""
      const [x, y, w, h] = arguments;
      const c = document.getElementById('canvas');
      const k = c.width / c.getBoundingClientRect().width;
      const d = c.getContext('2d').getImageData(Math.floor(x * k), Math.floor(y * k),
                                                Math.max(1, Math.floor(w * k)), Math.max(1, Math.floor(h * k))).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235) n++;
      return n;
    """, box["x"], box["y"], box["w"], box["h"])


# ---- the layout probe ----------------------------------------------------------------------------

#: Up to this width the screen is emulated as a touch screen.
TOUCH_MAX_WIDTH = 1024
TOUCH_TARGET, MOUSE_TARGET = 40, 24

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


def emulate(driver, width, height):
    """Emulates a screen of width × height CSS px: a touch screen up to TOUCH_MAX_WIDTH, else a
    desktop with a mouse. Returns whether it is a touch screen."""
    touch = width <= TOUCH_MAX_WIDTH
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 2 if touch else 1, "mobile": touch})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": touch, "maxTouchPoints": 5 if touch else 1})
    return touch


def layout(driver, within=None, items=ITEMS):
    """The probed layout of the page's controls and `items` (or only the controls inside `within`)."""
    return driver.execute_script(PROBE, CONTROLS, items, SCROLL_LISTS, within)


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
    """Draws `record` in the part of the canvas that the strip (at its full size, with guesses and
    pictures) and the zoom buttons leave clear: below the strip, or beside it where it stands at a
    side (short, wide screens), whichever is larger; then waits for its guesses."""
    rect = canvas_rect(driver)
    # A first stroke brings the strip to its full size; it is measured, then cleared.
    draw(driver, [([(rect["w"] * 0.2, rect["h"] - 90), (rect["w"] * 0.4, rect["h"] - 80)], [0, 200])], rect)
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses for a first stroke")
    wait_for(lambda: driver.find_elements("css selector", "#suggestions button[data-id]"), 30, message="pictures")
    strip = driver.execute_script("const r = document.getElementById('assist').getBoundingClientRect();"
                                  "return {left: r.left, right: r.right, bottom: r.bottom};")
    driver.execute_script("window.sketchwise.clear()")
    wait_for(lambda: not guess_labels(driver), 10, message="the strip emptied by Clear")
    top, bottom = rect["y"] + 16, rect["y"] + rect["h"] - 64
    left, right = rect["x"] + 16, rect["x"] + rect["w"] - 16
    bands = [{"x": left, "y": strip["bottom"] + 8, "w": right - left, "h": bottom - strip["bottom"] - 8},
             {"x": left, "y": top, "w": strip["left"] - 8 - left, "h": bottom - top},
             {"x": strip["right"] + 8, "y": top, "w": right - strip["right"] - 8, "h": bottom - top}]
    band = max(bands, key=lambda b: max(b["w"], 0) * max(b["h"], 0))
    assert min(band["w"], band["h"]) >= 60, f"no room to draw beside the strip: {band}"
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
