"""Browser tests of the web app served by `sketchwise serve`: a person draws a real Quick, Draw!
drawing with pointer events, the app guesses it, a suggestion replaces the sketch, undo/redo and
the exports work; a phone-sized viewport; bad files; the app with no server behind it.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_webapp.py
"""

import json
import sys
import xml.etree.ElementTree as ET

import pytest


from browser_helpers import (attr_int, canvas_rect, data_url_png, draw, draw_and_recognise, emulate, fit_drawing, guess_labels, ink_pixels,
                             install_probe, intersection, open_app, png_info, press, reveal, save_screenshot, wait_for, wait_for_downloads,
                             wait_for_full_result)
from conftest import skip_module_without_browser

skip_module_without_browser()

SVG_NS = "{http://www.w3.org/2000/svg}"


# ---- tests -----------------------------------------------------------------------------------


def test_draw_guess_swap_undo_export(driver, server, known_drawing, download_dir):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    cls, record, offline_top3 = known_drawing
    open_app(driver, server.base)
    install_probe(driver)
    rect = canvas_rect(driver)
    strokes = fit_drawing(record["drawing"], rect)
    gaps = []
    for a, b in zip(record["drawing"], record["drawing"][1:]):
        gap = (b[2][0] - a[2][-1]) / 1000 if len(a) > 2 and len(b) > 2 else 0.25
        gaps.append(min(max(gap, 0.15), 0.5))
    gaps.append(0)

    draw(driver, strokes, rect, gaps=gaps)
    n = len(strokes)
    assert attr_int(driver, "data-stroke-count") == n
    assert attr_int(driver, "data-picture-count") == 0
    drawn = driver.execute_script("return window.sketchwise.strokes()")
    assert len(drawn) == n
    for s in drawn:
        assert len(s) == 3 and len(s[0]) == len(s[1]) == len(s[2]) >= 1
        assert all(b >= a for a, b in zip(s[2], s[2][1:])), "t must not decrease within a stroke"
    assert drawn[-1][2][-1] > drawn[0][2][0], "t is ms since the drawing started"

    # Guesses for the whole sketch: time from the last pointer-up to their arrival.
    result = wait_for_full_result(driver, n)
    last_up = driver.execute_script("return window.__probe.ups[window.__probe.ups.length - 1]")
    latency_ms = result["t"] - last_up
    print(f"\n[latency] last pointer-up → guesses: {latency_ms:.0f} ms  (class {cls}, {n} strokes)", file=sys.stderr)
    labels = wait_for(lambda: guess_labels(driver) or None, 30, message="#guesses buttons")
    assert cls in labels[:5], f"{cls!r} not among the first 5 guesses {labels} (offline top 3: {offline_top3})"
    assert labels == result["labels"], "the guesses row shows the latest result in rank order"
    save_screenshot(driver, "webapp-guesses.png")

    suggestions = driver.execute_script("return window.sketchwise.suggestions()")
    assert suggestions, "no suggestions for a recognised drawing"
    buttons = driver.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]")
    assert [b.get_attribute("data-id") for b in buttons] == [s["id"] for s in suggestions]
    for b in buttons:
        assert b.find_element(By.TAG_NAME, "img").get_attribute("src")

    # Clicking a guess puts its label's pictures first.
    other = next((g for g in labels[1:] if any(s["label"] == g for s in suggestions)), None)
    if other:
        driver.find_element(By.CSS_SELECTOR, f'#guesses button[data-label="{other}"]').click()
        first = driver.find_element(By.CSS_SELECTOR, "#suggestions button[data-id]")
        assert first.get_attribute("data-label") == other
        driver.find_element(By.CSS_SELECTOR, f'#guesses button[data-label="{other}"]').click()  # back to rank order

    # Swap the sketch for the first picture of the class (or the first picture).
    pick = next((s for s in suggestions if s["label"] == cls), suggestions[0])
    sketch = driver.execute_script("return window.sketchwise.currentSketch()")
    xs = [v for s in sketch for v in s[0]]
    ys = [v for s in sketch for v in s[1]]
    box = {"x": min(xs), "y": min(ys), "w": max(xs) - min(xs), "h": max(ys) - min(ys)}
    driver.find_element(By.CSS_SELECTOR, f'#suggestions button[data-id="{pick["id"]}"]').click()
    wait_for(lambda: attr_int(driver, "data-picture-count") == 1, 5, message="data-picture-count = 1")
    assert attr_int(driver, "data-stroke-count") == 0
    pics = driver.execute_script("return window.sketchwise.pictures()")
    assert len(pics) == 1 and pics[0]["id"] == pick["id"]
    p = pics[0]
    pen = 4  # the default width; the sketch box is padded by half of it
    assert abs((p["x"] + p["w"] / 2) - (box["x"] + box["w"] / 2)) <= 1.5, "picture centred on the sketch (x)"
    assert abs((p["y"] + p["h"] / 2) - (box["y"] + box["h"] / 2)) <= 1.5, "picture centred on the sketch (y)"
    assert p["w"] <= box["w"] + pen + 1 and p["h"] <= box["h"] + pen + 1, "picture fitted inside the sketch's box"
    assert abs(p["w"] / p["h"] - pick["width"] / pick["height"]) < 0.02, "picture keeps its own aspect ratio"
    assert driver.execute_script("return window.sketchwise.currentSketch().length") == 0, "a swap starts a new sketch"
    # The strip now offers the other pictures for the placed one, and focus stays on the button.
    assert driver.find_element(By.ID, "assist-title").text.lower() == "other pictures"
    current = driver.find_element(By.CSS_SELECTOR, '#suggestions button[aria-current="true"]')
    assert current.get_attribute("data-id") == pick["id"]
    assert driver.execute_script("return document.activeElement.dataset.id") == pick["id"], "focus stays on the picture's button"
    # Enter on that button picks the picture where it already is: no change, no step to undo.
    press(driver, "ENTER")
    assert driver.execute_script("return window.sketchwise.pictures()")[0]["id"] == pick["id"]
    # One more click tries another picture in its place, still with the AutoDraw tool (undoable).
    another = next(s for s in suggestions if s["id"] != pick["id"])
    driver.find_element(By.CSS_SELECTOR, f'#suggestions button[data-id="{another["id"]}"]').click()
    wait_for(lambda: driver.execute_script("return window.sketchwise.pictures()")[0]["id"] == another["id"], 10,
             message="the placed picture replaced by another")
    assert attr_int(driver, "data-picture-count") == 1
    assert driver.find_element(By.CSS_SELECTOR, '#suggestions button[aria-current="true"]').get_attribute("data-id") == another["id"]
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    assert driver.execute_script("return window.sketchwise.pictures()")[0]["id"] == pick["id"], "trying another picture is undoable"

    # The full picture loads and is drawn on the canvas.
    driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.picturesReady().then(() => done(true));")
    assert ink_pixels(driver, p) > 50, "the picture is drawn on the canvas"
    save_screenshot(driver, "webapp.png")

    # Undo (button) brings the strokes back; redo swaps again; then the keyboard.
    driver.find_element(By.ID, "undo").click()
    assert attr_int(driver, "data-stroke-count") == n and attr_int(driver, "data-picture-count") == 0
    assert driver.execute_script("return window.sketchwise.strokes()") == drawn
    driver.find_element(By.ID, "redo").click()
    assert attr_int(driver, "data-stroke-count") == 0 and attr_int(driver, "data-picture-count") == 1
    # The picture brought back offers its others again, as when it was picked.
    assert driver.execute_script("return document.getElementById('assist-title').textContent") == "Other pictures"
    assert driver.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]")
    body = driver.find_element(By.TAG_NAME, "body")
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    assert attr_int(driver, "data-stroke-count") == n and attr_int(driver, "data-picture-count") == 0
    ActionChains(driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
    assert attr_int(driver, "data-picture-count") == 1
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("y").key_up(Keys.CONTROL).perform()
    assert attr_int(driver, "data-stroke-count") == 0 and attr_int(driver, "data-picture-count") == 1
    assert body.is_displayed()

    # PNG export at the canvas's size.
    size = driver.execute_script("const c = document.getElementById('canvas'); return [c.width, c.height];")
    png = data_url_png(driver.execute_script("return window.sketchwise.exportPNGDataURL()"))
    assert png_info(png) == tuple(size)

    # The line picture is drawn with lines as wide as the pen's at its size, whatever its size.
    weight = round(pen / max(p["w"], p["h"]), 3)
    fetched = driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert any("/image?" in url and f"weight={weight}" in url for url in fetched), (weight, [u for u in fetched if "/image" in u])

    # SVG export: the line picture as vectors (its own document nested in its box), no strokes,
    # and its lines as wide as the pen's.
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    nested = root.find(f"{SVG_NS}g/{SVG_NS}svg")
    assert nested is not None, "the picture is an <svg> of its own"
    assert not root.findall(f"{SVG_NS}image") and not list(root.iter(f"{SVG_NS}script"))
    assert [float(nested.get(k)) for k in ("x", "y", "width", "height")] == pytest.approx([p["x"], p["y"], p["w"], p["h"]], abs=0.01)
    shape_tags = {SVG_NS + t for t in ("path", "rect", "polygon", "polyline", "line", "circle", "ellipse")}
    shapes = [e for e in nested.iter() if e.tag in shape_tags]
    assert shapes, "the picture's own shapes are in the file"
    (style,) = [e.text for e in nested.iter(f"{SVG_NS}style")]
    view_width = float(nested.get("viewBox").split()[2])
    line = float(style.split("stroke-width:")[1].split("px")[0]) * p["w"] / view_width
    assert abs(line - pen) < 0.5, f"lines {line:.2f} wide in the export, the pen {pen}"

    # Export buttons download files; the PNG is cropped to the drawing (16 px margin) at 2×.
    driver.find_element(By.ID, "export-png").click()
    png_file = wait_for_downloads(download_dir, "sketchwise.png")
    width, height = png_info(png_file.read_bytes())
    assert abs(width - 2 * (p["w"] + 32)) <= 2 and abs(height - 2 * (p["h"] + 32)) <= 2, (width, height, p)
    driver.find_element(By.ID, "export-svg").click()
    svg_file = wait_for_downloads(download_dir, "sketchwise.svg")
    assert ET.parse(svg_file).getroot().find(f"{SVG_NS}g/{SVG_NS}svg") is not None


def test_phone_viewport(driver, server):
    from selenium.webdriver.common.by import By

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    open_app(driver, server.base)
    vw, vh, scroll_w = driver.execute_script(
        "return [window.innerWidth, window.innerHeight, document.documentElement.scrollWidth]")
    assert (vw, vh) == (390, 844)
    assert scroll_w <= vw, f"horizontal scroll: content {scroll_w}px wide in a {vw}px viewport"

    rail = driver.find_element(By.CSS_SELECTOR, "nav.rail")
    assert rail.is_displayed()
    # Undo, redo and the main tools show as they are; the rest is in the bars' "more" menus.
    for bid in ("undo", "redo", "tool-select", "tool-autodraw", "tool-draw", "clear", "load-ndjson", "save-document"):
        el = driver.find_element(By.ID, bid)
        r = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom];", el)
        assert el.is_displayed() and r[0] >= 0 and r[1] <= vw and r[3] <= vh, f"#{bid} not fully visible: {r}"
        assert r[1] - r[0] >= 32 and r[3] - r[2] >= 32, f"#{bid} is too small to tap: {r}"
    for bid in ("tool-shape", "tool-text", "tool-fill", "erase-last", "export-png", "export-svg", "save-ndjson"):
        el = driver.find_element(By.ID, bid)
        opened = reveal(driver, el)
        r = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom];", el)
        assert el.is_displayed() and r[0] >= 0 and r[1] <= vw and r[3] <= vh, f"#{bid} not reachable: {r}"
        assert r[1] - r[0] >= 32 and r[3] - r[2] >= 32, f"#{bid} is too small to tap: {r}"
        if opened:
            driver.find_element(By.ID, opened).click()   # closes the menu again

    rect = canvas_rect(driver)
    assert rect["x"] >= 0 and rect["x"] + rect["w"] <= vw, f"canvas wider than the viewport: {rect}"
    assert rect["w"] >= vw - 40, f"canvas does not fill the width: {rect}"
    assert rect["y"] + rect["h"] <= vh, f"canvas runs below the viewport: {rect}"
    assert rect["h"] >= 250, f"canvas too short: {rect}"
    size = driver.execute_script("const c = document.getElementById('canvas'); return [c.width, c.height];")
    assert size == [round(rect["w"] * 2), round(rect["h"] * 2)], "backing store follows devicePixelRatio"

    cx, cy = rect["w"] / 2, rect["h"] / 2
    import math
    circle = [(cx + 70 * math.cos(a / 24 * 2 * math.pi), cy + 70 * math.sin(a / 24 * 2 * math.pi)) for a in range(25)]
    line = [(cx - 40, cy + 100), (cx + 40, cy + 100)]
    draw(driver, [(circle, [i * 20 for i in range(25)]), (line, [600, 700])], rect)
    assert attr_int(driver, "data-stroke-count") == 2
    strokes = driver.execute_script("return window.sketchwise.strokes()")
    assert all(0 <= x <= rect["w"] and 0 <= y <= rect["h"] for s in strokes for x, y in zip(s[0], s[1]))
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses on the phone")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= vw
    save_screenshot(driver, "webapp-phone.png")
    png = data_url_png(driver.execute_script("return window.sketchwise.exportPNGDataURL()"))
    assert png_info(png) == tuple(size)


