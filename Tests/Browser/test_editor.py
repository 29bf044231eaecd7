"""Browser tests of the editor (issue 15): selecting, resizing, rotating, deleting and swapping a
placed picture; fill, shapes and text; a window half as wide; reload; .sketchwise.json documents;
the pending, stale, offline and failed-picture states; accessibility with axe-core.

Screenshots go to out/test-artifacts/editor-*.png.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_editor.py
"""

import json
import math
import sys

import pytest

from browser_helpers import (attr_int, canvas_rect, click_at, client, drag, draw, element_centre, fit_drawing, guess_labels,
                             ink_pixels, install_probe, open_app, press, save_screenshot, wait_for, wait_for_downloads,
                             wait_for_full_result)
from conftest import skip_module_without_browser

skip_module_without_browser()


# ---- helpers ---------------------------------------------------------------------------------


def document(objects):
    """A .sketchwise.json text holding `objects`."""
    return json.dumps({"format": "sketchwise", "version": 1, "camera": {"x": 0, "y": 0, "zoom": 1}, "objects": objects})


def picture_object(s, alternatives, x, y, side=200, sketch=None):
    aspect = s["width"] / s["height"]
    w, h = (side, side / aspect) if aspect >= 1 else (side * aspect, side)
    return {"type": "picture", "x": x, "y": y, "w": w, "h": h, "rotation": 0, "libraryId": s["id"], "source": s["source"],
            "label": s["label"], "title": s["title"], "image": s["image"], "thumbnail": s["thumbnail"], "aspect": aspect,
            "colour": False, "sketch": sketch, "alternatives": alternatives}


def shape_object(shape, x, y, w, h, color="#1f2937", fill=None):
    return {"type": "shape", "shape": shape, "x": x, "y": y, "w": w, "h": h, "rotation": 0, "color": color, "width": 4,
            "fill": fill, "rising": False}


def sketch_object(strokes, color="#1f2937", width=4):
    xs = [v for s in strokes for v in s[0]]
    ys = [v for s in strokes for v in s[1]]
    box = {"x": min(xs) - width / 2, "y": min(ys) - width / 2, "w": max(xs) - min(xs) + width, "h": max(ys) - min(ys) + width}
    return {"type": "sketch", **box, "rotation": 0, "natural": box, "recognize": True, "fill": None,
            "strokes": [{"color": color, "width": width, "x": s[0], "y": s[1], "t": s[2]} for s in strokes]}


def open_document(driver, text, name="test.sketchwise.json"):
    result = driver.execute_script("return window.sketchwise.openText(arguments[0], arguments[1])", text, name)
    assert result["ok"], result
    driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.picturesReady().then(() => done(true));")
    return result


def objects(driver):
    return driver.execute_script("return window.sketchwise.objects()")


def ink_at(driver, o):
    """Non-white pixels of the canvas over object o's box (document coordinates), once painted."""
    driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.picturesReady().then(() => done(true));")
    r = canvas_rect(driver)
    (x0, y0), (x1, y1) = client(driver, o["x"], o["y"]), client(driver, o["x"] + o["w"], o["y"] + o["h"])
    return ink_pixels(driver, {"x": x0 - r["x"], "y": y0 - r["y"], "w": x1 - x0, "h": y1 - y0})


def pixel(driver, x, y):
    """RGB of the on-screen canvas at document point (x, y)."""
    return driver.execute_script("""
      const c = document.getElementById('canvas'), r = c.getBoundingClientRect(), k = c.width / r.width;
      const p = window.sketchwise.clientPoint(arguments[0], arguments[1]);
      return [...c.getContext('2d').getImageData(Math.round((p.x - r.left) * k), Math.round((p.y - r.top) * k), 1, 1).data].slice(0, 3);
    """, x, y)


@pytest.fixture(scope="module")
def offered(server, known_drawing):
    """Real line-art suggestions for a real drawing (at least two pictures), from the API."""
    _, record, _ = known_drawing
    status, body, _, _ = server.post_json("/api/suggest", {"strokes": record["drawing"], "style": "line", "labels": 5})
    assert status == 200, body
    suggestions = body["suggestions"]
    assert len(suggestions) >= 2, suggestions
    return record, suggestions


# ---- tests -----------------------------------------------------------------------------------


