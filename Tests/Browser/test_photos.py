"""Photos (issue 20): a photo dropped on the canvas, or picked, shows the pictures of what it shows
in the strip and stays as a dimmed layer to trace over; POST /api/photo over real HTTP.

The photos are scikit-image's samples chelsea.png (a cat) and coffee.png (a cup of coffee), both
CC0: $SKETCHWISE_TEST_PHOTOS, else /usr/local/share/sketchwise/test-photos/scikit-image (where
scripts/install-deps.sh --test unpacks them, as for the Swift tests' SamplePhotos), else an
installed scikit-image (the default python3's, or Debian's python3-skimage). Without the photo
model (scripts/fetch-photo-model.sh) the server answers 404 and the tests that need its answers
are skipped, saying so.

Screenshots go to out/test-artifacts/photos-*.png.

Run:  SKETCHWISE_TEST_DATA_DIR=out/test-server /usr/bin/python3 -m pytest -q -rs Tests/Browser/test_photos.py
"""

import base64
import http.client
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from browser_helpers import (attr_int, click_at, client, data_url_png, drag, element_centre, ink_pixels, open_app, png_info, press,
                             save_screenshot, wait_for)
from conftest import REPO, new_driver, quit_driver

DIMMED = 0.35
CUPS = {"cup", "coffee cup", "mug"}   # imagenet-classes.tsv: coffee mug → mug, espresso → coffee cup, cup → cup


# ---- samples and fixtures --------------------------------------------------------------------


TEST_PHOTOS = Path(os.environ.get("SKETCHWISE_TEST_PHOTOS", "/usr/local/share/sketchwise/test-photos/scikit-image"))


def sample_folder():
    """A folder with scikit-image's sample photos (see above), or None."""
    if (TEST_PHOTOS / "chelsea.png").exists():
        return TEST_PHOTOS
    probe = ("import importlib.util as u, os; s = u.find_spec('skimage'); "
             "print(os.path.join(os.path.dirname(s.origin), 'data') if s else '')")
    for python in dict.fromkeys(filter(None, [shutil.which("python3"), sys.executable, "/usr/bin/python3"])):
        out = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.strip()
        if out and (Path(out) / "chelsea.png").exists():
            return Path(out)
    return None


@pytest.fixture(scope="module")
def samples():
    folder = sample_folder()
    if not folder:
        pytest.skip(f"scikit-image's sample photos not found at {TEST_PHOTOS} (scripts/install-deps.sh --test installs them)")
    return folder


@pytest.fixture(scope="module")
def cat_reply(server, samples):
    """POST /api/photo's (status, answer) for chelsea.png."""
    return post_photo(server, (samples / "chelsea.png").read_bytes())


@pytest.fixture(scope="module")
def cat_answer(cat_reply):
    """POST /api/photo's answer for chelsea.png; skips the test when the server has no photo model."""
    status, body = cat_reply
    if status == 404:
        assert body["error"]["code"] and "photos are not available" in body["error"]["message"], body
        pytest.skip(f"the server has no photo model: {body['error']['message']}")
    assert status == 200, body
    return body


@pytest.fixture(scope="module")
def browser(browser_available, tmp_path_factory):
    """One Chromium for the module's browser tests."""
    drv = new_driver(tmp_path_factory.mktemp("photo-downloads"))
    yield drv
    quit_driver(drv)


def post_photo(server, data, content_type="image/png", query="labels=4&perLabel=6&style=line"):
    status, _, raw = server.request("POST", f"/api/photo?{query}", body=data, headers={"Content-Type": content_type})
    return status, json.loads(raw) if raw else None