def test_bad_files_keep_the_drawing(driver, server, tmp_path, download_dir):
    from selenium.webdriver.common.by import By

    open_app(driver, server.base)
    install_probe(driver)
    rect = canvas_rect(driver)
    draw(driver, [([(100, 100), (160, 120), (220, 100)], [0, 50, 100]),
                  ([(100, 140), (220, 140)], [400, 500])], rect)   # near enough to be one object
    assert attr_int(driver, "data-stroke-count") == 2
    before = driver.execute_script("return window.sketchwise.strokes()")
    guesses = wait_for_full_result(driver, 2)["labels"]
    assert guess_labels(driver) == guesses

    bad_files = {
        "not-json.ndjson": "{this is not json\n",
        "no-drawing.ndjson": json.dumps({"word": "cat"}) + "\n",
        "mismatch.ndjson": json.dumps({"word": "cat", "drawing": [[[1, 2, 3], [4, 5]]]}) + "\n",
        "strings.ndjson": json.dumps({"word": "cat", "drawing": [[["a", "b"], [1, 2]]]}) + "\n",
        "huge.ndjson": json.dumps({"word": "cat", "drawing": [[[1, 1e12], [1, 2]]]}) + "\n",
        "empty.ndjson": "\n\n",
    }
    file_input = driver.find_element(By.ID, "load-file")
    for name, text in bad_files.items():
        path = tmp_path / name
        path.write_text(text)
        driver.execute_script("document.getElementById('message').hidden = true")
        file_input.send_keys(str(path))
        msg = wait_for(lambda: driver.execute_script(
            "const m = document.getElementById('message'); const s = document.getElementById('status');"
            "if (!m.hidden && m.dataset.kind === 'error') return m.textContent;"
            "return s.dataset.state === 'error' ? s.textContent : null;"), 5, message=f"an error for {name}")
        assert name in msg or "load" in msg.lower(), msg
        assert driver.find_element(By.ID, "message").is_displayed()
        assert driver.execute_script("return window.sketchwise.strokes()") == before, f"{name} changed the drawing"
        assert attr_int(driver, "data-stroke-count") == 2
    assert guess_labels(driver) == guesses, "the guesses stay"
    save_screenshot(driver, "webapp-bad-file.png")

    # A file of several drawings opens the first and says so.
    several = tmp_path / "several.ndjson"
    several.write_text("".join(json.dumps({"word": "line", "drawing": [[[0, 50 + k], [0, 10]]]}) + "\n" for k in range(7)))
    driver.execute_script("document.getElementById('message').hidden = true")
    file_input.send_keys(str(several))
    wait_for(lambda: attr_int(driver, "data-stroke-count") == 1, 5, message="the first drawing opened")
    said = driver.find_element(By.ID, "message").text
    assert "7 drawings" in said and "only the first" in said, said
    driver.find_element(By.ID, "undo").click()
    assert driver.execute_script("return window.sketchwise.strokes()") == before

    # Save as ndjson, clear, load the file back: the same strokes.
    driver.find_element(By.ID, "save-ndjson").click()
    saved = wait_for_downloads(download_dir, "sketchwise.ndjson")
    lines = [l for l in saved.read_text().splitlines() if l.strip()]
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert set(rec) >= {"word", "countrycode", "timestamp", "recognized", "key_id", "drawing"}
    assert rec["countrycode"] == "" and rec["recognized"] is False and isinstance(rec["key_id"], str)
    assert rec["drawing"] == before
    driver.find_element(By.ID, "clear").click()
    assert attr_int(driver, "data-stroke-count") == 0
    file_input.send_keys(str(saved))
    wait_for(lambda: attr_int(driver, "data-stroke-count") == 2, 5, message="the saved drawing loaded")
    assert driver.execute_script("return window.sketchwise.strokes()") == before
    driver.find_element(By.ID, "undo").click()          # loading is undoable
    assert attr_int(driver, "data-stroke-count") == 0