def test_select_resize_rotate_delete_a_placed_picture(driver, server, offered):
    from selenium.webdriver.common.by import By

    record, suggestions = offered
    open_app(driver, server.base)
    open_document(driver, document([picture_object(suggestions[0], suggestions, 300, 220)]))
    start = objects(driver)[0]
    driver.find_element(By.ID, "tool-select").click()
    click_at(driver, client(driver, start["x"] + start["w"] / 2, start["y"] + start["h"] / 2))
    assert driver.execute_script("return window.sketchwise.selected()") == start["id"]
    assert driver.find_element(By.ID, "selection").is_displayed() and driver.find_element(By.ID, "object-bar").is_displayed()
    # The press on the drawing took the keyboard from the tool's button: Enter opens the pictures.
    assert driver.execute_script("return document.activeElement === document.body")
    press(driver, "ENTER")
    wait_for(lambda: driver.execute_script("return document.getElementById('assist-title').textContent") == "Other pictures", 5,
             message="Enter opens the selected picture's others")
    # The palette recolours sketches, shapes and text; a picture keeps its colours, and says so.
    driver.find_element(By.CSS_SELECTOR, '#palette button[data-color="#dc2626"]').click()
    assert "keeps its own colours" in driver.find_element(By.ID, "message").text
    assert objects(driver)[0] == start, "the picture is unchanged"

    # Resize from the south-east corner: the north-west corner stays, the aspect is kept.
    se = element_centre(driver, '#selection .handle[data-handle="se"]')
    drag(driver, se, (se[0] + 90, se[1] + 40))
    resized = objects(driver)[0]
    assert resized["w"] > start["w"] * 1.3, (start, resized)
    assert abs(resized["w"] / resized["h"] - start["w"] / start["h"]) < 0.01, "a picture keeps its aspect"
    assert abs(resized["x"] - start["x"]) < 1 and abs(resized["y"] - start["y"]) < 1, "the opposite corner stays put"

    # Rotate: the handle above the picture dragged to its right turns it by 90°.
    centre = client(driver, resized["x"] + resized["w"] / 2, resized["y"] + resized["h"] / 2)
    handle = element_centre(driver, '#selection .handle[data-handle="rotate"]')
    drag(driver, handle, (centre[0] + 200, centre[1]), steps=12)
    rotated = objects(driver)[0]
    assert abs(rotated["rotation"] - 90) < 1, rotated["rotation"]
    assert abs(rotated["w"] - resized["w"]) < 0.5, "rotating keeps the size"
    # The rotated picture is drawn rotated: ink where the rotated box is.
    driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.picturesReady().then(() => done(true));")
    save_screenshot(driver, "editor-select-resize-rotate.png")

    # Move it by dragging, duplicate it, send the copy back, then delete with the key.
    body_centre = client(driver, rotated["x"] + rotated["w"] / 2, rotated["y"] + rotated["h"] / 2)
    drag(driver, body_centre, (body_centre[0] - 60, body_centre[1] + 30))
    moved = objects(driver)[0]
    assert abs(moved["x"] - (rotated["x"] - 60)) < 1.5 and abs(moved["y"] - (rotated["y"] + 30)) < 1.5
    driver.find_element(By.ID, "object-duplicate").click()
    assert attr_int(driver, "data-picture-count") == 2
    copy_id = driver.execute_script("return window.sketchwise.selected()")
    assert objects(driver)[-1]["id"] == copy_id
    driver.find_element(By.ID, "object-back").click()
    assert objects(driver)[0]["id"] == copy_id, "sent back one step"
    press(driver, "DELETE")
    assert attr_int(driver, "data-picture-count") == 1
    driver.execute_script("window.sketchwise.select(arguments[0])", moved["id"])
    press(driver, "BACKSPACE")
    assert attr_int(driver, "data-picture-count") == 0 and not driver.find_element(By.ID, "selection").is_displayed()
    press(driver, "CONTROL", "z")
    assert attr_int(driver, "data-picture-count") == 1


