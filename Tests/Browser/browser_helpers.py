"""Helpers shared by the browser tests: waiting, opening the app, drawing, dragging and pressing
keys with real input events, reading PNGs, screenshots into out/test-artifacts/, and probes of results."""

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


def open_app(driver, base, expect_state="connected", timeout=30):
    driver.get(base + "/")
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


def draw(driver, strokes, rect, min_step=3.0, max_dt_ms=40, gaps=None):
    """Draws strokes [(points in canvas px, times ms)] with real mouse pointer events at about the
    speed they were drawn (each move lasting the recorded time, capped), pausing between strokes."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.mouse_button import MouseButton
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    def vp(x, y):
        vx = min(max(rect["x"] + x, rect["x"] + 1), rect["x"] + rect["w"] - 2)
        vy = min(max(rect["y"] + y, rect["y"] + 1), rect["y"] + rect["h"] - 2)
        return int(round(vx)), int(round(vy))

    for k, (pts, ts) in enumerate(strokes):
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
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
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


def guess_labels(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#guesses button[data-label]')].map(b => b.dataset.label)")


def wait_for_downloads(directory, name, timeout=15):
    path = Path(directory) / name
    wait_for(lambda: path.exists() and path.stat().st_size > 0 and not (Path(directory) / (name + ".crdownload")).exists(),
             timeout, message=f"download {name}")
    return path


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