def png_header(width, height):
    """The start of a PNG declaring width × height pixels (signature and IHDR, no image data)."""
    ihdr = b"IHDR" + struct.pack("!IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack("!I", 13) + ihdr + struct.pack("!I", zlib.crc32(ihdr) & 0xFFFFFFFF)


# ---- the app ---------------------------------------------------------------------------------


def fresh_app(driver, server):
    """The app on an empty canvas (the autosave of an earlier test cleared)."""
    driver.get(server.base + "/")
    driver.execute_script("localStorage.clear()")
    open_app(driver, server.base)


def drop(driver, data, name, media_type, padding=0):
    """A real drop of a file (data, then `padding` zero bytes) on the canvas: dragenter, dragover,
    drop with a DataTransfer. Returns whether the stage showed it was a drop target meanwhile."""
    return driver.execute_script("""
      const [b64, name, type, padding] = arguments;
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const files = new DataTransfer();
      files.items.add(new File([bytes, new Uint8Array(padding)], name, {type}));
      const canvas = document.getElementById('canvas'), r = canvas.getBoundingClientRect();
      const at = {bubbles: true, cancelable: true, dataTransfer: files, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2};
      canvas.dispatchEvent(new DragEvent('dragenter', at));
      canvas.dispatchEvent(new DragEvent('dragover', at));
      const shown = document.getElementById('stage').dataset.dropping === 'true';
      canvas.dispatchEvent(new DragEvent('drop', at));
      return shown;
    """, base64.b64encode(data).decode(), name, media_type, padding)


def photos(driver):
    return driver.execute_script("return window.sketchwise.photos()")


def objects(driver):
    return driver.execute_script("return window.sketchwise.objects().map(({src, ...o}) => o)")


def message(driver):
    return driver.execute_script("const m = document.getElementById('message'); "
                                 "return m.hidden ? '' : m.dataset.kind + ': ' + m.textContent")


def saved_objects(driver):
    """The objects of the autosaved document (once the pending save is written)."""
    driver.execute_script("window.dispatchEvent(new Event('pagehide'))")
    text = driver.execute_script("return localStorage.getItem('sketchwise.document')")
    return json.loads(text)["objects"] if text else []


def image_size(driver, src):
    return driver.execute_async_script("""
      const [src, done] = arguments, img = new Image();
      img.onload = () => done([img.naturalWidth, img.naturalHeight]);
      img.onerror = () => done(null);
      img.src = src;
    """, src)


def check_photo_layer(driver, width, height):
    """The one photo: a JPEG of at most 1024 px, dimmed, at the back, in view, drawn."""
    [p] = photos(driver)
    assert p["src"].startswith("data:image/jpeg;base64,"), p["src"][:40]
    w, h = image_size(driver, p["src"])
    assert max(w, h) == min(1024, max(width, height)) and abs(w / h - width / height) < 0.01, (w, h)
    assert p["opacity"] == DIMMED
    assert objects(driver)[0]["id"] == p["id"], "the photo lies at the back"
    view = driver.execute_script("return window.sketchwise.canvasSize()")
    (x0, y0), (x1, y1) = client(driver, p["x"], p["y"]), client(driver, p["x"] + p["w"], p["y"] + p["h"])
    stage = driver.execute_script("const r = document.getElementById('canvas').getBoundingClientRect(); return [r.left, r.top];")
    assert stage[0] <= x0 < x1 <= stage[0] + view["cssWidth"] and stage[1] <= y0 < y1 <= stage[1] + view["cssHeight"], \
        "fitted into the view"
    assert x1 - x0 > view["cssWidth"] / 3 or y1 - y0 > view["cssHeight"] / 3, "large enough to trace over"
    driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.picturesReady().then(() => done(true));")
    assert ink_pixels(driver, {"x": x0 - stage[0], "y": y0 - stage[1], "w": x1 - x0, "h": y1 - y0}) > 1000, "the photo is drawn"
    return p


# ---- the API ---------------------------------------------------------------------------------


def test_api_refuses_files_that_are_not_usable_photos(server, samples, cat_answer):
    gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
    for data, media_type in [(gif, "image/gif"), (b"a cat, honestly", "text/plain")]:
        status, body = post_photo(server, data, media_type)
        assert status == 415 and body["error"]["code"], (media_type, status, body)

    # Too large: declared so (answered before the body is read), or too many pixels.
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.putrequest("POST", "/api/photo")
        conn.putheader("Content-Type", "image/png")
        conn.putheader("Content-Length", str(13 * 1024 * 1024))
        conn.endheaders()
        conn.send(png_header(64, 64))
        response = conn.getresponse()
        assert response.status == 413, response.read()[:300]
    finally:
        conn.close()
    status, body = post_photo(server, png_header(10000, 10000) + b"\x00" * 64)
    assert status == 413, body

    status, body = post_photo(server, (samples / "chelsea.png").read_bytes()[:4000])
    assert status == 400 and body["error"]["code"], body


def make_seeds():
    """Fuzz/make_seeds.py, whose builders write the attacks below (and the fuzzer's seeds)."""
    spec = importlib.util.spec_from_file_location("make_seeds", REPO / "Fuzz" / "make_seeds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def memory(server):
    """The server's resident memory now and at its highest so far, in MiB (Linux's /proc)."""
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def test_api_refuses_photos_that_only_cost_at_once(server, cat_answer):
    """Issue 34's attacks: PNGs of a few bytes that declare long thin images (the decoder once
    scaled them up: 9,000,000 × 1 crashed the server, 10,000 × 1 cost it 3.8 GB), a progressive
    JPEG of 100,000 empty scans (16 minutes of work once), a cut-off PNG with its end chunk put
    back and an arithmetic-coded JPEG (libjpeg can loop forever on one). Each is answered at once,
    the server stays up and its memory stays where it was."""
    seeds = make_seeds()
    attacks = [
        ("9000000x1", seeds.png(9_000_000, 1), "image/png", 413, "a side may be at most 20000 pixels"),
        ("20000000x2", seeds.png(20_000_000, 2), "image/png", 413, "a side may be at most 20000 pixels"),
        ("50000000x1", seeds.png(50_000_000, 1), "image/png", 413, "a side may be at most 20000 pixels"),
        ("10000x1", seeds.png(10_000, 1), "image/png", 413, "more elongated than the 20:1 allowed"),
        ("100000x1", seeds.png(100_000, 1), "image/png", 413, "a side may be at most 20000 pixels"),
        ("scan bomb", seeds.jpeg_scan_bomb(7000, 100_000), "image/jpeg", 413, "more than 100 scans"),
        ("61 scans of 49 MP", seeds.jpeg_scan_bomb(7000, 60), "image/jpeg", 413, "scan × pixels allowed"),
        ("cut off", seeds.cut_png_with_end(), "image/png", 400, "cut off"),
        ("arithmetic-coded", seeds.jpeg_scan_bomb(64, 3).replace(b"\xff\xc2", b"\xff\xca", 1), "image/jpeg", 415, "only baseline"),
    ]
    rss_before, peak_before = memory(server)
    for name, data, media_type, expected, reason in attacks:
        started = time.monotonic()
        status, body = post_photo(server, data, media_type)
        seconds = time.monotonic() - started
        rss, peak = memory(server)
        print(f"{name}: {len(data)} bytes → {status} in {seconds * 1000:.0f} ms; server RSS {rss:.0f} MiB, peak {peak:.0f} MiB")
        assert status == expected and reason in body["error"]["message"], (name, status, body)
        assert seconds < 5, (name, seconds)
        assert server.get("/api/health", timeout=10)[0] == 200, name
    # A panorama of 12,000 × 2,000 is still a photo.
    status, body = post_photo(server, seeds.png(12_000, 2_000))
    assert status == 200 and body["labels"], body
    rss, peak = memory(server)
    assert peak <= max(peak_before, rss_before + 256), f"the server's memory rose from {rss_before:.0f} to a peak of {peak:.0f} MiB"


def test_api_names_the_cat_and_the_cup(server, samples, cat_answer):
    assert cat_answer["model"]
    assert any("cat" in label["text"].lower() for label in cat_answer["labels"]), cat_answer["labels"]
    assert cat_answer["classes"][0]["label"] == "cat", cat_answer["classes"]
    labels = [s["label"] for s in cat_answer["suggestions"]]
    assert labels and labels[0] == "cat", labels
    assert labels == sorted(labels, key=lambda label: label != "cat"), "the cat's pictures come first"
    for s in cat_answer["suggestions"]:
        assert {"id", "label", "score", "source", "title", "image", "thumbnail", "width", "height"} <= set(s), s

    status, body = post_photo(server, (samples / "coffee.png").read_bytes())
    assert status == 200, body
    assert body["classes"] and body["classes"][0]["label"] in CUPS, body["classes"]


def test_without_a_photo_model_the_api_says_so(cat_reply):
    status, body = cat_reply
    if status != 404:
        pytest.skip("the server has a photo model")
    assert body["error"]["code"] and body["error"]["message"].startswith("photos are not available on this server"), body


# ---- the browser -----------------------------------------------------------------------------


def test_drop_a_photo_and_trace_over_it(browser, server, samples):
    """Works with or without the photo model: the photo is a dimmed layer at the back that can be
    drawn over, dimmed and undimmed, resized, saved, exported and removed."""
    from selenium.webdriver.common.by import By

    d = browser
    fresh_app(d, server)
    data = (samples / "coffee.png").read_bytes()
    assert drop(d, data, "coffee.png", "image/png"), "the stage shows where the photo goes"
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="data-photo-count = 1")
    assert d.execute_script("return document.getElementById('stage').dataset.dropping") == "false"
    p = check_photo_layer(d, 600, 400)
    assert d.find_element(By.ID, "assist-title").text.lower() == "in your photo"
    wait_for(lambda: d.execute_script("return document.getElementById('assist').dataset.pending") == "false", 60,
             message="the server's answer")
    if photos(d)[0]["pictures"] is None:   # no photo model: the photo stays, and the app says why
        assert "Photos are not available on this server" in message(d), message(d)
    save_screenshot(d, "photos-trace-layer.png")

    # Selected, its bar dims and undims it (undoably); the frame resizes it, keeping its aspect.
    d.find_element(By.ID, "tool-select").click()
    mid = client(d, p["x"] + p["w"] / 2, p["y"] + p["h"] / 2)
    click_at(d, mid)
    assert d.execute_script("return window.sketchwise.selected()") == p["id"]
    p = photos(d)[0]   # (a click may move it by a pixel)
    dim = d.find_element(By.ID, "object-dim")
    assert dim.is_displayed() and dim.get_attribute("aria-pressed") == "true"
    dim.click()
    assert photos(d)[0]["opacity"] == 1 and dim.get_attribute("aria-pressed") == "false"
    press(d, "CONTROL", "z")
    assert photos(d)[0]["opacity"] == DIMMED
    se = element_centre(d, '#selection .handle[data-handle="se"]')
    drag(d, se, (se[0] - 120, se[1] - 60))
    resized = photos(d)[0]
    assert resized["w"] < p["w"] - 60 and abs(resized["w"] / resized["h"] - p["w"] / p["h"]) < 0.01, resized
    assert abs(resized["x"] - p["x"]) < 1 and abs(resized["y"] - p["y"]) < 1

    # Strokes go on top of it.
    press(d, "ESCAPE")
    d.find_element(By.ID, "tool-draw").click()
    a = client(d, resized["x"] + resized["w"] * 0.3, resized["y"] + resized["h"] / 2)
    drag(d, a, (a[0] + 120, a[1] + 20))
    assert attr_int(d, "data-stroke-count") == 1 and [o["type"] for o in objects(d)] == ["photo", "sketch"]

    # Autosave brings it back, and so does a saved document; the exports hold it, dimmed.
    before = objects(d)
    d.refresh()
    open_app(d, server.base)
    assert objects(d) == before
    opened = d.execute_script("const s = window.sketchwise; return s.openText(s.documentText(), 'saved.sketchwise.json')")
    assert opened["ok"] and objects(d) == before, opened
    svg = d.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    assert f'opacity="{DIMMED}"' in svg and 'href="data:image/jpeg;base64,' in svg
    png = data_url_png(d.execute_async_script(
        "const done = arguments[arguments.length - 1]; window.sketchwise.exportedPNGDataURL().then(done);"))
    width, height = png_info(png)
    assert abs(width - 2 * (resized["w"] + 32)) <= 2 and abs(height - 2 * (resized["h"] + 32)) <= 2, (width, height, resized)

    # Removed with the Delete key; undo brings it back.
    d.execute_script("window.sketchwise.select(arguments[0])", before[0]["id"])
    press(d, "DELETE")
    assert attr_int(d, "data-photo-count") == 0 and attr_int(d, "data-stroke-count") == 1
    press(d, "CONTROL", "z")
    assert attr_int(d, "data-photo-count") == 1


def test_drop_the_cat_photo_and_place_a_cat_picture(browser, server, samples, cat_answer):
    from selenium.webdriver.common.by import By

    d = browser
    fresh_app(d, server)
    drop(d, (samples / "chelsea.png").read_bytes(), "chelsea.png", "image/png")
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="data-photo-count = 1")
    check_photo_layer(d, 451, 300)
    chips = wait_for(lambda: d.execute_script(
        "return [...document.querySelectorAll('#guesses button[data-label]')].map(b => b.dataset.label)") or None, 60,
        message="the photo's guesses")
    assert chips[0] == "cat", chips
    buttons = d.find_elements(By.CSS_SELECTOR, '#suggestions button[data-label="cat"]')
    assert buttons, "cat pictures in the strip"
    assert d.find_element(By.ID, "assist-title").text.lower() == "in your photo"
    note = d.find_element(By.ID, "assist-note").text
    assert note.startswith("Photo: ") and "%" in note, note
    save_screenshot(d, "photos-dropped.png")

    # Placing a picture adds it on top, over the photo; the photo stays. Undo, redo.
    photo = photos(d)[0]
    buttons[0].click()
    wait_for(lambda: attr_int(d, "data-picture-count") == 1, 10, message="data-picture-count = 1")
    assert attr_int(d, "data-photo-count") == 1
    [picture] = d.execute_script("return window.sketchwise.pictures()")
    assert picture["label"] == "cat" and objects(d)[-1]["type"] == "picture"
    assert photo["x"] <= picture["x"] and picture["x"] + picture["w"] <= photo["x"] + photo["w"]
    assert photo["y"] <= picture["y"] and picture["y"] + picture["h"] <= photo["y"] + photo["h"]
    assert 48 <= max(picture["w"], picture["h"]) <= min(photo["w"], photo["h"]) * 0.4 + 1, picture
    save_screenshot(d, "photos-placed.png")
    press(d, "CONTROL", "z")
    assert attr_int(d, "data-picture-count") == 0 and attr_int(d, "data-photo-count") == 1
    press(d, "CONTROL", "SHIFT", "z")
    assert attr_int(d, "data-picture-count") == 1

    # Selecting the photo later shows its pictures again.
    d.execute_script("window.sketchwise.select(arguments[0])", photo["id"])
    assert d.find_element(By.ID, "assist-title").text.lower() == "in your photo"
    assert d.find_elements(By.CSS_SELECTOR, '#suggestions button[data-label="cat"]')

    # Reload: the autosave brings back the photo, with its labels and pictures, and the picture.
    saved = saved_objects(d)
    assert [o["type"] for o in saved] == ["photo", "picture"] and saved[0]["classes"][0]["label"] == "cat"
    d.refresh()
    open_app(d, server.base)
    assert attr_int(d, "data-photo-count") == 1 and attr_int(d, "data-picture-count") == 1
    d.execute_script("window.sketchwise.select(window.sketchwise.photos()[0].id)")
    assert d.find_elements(By.CSS_SELECTOR, '#suggestions button[data-label="cat"]')

    # Remove the photo from its bar; the picture stays, and so does that after a reload.
    d.find_element(By.ID, "object-delete").click()
    assert attr_int(d, "data-photo-count") == 0 and attr_int(d, "data-picture-count") == 1
    assert [o["type"] for o in saved_objects(d)] == ["picture"]