def test_move_erase_clear(driver, static_base):
    """Client-side editing only, so it runs against the static server."""
    from selenium.webdriver.common.by import By

    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    draw(driver, [([(200, 150), (300, 150)], [0, 100]), ([(200, 165), (300, 165)], [300, 400])], rect)   # one object
    before = driver.execute_script("return window.sketchwise.strokes()")
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    assert len(list(ET.fromstring(svg).iter(f"{SVG_NS}path"))) == 2, "one <path> per stroke"
    driver.find_element(By.ID, "tool-select").click()
    assert driver.find_element(By.ID, "tool-select").get_attribute("aria-pressed") == "true"
    draw(driver, [([(250, 150), (290, 170), (330, 190)], [0, 100, 200])], rect, min_step=1)
    after = driver.execute_script("return window.sketchwise.strokes()")
    assert attr_int(driver, "data-stroke-count") == 2, "moving draws nothing"
    for b, a in zip(before, after):   # the whole sketch group moved by (80, 40)
        assert [x + 80 for x in b[0]] == a[0] and [y + 40 for y in b[1]] == a[1]
    driver.find_element(By.ID, "undo").click()
    assert driver.execute_script("return window.sketchwise.strokes()") == before
    driver.find_element(By.ID, "tool-autodraw").click()
    driver.find_element(By.ID, "erase-last").click()
    assert driver.execute_script("return window.sketchwise.strokes()") == before[:1]
    driver.find_element(By.ID, "clear").click()
    assert attr_int(driver, "data-stroke-count") == 0 and attr_int(driver, "data-picture-count") == 0
    driver.find_element(By.ID, "undo").click()
    assert attr_int(driver, "data-stroke-count") == 1