def test_swap_a_placed_picture_for_another(driver, server, offered):
    from selenium.webdriver.common.by import By

    record, suggestions = offered
    open_app(driver, server.base)
    open_document(driver, document([picture_object(suggestions[0], suggestions, 320, 200)]))
    before = objects(driver)[0]
    driver.execute_script("window.sketchwise.select(arguments[0])", before["id"])
    driver.find_element(By.ID, "object-suggest").click()
    assert driver.find_element(By.ID, "assist-title").text.lower() == "other pictures"
    ids = [b.get_attribute("data-id") for b in driver.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]")]
    assert ids == [s["id"] for s in suggestions]
    current = driver.find_element(By.CSS_SELECTOR, '#suggestions button[aria-current="true"]')
    assert current.get_attribute("data-id") == suggestions[0]["id"]
    # Alt texts read "label — style: title", line art naming its set (three sets draw a cat).
    alt = current.find_element(By.TAG_NAME, "img").get_attribute("alt")
    first = suggestions[0]
    sets = {"openmoji": "OpenMoji", "lucide": "Lucide", "tabler": "Tabler"}
    assert alt == f'{first["label"]} — line art from {sets[first["source"]]}: {first["title"]}', alt

    other = suggestions[1]
    driver.find_element(By.CSS_SELECTOR, f'#suggestions button[data-id="{other["id"]}"]').click()
    wait_for(lambda: objects(driver)[0]["libraryId"] == other["id"], 10, message="the picture swapped")
    after = objects(driver)[0]
    assert abs(after["x"] + after["w"] / 2 - (before["x"] + before["w"] / 2)) < 1, "the new picture takes the old one's place"
    assert abs(after["y"] + after["h"] / 2 - (before["y"] + before["h"] / 2)) < 1
    assert driver.execute_script("return document.activeElement.dataset.id") == other["id"], "focus stays on the button used"
    assert driver.find_element(By.CSS_SELECTOR, '#suggestions button[aria-current="true"]').get_attribute("data-id") == other["id"]
    assert ink_at(driver, after) > 50
    save_screenshot(driver, "editor-swap-placed-picture.png")
    press(driver, "CONTROL", "z")
    assert objects(driver)[0]["libraryId"] == suggestions[0]["id"], "the swap is undoable"


def test_fill_shapes_and_text(driver, static_base):
    from selenium.webdriver.common.by import By

    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    driver.find_element(By.ID, "tool-shape").click()
    made = {}
    for kind, (x, y, w, h) in {"rectangle": (120, 220, 180, 110), "ellipse": (360, 220, 150, 110),
                               "triangle": (560, 220, 140, 120), "line": (760, 220, 150, 100)}.items():
        driver.find_element(By.CSS_SELECTOR, f'#shape-kinds button[data-shape="{kind}"]').click()
        drag(driver, (rect["x"] + x, rect["y"] + y), (rect["x"] + x + w, rect["y"] + y + h))
        made[kind] = objects(driver)[-1]
        assert made[kind]["type"] == "shape" and made[kind]["shape"] == kind
        assert abs(made[kind]["w"] - w) <= 2 and abs(made[kind]["h"] - h) <= 2, made[kind]

    # Fill: pick red from the palette, then click inside the rectangle and the ellipse.
    driver.find_element(By.CSS_SELECTOR, '#palette button[data-color="#dc2626"]').click()
    driver.find_element(By.ID, "tool-fill").click()
    for kind in ("rectangle", "ellipse"):
        o = made[kind]
        click_at(driver, client(driver, o["x"] + o["w"] / 2, o["y"] + o["h"] / 2))
    shapes = {o["shape"]: o for o in objects(driver) if o["type"] == "shape"}
    assert shapes["rectangle"]["fill"] == "#dc2626" and shapes["ellipse"]["fill"] == "#dc2626" and shapes["triangle"]["fill"] is None
    r = shapes["rectangle"]
    assert pixel(driver, r["x"] + r["w"] / 2, r["y"] + r["h"] / 2) == [220, 38, 38], "the rectangle is drawn filled"

    # A closed stroke drawn with plain Draw (no guesses) fills too; an open one can't.
    driver.find_element(By.ID, "tool-draw").click()
    cx, cy = 260, 480
    ring = [(cx + 60 * math.cos(a / 20 * 2 * math.pi), cy + 60 * math.sin(a / 20 * 2 * math.pi)) for a in range(21)]
    draw(driver, [(ring, [i * 15 for i in range(21)])], rect, min_step=1)
    sketch = objects(driver)[-1]
    assert sketch["type"] == "sketch" and sketch["recognize"] is False, "plain Draw strokes are not recognised"
    assert driver.execute_script("return window.sketchwise.currentSketch().length") == 0
    driver.find_element(By.CSS_SELECTOR, '#palette button[data-color="#2563eb"]').click()
    driver.find_element(By.ID, "tool-fill").click()
    click_at(driver, client(driver, cx, cy))
    assert objects(driver)[-1]["fill"] == "#2563eb"
    assert pixel(driver, cx, cy) == [37, 99, 235], "the closed stroke is filled"

    # Text: click, type, Enter.
    driver.find_element(By.ID, "tool-text").click()
    click_at(driver, (rect["x"] + 480, rect["y"] + 440))
    editor = driver.find_element(By.ID, "text-editor")
    assert editor.is_displayed()
    editor.send_keys("Hello, sketch")
    press(driver, "ENTER")
    text = objects(driver)[-1]
    assert text["type"] == "text" and text["text"] == "Hello, sketch" and text["color"] == "#2563eb"
    assert ink_at(driver, text) > 30, "the text is drawn"
    save_screenshot(driver, "editor-fill-shapes-text.png")

    # Everything is in the SVG export.
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    for tag in ("<rect x", "<ellipse", "<polygon", "<line", "<text", 'fill="#dc2626"', 'fill="#2563eb"'):
        assert tag in svg, tag