def test_pick_a_photo_with_the_file_input(browser, server, samples):
    from selenium.webdriver.common.by import By

    d = browser
    fresh_app(d, server)
    button = d.find_element(By.ID, "add-photo")
    assert button.get_attribute("title") and button.text == "Photo"
    field = d.find_element(By.ID, "photo-file")
    assert field.get_attribute("accept") == "image/png,image/jpeg" and field.get_attribute("capture") is None
    field.send_keys(str(samples / "chelsea.png"))
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="data-photo-count = 1")
    check_photo_layer(d, 451, 300)
    # Undoing the photo takes the strip back from "In your photo" (issue 37, point 5).
    title = d.find_element(By.ID, "assist-title")
    wait_for(lambda: title.text.lower() == "in your photo", 60, message="the photo's pictures")
    press(d, "CONTROL", "z")
    assert attr_int(d, "data-photo-count") == 0
    assert title.text.lower() != "in your photo" and not d.find_elements(By.CSS_SELECTOR, "#suggestions button[data-id]")


def test_a_file_that_is_not_a_photo_changes_nothing(browser, server, samples):
    d = browser
    fresh_app(d, server)
    drop(d, (samples / "coffee.png").read_bytes(), "coffee.png", "image/png")
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="the first photo")
    # The photo object changes once more when its answer arrives (or fails): wait for that first.
    wait_for(lambda: (d.execute_script("return document.getElementById('assist').dataset.pending") == "false"
                      and objects(d)[0].get("classes")),
             30, message="the first photo's answer")
    before, saved = objects(d), saved_objects(d)

    for data, name, media_type, reason, padding in [
        (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
         "cat.gif", "image/gif", "not a PNG or JPEG", 0),
        # Not an image: opened as a document, which it is not either.
        (b"a drawing of a cat\n", "cat.txt", "text/plain", "not valid JSON", 0),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 64, "broken.jpg", "image/jpeg", "could not be read", 0),
        (png_header(4000, 3000), "huge.png", "image/png", "larger than 12 MiB", 13 * 1024 * 1024),
    ]:
        d.execute_script("document.getElementById('message').hidden = true")
        drop(d, data, name, media_type, padding)
        said = wait_for(lambda: message(d) or None, 10, message=f"a message about {name}")
        assert said.startswith("error: ") and name in said and reason in said and "Nothing was changed" in said, said
        assert objects(d) == before and saved_objects(d) == saved, f"{name} changed the drawing"
    save_screenshot(d, "photos-not-a-photo.png")