def test_offline_static_app(driver, static_base):
    """Served by a plain static server (no API): a clear offline status, and drawing, undo and
    export still work. Needs no sketchwise binary and no shared data."""
    from selenium.webdriver.common.by import By

    open_app(driver, static_base, expect_state="offline")
    assert "offline" in driver.find_element(By.ID, "status").text.lower()
    banner = driver.find_element(By.ID, "offline-banner")
    assert banner.is_displayed() and "offline" in banner.text.lower(), "a visible offline banner"
    rect = canvas_rect(driver)
    draw(driver, [([(100, 100), (200, 160), (300, 100)], [0, 100, 200])], rect)
    assert attr_int(driver, "data-stroke-count") == 1
    driver.find_element(By.ID, "undo").click()
    assert attr_int(driver, "data-stroke-count") == 0
    driver.find_element(By.ID, "redo").click()
    assert attr_int(driver, "data-stroke-count") == 1
    size = driver.execute_script("const c = document.getElementById('canvas'); return [c.width, c.height];")
    assert png_info(data_url_png(driver.execute_script("return window.sketchwise.exportPNGDataURL()"))) == tuple(size)
    assert driver.find_element(By.ID, "status").get_attribute("data-state") == "offline"
    assert guess_labels(driver) == []


def test_offline_banner_does_not_move_the_canvas(driver, static_base):
    """The offline banner floats over the canvas, above the strip: when it shows, the canvas keeps
    its place and size (a stroke in progress stays under the pen), and the banner covers neither
    the strip nor a control (issue 37, point 5)."""
    # Every box the canvas has from the first layout on, before the app can say it is offline.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
      document.addEventListener('DOMContentLoaded', () => {
        const c = document.getElementById('canvas'), boxes = window.__canvasBoxes = [];
        const note = () => { const r = c.getBoundingClientRect(); boxes.push([r.left, r.top, r.width, r.height]); };
        note();
        new ResizeObserver(note).observe(c);
        new MutationObserver(note).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['hidden']});
      });
    """})
    open_app(driver, static_base, expect_state="offline")
    assert driver.find_element("id", "offline-banner").is_displayed()
    boxes = driver.execute_script("return window.__canvasBoxes")
    assert len(boxes) >= 2 and all(b == boxes[0] for b in boxes), f"the canvas moved: {boxes}"
    top = driver.execute_script("return document.querySelector('.topbar').getBoundingClientRect().bottom")
    assert boxes[0][1] == top, f"the canvas starts at {boxes[0][1]}, not under the top bar ({top})"
    banner, strip = driver.execute_script(
        "return ['offline-banner', 'assist'].map((id) => { const r = document.getElementById(id).getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })")
    assert banner[3] <= strip[1], f"the banner {banner} runs into the strip {strip}"
    covered = driver.execute_script("""
      const b = document.getElementById('offline-banner').getBoundingClientRect();
      return [...document.querySelectorAll('button, select, input')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top;
      }).map((el) => el.id);""")
    assert covered == [], f"the banner covers {covered}"
    save_screenshot(driver, "webapp-offline-banner.png")


def test_http_fallback_and_reconnect(driver, server):
    """While the WebSocket can't connect, guesses come from POST /api/suggest and the status says
    so; once it can, the app reconnects by itself."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
      (() => {
        const Real = window.WebSocket;
        window.__wsAttempts = 0;
        window.__allowWS = false;
        function Gate(url, protocols) {
          window.__wsAttempts++;
          if (window.__allowWS) return new Real(url, protocols);
          const fake = { readyState: 3, send() {}, close() {} };
          setTimeout(() => { fake.onerror && fake.onerror(new Event('error')); fake.onclose && fake.onclose(new Event('close')); }, 20);
          return fake;
        }
        Gate.CONNECTING = 0; Gate.OPEN = 1; Gate.CLOSING = 2; Gate.CLOSED = 3;
        window.WebSocket = Gate;
      })();
    """})
    open_app(driver, server.base, expect_state="fallback")
    rect = canvas_rect(driver)
    draw(driver, [([(rect["w"] / 2 - 80, rect["h"] / 2), (rect["w"] / 2, rect["h"] / 2 - 80),
                    (rect["w"] / 2 + 80, rect["h"] / 2), (rect["w"] / 2, rect["h"] / 2 + 80),
                    (rect["w"] / 2 - 80, rect["h"] / 2)], [0, 100, 200, 300, 400])], rect)
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses over HTTP")
    posts = driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/suggest')).length")
    assert posts >= 1, "the fallback asks POST /api/suggest"
    assert driver.execute_script("return document.getElementById('status').dataset.state") == "fallback"

    driver.execute_script("window.__allowWS = true; window.dispatchEvent(new Event('online'));")
    wait_for(lambda: driver.execute_script("return document.getElementById('status').dataset.state") == "connected",
             20, message="reconnected")
    # The reconnected socket gets the whole sketch: the next change is answered over it.
    driver.find_element("id", "erase-last").click()
    wait_for(lambda: not guess_labels(driver), 10, message="guesses cleared")
    driver.find_element("id", "undo").click()
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses over the socket")


def test_keys_and_buttons_that_are_advertised_work(driver, static_base):
    """Erase last and Clear are disabled with nothing to erase; Backspace erases the last stroke,
    O turns scene mode on and off (both in the ? list), and after the Pictures menu the single-key
    shortcuts work at once (issue 37, point 5)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    open_app(driver, static_base, expect_state=None)
    erase, clear = driver.find_element("id", "erase-last"), driver.find_element("id", "clear")
    assert not erase.is_enabled() and not clear.is_enabled(), "nothing to erase on an empty canvas"
    draw(driver, [([(200, 150), (300, 150)], [0, 100]), ([(200, 180), (300, 180)], [300, 400])], canvas_rect(driver))
    assert erase.is_enabled() and clear.is_enabled()

    def key(k):
        ActionChains(driver).send_keys(k).perform()

    driver.execute_script("document.activeElement.blur()")
    key("\ue003")   # Backspace
    assert attr_int(driver, "data-stroke-count") == 1
    key("\ue003")
    assert attr_int(driver, "data-stroke-count") == 0
    assert not erase.is_enabled() and not clear.is_enabled()

    scene = driver.find_element("id", "scene-mode")
    key("o")
    assert scene.get_attribute("aria-pressed") == "true"
    key("o")
    assert scene.get_attribute("aria-pressed") == "false"
    listed = driver.find_element("id", "shortcuts").get_attribute("textContent")
    assert "Scene mode" in listed and "erase the last stroke" in listed

    Select(driver.find_element("id", "style")).select_by_value("all")
    key("d")
    assert driver.find_element("id", "tool-draw").get_attribute("aria-pressed") == "true", "keys work right after the menu"
    driver.execute_script("localStorage.removeItem('sketchwise.style')")