def test_a_window_half_as_wide_keeps_the_whole_drawing_visible(driver, static_base):
    """Narrowed, the view zooms out to keep every object in it; widened again, it comes back."""
    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    spread = [shape_object("rectangle", 30, 120, 160, 120), shape_object("ellipse", rect["w"] - 220, 160, 180, 140),
              shape_object("triangle", rect["w"] / 2 - 60, rect["h"] - 200, 120, 150)]
    open_document(driver, document(spread))
    save_screenshot(driver, "editor-full-width.png")
    own = driver.execute_script("return window.sketchwise.camera()")
    size = driver.get_window_size()
    driver.set_window_size(640, 900)
    wait_for(lambda: canvas_rect(driver)["w"] < rect["w"] * 0.6, 5, message="the canvas narrower")
    wait_for(lambda: driver.execute_script("return window.sketchwise.camera().zoom") < 0.99, 5, message="the view zoomed out")
    narrow = canvas_rect(driver)
    for o in objects(driver):
        for x, y in ((o["x"], o["y"]), (o["x"] + o["w"], o["y"] + o["h"])):
            cx, cy = client(driver, x, y)
            assert narrow["x"] <= cx <= narrow["x"] + narrow["w"] and narrow["y"] <= cy <= narrow["y"] + narrow["h"], (o, cx, cy, narrow)
    save_screenshot(driver, "editor-half-width.png")
    # As wide as before: the view the person had comes back (not the zoomed-out one).
    driver.set_window_size(size["width"], size["height"])
    wait_for(lambda: driver.execute_script("return window.sketchwise.camera()") == own, 5, message="the view from before")


def test_reload_restores_the_drawing(driver, static_base):
    from selenium.webdriver.common.by import By

    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    draw(driver, [([(150, 150), (250, 200), (350, 150)], [0, 100, 200])], rect)
    driver.find_element(By.ID, "tool-shape").click()
    drag(driver, (rect["x"] + 420, rect["y"] + 300), (rect["x"] + 560, rect["y"] + 400))
    driver.find_element(By.ID, "tool-text").click()
    click_at(driver, (rect["x"] + 150, rect["y"] + 320))
    driver.find_element(By.ID, "text-editor").send_keys("kept")
    press(driver, "ENTER")
    before = objects(driver)
    strokes = driver.execute_script("return window.sketchwise.strokes()")
    assert [o["type"] for o in before] == ["sketch", "shape", "text"]
    wait_for(lambda: driver.execute_script("return localStorage.getItem('sketchwise.document')"), 5, message="autosave")
    driver.refresh()
    open_app(driver, static_base, expect_state=None)
    assert objects(driver) == before, "the same objects after a reload"
    assert driver.execute_script("return window.sketchwise.strokes()") == strokes
    save_screenshot(driver, "editor-reloaded.png")
    # A broken autosave is set aside with a message, not lost, and the app starts empty.
    driver.execute_script("localStorage.setItem('sketchwise.document', '{\"format\": \"sketchwise\", \"version\": 99}')")
    driver.refresh()
    wait_for(lambda: driver.execute_script("return !!window.sketchwise"), 15, message="window.sketchwise")
    assert objects(driver) == []
    assert "could not be restored" in driver.find_element(By.ID, "message").text
    assert driver.execute_script("return localStorage.getItem('sketchwise.document.unreadable')")