def test_a_dropped_document_is_opened_and_an_image_opened_is_a_photo(browser, server, samples):
    """A file goes where it belongs, whichever way it comes: a .sketchwise.json dropped on the
    canvas opens as a document (it was taken for a photo), and an image picked with Open is added
    as a photo (it was read as ndjson: "line 1 is not valid JSON")."""
    from selenium.webdriver.common.by import By

    d = browser
    fresh_app(d, server)
    document = {"format": "sketchwise", "version": 1, "objects": [
        {"type": "shape", "shape": "rectangle", "x": 10, "y": 10, "w": 80, "h": 60, "rotation": 0, "color": "#111111",
         "width": 4, "fill": None}]}
    drop(d, json.dumps(document).encode(), "drawing.sketchwise.json", "application/json")
    wait_for(lambda: [o["type"] for o in objects(d)] == ["shape"], 10, message="the dropped document opened")
    accepted = d.find_element(By.ID, "load-file").get_attribute("accept").split(",")
    assert {"image/png", "image/jpeg"} <= set(accepted), f"Open's file picker offers images too: {accepted}"
    d.find_element(By.ID, "load-file").send_keys(str(samples / "chelsea.png"))
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="the image opened as a photo")
    assert "not valid JSON" not in message(d), message(d)


def test_offline_the_photo_stays_to_trace_over(browser, static_base, samples):
    d = browser
    d.get(static_base + "/")
    d.execute_script("localStorage.clear()")
    open_app(d, static_base, expect_state="offline")
    drop(d, (samples / "coffee.png").read_bytes(), "coffee.png", "image/png")
    said = wait_for(lambda: message(d) or None, 10, message="a message")
    assert said.startswith("error: Offline") and "stays" in said, said
    check_photo_layer(d, 600, 400)