def test_a_picture_keeps_its_line_weight_in_colour(driver, static_base):
    """Fill turns an OpenMoji picture to colour: its lines stay as wide as the pen's. They were
    drawn at OpenMoji's own weight, about three times wider, as if another picture had come."""
    open_app(driver, static_base, expect_state=None)
    urls = driver.execute_async_script("""
      const done = arguments[arguments.length - 1];
      import('./canvas.js').then((m) => {
        const o = {type: 'picture', source: 'openmoji', image: '/api/library/x/image', lineWidth: 4, w: 300, h: 200};
        done([m.pictureURL(o), m.pictureURL({...o, colour: true})]);
      });""")
    assert urls == ["/api/library/x/image?weight=0.013", "/api/library/x/image?colour=true&weight=0.013"], urls


@pytest.mark.parametrize("screen", [None, (844, 390), (740, 360)], ids=["desktop", "landscape-phone", "small-landscape-phone"])
def test_fit_leaves_the_drawing_clear_of_the_strip(driver, static_base, screen):
    """Fit (key 0) zooms the drawing into the part of the canvas that the strip floating over it
    leaves clear, not under the strip (issue 37, point 5): below it on a desktop, beside it on a
    phone held sideways, where the strip stands at the side; also once the strip, empty when the
    drawing was fitted, shows its pictures."""
    if screen:
        emulate(driver, *screen)
    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    w, h = rect["w"], rect["h"]
    draw(driver, [([(0.2 * w, 0.1 * h), (0.8 * w, 0.95 * h)], [0, 200]), ([(0.2 * w, 0.95 * h), (0.8 * w, 0.1 * h)], [400, 600])], rect)
    driver.execute_script("document.activeElement.blur()")
    press(driver, "0")
    strip = driver.execute_script("const r = document.getElementById('assist').getBoundingClientRect();"
                                  "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};")
    drawn = driver.execute_script(
        "const o = window.sketchwise.objects()[0]; const a = window.sketchwise.clientPoint(o.x, o.y);"
        "const b = window.sketchwise.clientPoint(o.x + o.w, o.y + o.h); return {left: a.x, top: a.y, right: b.x, bottom: b.y};")
    assert not intersection(drawn, strip), f"the drawing spans {drawn}, the strip {strip} (px)"
    if screen:
        assert strip["left"] > rect["x"] + rect["w"] / 2 and drawn["bottom"] - drawn["top"] > rect["h"] / 2, (strip, drawn)
    # Fitted while the strip was empty, the drawing stays clear of it once its pictures come (on a
    # phone held sideways they make a column as tall as the strip may grow).
    full = driver.execute_script("""
      const strip = document.getElementById('assist'), row = document.getElementById('suggestions');
      for (let i = 0; i < 24; i++) { const b = document.createElement('button'); b.type = 'button'; row.append(b); }
      strip.dataset.empty = 'false';
      const r = strip.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};""")
    assert not intersection(drawn, full), f"the drawing spans {drawn}, the strip with its pictures {full} (px)"