def test_save_and_open_a_document_with_pictures(driver, server, offered, tmp_path, download_dir):
    from selenium.webdriver.common.by import By

    record, suggestions = offered
    open_app(driver, server.base)
    strokes = [[[x + 500 for x in s[0]], [y + 300 for y in s[1]], s[2]] for s in record["drawing"]]
    text = document([picture_object(suggestions[0], suggestions, 120, 160, sketch=None),
                     sketch_object(strokes), shape_object("ellipse", 200, 420, 120, 80, fill="#16a34a"),
                     {"type": "text", "x": 420, "y": 120, "w": 90, "h": 34, "rotation": 15, "text": "cat", "color": "#7c3aed", "size": 28}])
    open_document(driver, text)
    driver.execute_script("window.sketchwise.select(1)")
    driver.find_element(By.ID, "tool-select").click()
    before = objects(driver)
    assert [o["type"] for o in before] == ["picture", "sketch", "shape", "text"]

    driver.find_element(By.ID, "save-document").click()
    saved = wait_for_downloads(download_dir, "drawing.sketchwise.json")
    doc = json.loads(saved.read_text())
    assert doc["format"] == "sketchwise" and doc["version"] == 1 and len(doc["objects"]) == 4
    assert doc["objects"][0]["libraryId"] == suggestions[0]["id"] and doc["objects"][0]["alternatives"]
    assert doc["objects"][1]["strokes"][0]["t"] == record["drawing"][0][2], "strokes keep their times"

    driver.find_element(By.ID, "clear").click()
    assert objects(driver) == []
    driver.find_element(By.ID, "load-file").send_keys(str(saved))
    wait_for(lambda: len(objects(driver)) == 4, 5, message="the document opened")
    assert objects(driver) == before
    assert ink_at(driver, objects(driver)[0]) > 50, "the picture is drawn"
    save_screenshot(driver, "editor-document-opened.png")

    # Bad documents change nothing and say what is wrong.
    bad = {
        "future.sketchwise.json": (json.dumps({"format": "sketchwise", "version": 2, "objects": []}), "version 2"),
        "colour.sketchwise.json": (document([shape_object("rectangle", 0, 0, 10, 10, color="red")]), "objects[0].color"),
        "script.sketchwise.json": (document([{**picture_object(suggestions[0], None, 0, 0), "image": "javascript:alert(1)"}]),
                                   "objects[0].image"),
        "nan.sketchwise.json": (document([shape_object("ellipse", 0, 0, 10, 10)]).replace('"w": 10', '"w": 1e400'), "objects[0].w"),
    }
    for name, (content, expected) in bad.items():
        path = tmp_path / name
        path.write_text(content)
        driver.execute_script("document.getElementById('message').hidden = true")
        driver.find_element(By.ID, "load-file").send_keys(str(path))
        msg = wait_for(lambda: driver.execute_script("const m = document.getElementById('message'); "
                                                     "return m.hidden ? null : m.textContent"), 5, message=name)
        assert name in msg and expected in msg and "Nothing was changed" in msg, msg
        assert objects(driver) == before

    # A drawing beyond the recognition limit: one clear message, and Save/Open take it back.
    many = [[[10 * (i % 30), 10 * (i % 30) + 5], [10 * (i // 30), 10 * (i // 30) + 5], [i * 10, i * 10 + 5]] for i in range(300)]
    result = driver.execute_script("return window.sketchwise.loadNdjsonText(arguments[0], 'many.ndjson')",
                                   json.dumps({"word": "", "drawing": many}))
    assert result["ok"] and result["strokes"] == 300
    msg = wait_for(lambda: driver.execute_script("const m = document.getElementById('message'); "
                                                 "return m.textContent.includes('256') ? m.textContent : null"),
                   5, message="the limit message")
    # Said from the limits GET /api/limits gives ("256 strokes"), or, from a server without that
    # route, from its refusal ("300 strokes; at most 256 are accepted").
    assert "Guesses stop" in msg and ("256 strokes" in msg or "at most 256" in msg), msg
    again = driver.execute_script("return window.sketchwise.openText(window.sketchwise.documentText(), 'again.sketchwise.json')")
    assert again["ok"] and again["strokes"] == 300, "what the app saves, it opens"
    nd = driver.execute_script("return window.sketchwise.loadNdjsonText(window.sketchwise.ndjson(), 'again.ndjson')")
    assert nd["ok"] and nd["strokes"] == 300


DELAY_SOCKET = """
  (() => {
    const Real = window.WebSocket;
    window.__delay = 1500;
    window.WebSocket = function (url, protocols) {
      const ws = new Real(url, protocols);
      const wrapper = new Proxy(ws, {
        set(target, key, value) {
          if (key === 'onmessage') { target.onmessage = (e) => setTimeout(() => value(e), window.__delay); return true; }
          target[key] = value; return true;
        },
        get(target, key) { const v = target[key]; return typeof v === 'function' ? v.bind(target) : v; },
      });
      return wrapper;
    };
    Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  })();
"""


def test_pending_stale_and_failed_picture_states(driver, server, known_drawing):
    from selenium.webdriver.common.by import By

    cls, record, _ = known_drawing
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": DELAY_SOCKET})
    open_app(driver, server.base)
    install_probe(driver)
    rect = canvas_rect(driver)
    strokes = fit_drawing(record["drawing"], rect)
    draw(driver, strokes[:-1], rect)
    assist = driver.find_element(By.ID, "assist")
    wait_for(lambda: assist.get_attribute("data-pending") == "true", 5, message="the pending state")
    assert "Guessing" in driver.find_element(By.ID, "assist-note").text
    save_screenshot(driver, "editor-pending.png")
    wait_for_full_result(driver, len(strokes) - 1)
    wait_for(lambda: assist.get_attribute("data-pending") == "false" and guess_labels(driver), 10, message="the answer")

    # One more stroke: the pictures shown are stale until the new answer, and can't be picked.
    draw(driver, strokes[-1:], rect)
    wait_for(lambda: assist.get_attribute("data-stale") == "true", 5, message="stale pictures")
    button = driver.find_element(By.CSS_SELECTOR, "#suggestions button[data-id]")
    assert button.get_attribute("aria-disabled") == "true"
    save_screenshot(driver, "editor-stale.png")
    button.click()
    assert attr_int(driver, "data-picture-count") == 0, "a stale picture is not swapped in"
    wait_for_full_result(driver, len(strokes))
    wait_for(lambda: assist.get_attribute("data-stale") == "false", 10, message="fresh pictures")

    # Undo and redo within one message's time: the sketch is back to the one answered, so its
    # pictures are fresh and pickable again at once (no new answer will come).
    driver.execute_script("window.sketchwise.undo(); window.sketchwise.redo();")
    wait_for(lambda: assist.get_attribute("data-stale") == "false", 5, message="fresh pictures after undo and redo")
    assert driver.find_element(By.CSS_SELECTOR, "#suggestions button[data-id]").get_attribute("aria-disabled") == "false"

    # A picture that can't be loaded is never swapped in.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/image"]})
    first = driver.find_element(By.CSS_SELECTOR, "#suggestions button[data-id]")
    first.click()
    msg = wait_for(lambda: driver.execute_script("const m = document.getElementById('message'); "
                                                 "return m.hidden ? null : m.textContent"), 10, message="a failure message")
    assert "could not be loaded" in msg, msg
    assert attr_int(driver, "data-picture-count") == 0 and attr_int(driver, "data-stroke-count") == len(strokes)
    save_screenshot(driver, "editor-picture-failed.png")
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


def test_offline_state(driver, static_base):
    from selenium.webdriver.common.by import By

    open_app(driver, static_base, expect_state="offline")
    assert driver.find_element(By.ID, "offline-banner").is_displayed()
    save_screenshot(driver, "editor-offline.png")


def test_accessibility(driver, server, known_drawing, axe_source):
    """axe-core's WCAG 2 A/AA rules (contrast, names, roles) on the empty app, with guesses shown,
    and with a picture selected; every control shows its focus; the shortcut sheet opens with ?."""
    from selenium.webdriver.common.by import By

    _, record, _ = known_drawing
    open_app(driver, server.base)

    def violations(stage):
        driver.execute_script(axe_source)
        result = driver.execute_async_script("""
          const done = arguments[arguments.length - 1];
          axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
            .then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact,
                                                        nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5)}))))
            .catch((e) => done([{id: 'axe failed', impact: String(e), nodes: []}]));
        """)
        print(f"\n[axe] {stage}: {len(result)} violations {result}", file=sys.stderr)
        return result

    assert violations("empty app") == []
    install_probe(driver)
    rect = canvas_rect(driver)
    strokes = fit_drawing(record["drawing"], rect)
    draw(driver, strokes, rect)
    wait_for_full_result(driver, len(strokes))
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]"), 10, message="pictures")
    assert violations("guesses and pictures") == []
    driver.find_element(By.CSS_SELECTOR, "#suggestions button[data-id]").click()
    wait_for(lambda: attr_int(driver, "data-picture-count") == 1, 10, message="the swap")
    driver.find_element(By.ID, "tool-select").click()
    driver.execute_script("window.sketchwise.select(window.sketchwise.objects()[0].id)")
    assert violations("a picture selected") == []

    # Every control shows its focus when reached with the keyboard.
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.common.action_chains import ActionChains
    driver.execute_script("document.activeElement.blur()")
    seen = set()
    for _ in range(200):
        if {"tool-select", "undo", "#dc2626", "style", "zoom-in", "help"} <= seen:
            break
        ActionChains(driver).send_keys(Keys.TAB).perform()
        el = driver.switch_to.active_element
        key = el.get_attribute("id") or el.get_attribute("data-color") or el.get_attribute("data-id") or el.tag_name
        if key in seen or key == "body":   # past the last control, focus returns to the page
            continue
        seen.add(key)
        ring = driver.execute_script("""
          const e = document.activeElement, s = getComputedStyle(e), p = e.closest('.swatch');
          const own = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
          const parent = p && getComputedStyle(p).outlineStyle !== 'none';
          return own || parent || s.boxShadow !== 'none';
        """)
        assert ring, f"no visible focus on {key}"
    assert {"tool-select", "undo", "#dc2626", "style", "zoom-in", "help"} <= seen, " ".join(sorted(seen))

    press(driver, "?")
    assert driver.find_element(By.ID, "shortcuts").is_displayed()
    save_screenshot(driver, "editor-shortcuts.png")
    press(driver, "ESCAPE")
    assert not driver.find_element(By.ID, "shortcuts").is_displayed()


def test_svg_export_keeps_each_pictures_styles_and_ids_to_itself(driver, server, offered):
    """Two line pictures of different sizes and a sketch, exported as SVG and drawn by the browser
    from the file: each picture keeps its own line weight (its style sheet reaches only it), the
    sketch its pen width, and no id is used twice."""
    import xml.etree.ElementTree as ET

    record, suggestions = offered
    open_app(driver, server.base)
    strokes = [[[x + 500 for x in s[0]], [y + 300 for y in s[1]], s[2]] for s in record["drawing"]]
    pictures = [picture_object(suggestions[0], suggestions, 40, 40, side=120),
                picture_object(suggestions[1], suggestions, 200, 40, side=320)]
    for picture in pictures:
        picture["lineWidth"] = 6   # drawn with the pen's width, as a picked line picture is
    open_document(driver, document([*pictures, sketch_object(strokes, width=6)]))
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids)), ids
    nested = root.findall(f"{ns}g/{ns}svg")
    assert len(nested) == 2
    rules = {}
    for picture in nested:
        (style,) = [e.text for e in picture.iter(f"{ns}style")]
        assert style.startswith(f"#{picture.get('id')} "), style
        rules[picture.get("id")] = float(style.split("stroke-width:")[1].split("px")[0])
    assert len(set(rules.values())) == 2, f"two sizes, two line weights: {rules}"
    # The file drawn by the browser, inline in the page (where a style sheet is the whole page's).
    drawn = driver.execute_script("""
      const holder = document.createElement('div');
      holder.style.cssText = 'position: fixed; left: -5000px; top: 0';
      holder.innerHTML = arguments[0];
      document.body.append(holder);
      const outer = holder.querySelector('svg');
      const width = (e) => parseFloat(getComputedStyle(e).strokeWidth);
      const sketch = [...outer.querySelectorAll(':scope > g > path')].map(width);
      const pictures = Object.fromEntries([...outer.querySelectorAll('svg svg')].map((s) =>
        [s.id, [...new Set([...s.querySelectorAll('path, line, polyline, circle, rect, ellipse, polygon')].map(width))]]));
      holder.remove();
      return {sketch, pictures};
    """, svg)
    assert drawn["sketch"] and set(drawn["sketch"]) == {6}, drawn["sketch"]
    for picture, weight in rules.items():
        assert drawn["pictures"][picture] == [pytest.approx(weight, abs=1e-3)], (picture, weight, drawn["pictures"][picture])