def test_a_document_with_a_bad_photo_is_refused(browser, server):
    d = browser
    fresh_app(d, server)
    photo = {"type": "photo", "x": 0, "y": 0, "w": 100, "h": 80, "rotation": 0, "src": "data:image/jpeg;base64,/9j/4AAQ",
             "opacity": DIMMED, "labels": [{"text": "tabby cat", "confidence": 0.5}], "classes": [{"label": "cat", "probability": 0.8}],
             "alternatives": None}
    for field, value, error in [("src", "https://example.com/cat.jpg", "objects[0].src"),
                                ("src", "data:image/gif;base64,R0lG", "objects[0].src"),
                                ("opacity", 2, "objects[0].opacity"), ("labels", [{"text": "cat"}], "objects[0].labels[0].confidence")]:
        text = json.dumps({"format": "sketchwise", "version": 1, "objects": [{**photo, field: value}]})
        result = d.execute_script("return window.sketchwise.openText(arguments[0], 'bad.sketchwise.json')", text)
        assert not result["ok"] and error in result["error"], (field, result)
    assert d.execute_script("return window.sketchwise.openText(arguments[0], 'good.sketchwise.json')",
                            json.dumps({"format": "sketchwise", "version": 1, "objects": [photo]}))["ok"]
    assert attr_int(d, "data-photo-count") == 1