def test_a_stroke_that_starts_on_a_card_over_the_canvas_is_drawn(driver, server):
    """The strip floats over the top of the canvas and the first-run hint over its bottom. A stroke
    that starts on a card's background (its text, the room between chips) reaches the canvas under
    it; the cards' controls still take the pointer."""
    open_app(driver, server.base)
    driver.execute_script("localStorage.removeItem('sketchwise.firstRunDone')")
    open_app(driver, server.base)
    rect = canvas_rect(driver)
    w, h = rect["w"], rect["h"]
    draw(driver, [([(0.3 * w, 0.6 * h), (0.7 * w, 0.55 * h)], [0, 200])], rect)
    wait_for(lambda: guess_labels(driver) or None, 60, message="guesses for a first stroke")
    wait_for(lambda: driver.find_element("id", "first-run").is_displayed(), 30, message="the first-run hint for a new visitor")
    centre_and_hit = ("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                      "const x = r.left + r.width / 2, y = r.top + r.height / 2;"
                      "const e = document.elementFromPoint(x, y); return {x, y, hit: e.id, control: e.closest('button') !== null};")
    for k, (card, control) in enumerate((("#assist-title", "#guesses button"), ("#first-run p", "#first-run-ok")), start=2):
        start = driver.execute_script(centre_and_hit, card)
        assert start["hit"] == "canvas", f"{card} takes the pointer: {start}"
        assert driver.execute_script(centre_and_hit, control)["control"], f"{control} no longer takes the pointer"
        down = (start["x"] - rect["x"], start["y"] - rect["y"])
        draw(driver, [([down, (down[0] + 40, down[1] + (120 if k == 2 else -120))], [0, 300])], rect)
        assert attr_int(driver, "data-stroke-count") == k, f"the stroke that started on {card} was drawn"
        firsts = driver.execute_script("return window.sketchwise.strokes().map((s) => window.sketchwise.clientPoint(s[0][0], s[1][0]))")
        assert any(abs(p["x"] - start["x"]) <= 2 and abs(p["y"] - start["y"]) <= 2 for p in firsts), (card, firsts, start)
    assert driver.execute_script("return document.getElementById('canvas').dataset.gesture") is None, "the cards are opaque again"


def test_picture_style_menu(driver, server, known_drawing):
    """The Pictures menu picks the style of the suggestions (line art by default), asks again for
    the current sketch, and is kept for the next visit; every button's shape follows its picture."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _, record, _ = known_drawing
    driver.get(server.base + "/")
    driver.execute_script("localStorage.removeItem('sketchwise.style')")
    open_app(driver, server.base)
    menu = Select(driver.find_element(By.ID, "style"))
    assert menu.first_selected_option.get_attribute("value") == "line"
    install_probe(driver)
    rect = canvas_rect(driver)
    strokes = fit_drawing(record["drawing"], rect)
    draw(driver, strokes, rect)
    wait_for_full_result(driver, len(strokes))

    def sources():
        found = driver.execute_script("return window.sketchwise.suggestions().map(s => s.source)")
        return set(found) if found else None

    assert wait_for(sources, 30, message="line-art suggestions") <= {"openmoji", "lucide", "tabler", "doodle"}
    shapes = {s["id"]: s["width"] / s["height"] for s in driver.execute_script("return window.sketchwise.suggestions()")}
    for button in driver.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]"):
        shape = button.size["width"] / button.size["height"]
        assert abs(shape - min(2, max(0.5, shapes[button.get_attribute("data-id")]))) < 0.05, (button.get_attribute("data-id"), shape)

    menu.select_by_value("emoji")
    wait_for(lambda: sources() == {"emoji"} or None, 30, message="emoji suggestions after choosing Colour emoji")
    driver.refresh()
    open_app(driver, server.base)
    assert Select(driver.find_element(By.ID, "style")).first_selected_option.get_attribute("value") == "emoji", "kept for the next visit"
    driver.execute_script("localStorage.removeItem('sketchwise.style')")


def test_a_restored_sketch_is_recognised_again(driver, server, known_drawing):
    """After a reload the autosaved sketch is the current one again: its guesses come back without
    another stroke, and a stroke drawn on it joins it."""
    cls, record, _ = known_drawing
    strokes = draw_and_recognise(driver, server.base, record["drawing"])
    before = wait_for(lambda: guess_labels(driver) or None, 30, message="guesses")
    wait_for(lambda: driver.execute_script("return localStorage.getItem('sketchwise.document')"), 5, message="autosave")
    driver.refresh()
    open_app(driver, server.base)
    assert len(driver.execute_script("return window.sketchwise.currentSketch()")) == len(strokes)
    after = wait_for(lambda: guess_labels(driver) or None, 30, message="guesses for the restored sketch")
    assert cls in after[:5], (before, after)
    save_screenshot(driver, "webapp-restored-guesses.png")