def test_a_photo_without_pictures_says_so_by_its_labels(browser, server):
    """Found by a first hour: a photo whose labels map to no drawing class said "no drawing of it"
    while pictures found by the labels' names stood under it, and one with no pictures at all
    said nothing of it, under the hint to draw something. The note now says where the pictures
    come from, or that there are none, and the hint is not shown."""
    from selenium.webdriver.common.by import By

    d = browser
    fresh_app(d, server)
    photo = {"type": "photo", "x": 0, "y": 0, "w": 100, "h": 80, "rotation": 0, "src": "data:image/jpeg;base64,/9j/4AAQ",
             "opacity": DIMMED, "labels": [{"text": "plunger", "confidence": 0.22}], "classes": [], "alternatives": []}
    assert d.execute_script("return window.sketchwise.openText(arguments[0], 'plunger.sketchwise.json')",
                            json.dumps({"format": "sketchwise", "version": 1, "objects": [photo]}))["ok"]
    d.execute_script("window.sketchwise.select(window.sketchwise.objects()[0].id)")
    note = d.find_element(By.ID, "assist-note")
    wait_for(lambda: note.text == "Photo: plunger 22% — no pictures of it: trace over it instead.", 10,
             message=f"the note of a photo without pictures (now {note.text!r})")
    assert not d.find_element(By.ID, "hint").is_displayed(), "the hint to draw something is not shown for a photo"


def test_accessibility_with_a_photo(browser, server, samples, axe_source):
    """axe-core's WCAG 2 A/AA rules with a photo selected: the toolbar's Photo button and its
    file field, the strip for the photo and the bar with Dim."""
    d = browser
    fresh_app(d, server)
    drop(d, (samples / "chelsea.png").read_bytes(), "chelsea.png", "image/png")
    wait_for(lambda: attr_int(d, "data-photo-count") == 1, 10, message="the photo")
    wait_for(lambda: d.execute_script("return document.getElementById('assist').dataset.pending") == "false", 60,
             message="the server's answer")
    d.execute_script(axe_source)
    violations = d.execute_async_script("""
      const done = arguments[arguments.length - 1];
      axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
        .then((r) => done(r.violations.map((v) => ({id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5)}))))
        .catch((e) => done([{id: 'axe failed', nodes: [String(e)]}]));
    """)
    assert violations == []
