"""The library's last resorts (issue 38). Doodles: a class that no picture set draws, such as a
barn, gets the most typical Quick, Draw! drawings of its class as line pictures, marked as doodles
in the strip, and one swaps in like any picture. The doodles are drawn from ../shared/data at
set-up (scripts/install-doodles.sh); without that data the tests skip with a message. And a style
with nothing for a guess offers the best reviewed picture of another style, marked with its style.
"""

import sys

import pytest

from browser_helpers import attr_int, draw_and_recognise, save_screenshot, wait_for
from conftest import RAW, SHARED, read_drawings, skip_module_without_browser

skip_module_without_browser()

CLASS = "barn"   # no line picture set draws a barn (index coverage --style line)


def recognised_barn(server):
    """A raw barn drawing the server guesses as a barn first and surely (probability at least a
    half: a close second guess's pictures may look more like it and lead the strip), and its
    line-style suggestions."""
    for record in read_drawings(CLASS, limit=12):
        status, body, _, raw = server.post_json("/api/suggest", {"strokes": record["drawing"], "style": "line"})
        assert status == 200, raw[:300]
        if body["guesses"] and body["guesses"][0]["label"] == CLASS and body["guesses"][0]["probability"] >= 0.5:
            return record, body["suggestions"]
    pytest.fail(f"none of the first 12 {CLASS} drawings was guessed as a {CLASS} first with probability 0.5 or more")


def test_a_class_no_set_draws_gets_doodles_marked_as_such(driver, server):
    if not (RAW / f"{CLASS}.ndjson").exists() or not str(RAW).startswith(str(SHARED)):
        pytest.skip(f"no Quick, Draw! data at {SHARED}: the library has no doodles (scripts/install-doodles.sh)")
    record, suggestions = recognised_barn(server)
    doodles = [s for s in suggestions if s["label"] == CLASS]
    if not doodles:
        pytest.skip("the library has no doodles: scripts/install-doodles.sh draws them from ../shared/data")
    assert all(s["source"] == "doodle" and s["title"] == CLASS for s in doodles), doodles
    assert len(doodles) >= 2, "several doodles, each unlike the others"
    others = [s for s in suggestions if s["source"] != "doodle"]
    assert suggestions[0]["label"] == CLASS, "the first guess's doodles lead the strip"

    draw_and_recognise(driver, server.base, record["drawing"])
    tiles = wait_for(lambda: driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((b) => ({id: b.dataset.id, "
        "mark: b.querySelector('.picture-mark')?.textContent, alt: b.querySelector('img').alt}))",
        f'#suggestions button[data-label="{CLASS}"]') or None, 30, message="the barn's pictures in the strip")
    assert all(t["mark"] == "doodle" and "doodle" in t["alt"] for t in tiles), tiles
    save_screenshot(driver, "doodles-barn.png")
    pick = tiles[0]["id"]
    driver.find_element("css selector", f'#suggestions button[data-id="{pick}"]').click()
    wait_for(lambda: attr_int(driver, "data-picture-count") == 1, 10, message="the doodle placed")
    placed = driver.execute_script("return window.sketchwise.pictures()")
    assert [p["id"] for p in placed] == [pick] and pick.startswith("doodle:barn/")
    print(f"\n[doodles] {CLASS}: {len(doodles)} doodles and {len(others)} real pictures of other guesses; placed {pick}", file=sys.stderr)
    save_screenshot(driver, "doodles-barn-placed.png")


def test_a_style_with_nothing_for_a_guess_offers_a_reviewed_picture_of_another(server):
    """No emoji draws a campfire (🔥 is reviewed loose), so the emoji style offers the best line
    picture reviewed as a campfire, one, instead of an empty row."""
    if not (RAW / "campfire.ndjson").exists() or not str(RAW).startswith(str(SHARED)):
        pytest.skip(f"no Quick, Draw! data at {SHARED}")
    for record in read_drawings("campfire", limit=12):
        status, body, _, raw = server.post_json("/api/suggest", {"strokes": record["drawing"], "style": "emoji"})
        assert status == 200, raw[:300]
        if body["guesses"] and body["guesses"][0]["label"] == "campfire":
            break
    else:
        pytest.fail("none of the first 12 campfire drawings was guessed as a campfire first")
    offered = [s for s in body["suggestions"] if s["label"] == "campfire"]
    assert len(offered) == 1 and offered[0]["source"] in ("openmoji", "lucide", "tabler"), offered
    assert offered[0]["id"] in ("tabler:campfire.svg", "lucide:flame-kindling.svg"), "a picture reviewed as a campfire"
    print(f"\n[fallback] campfire in the emoji style: {offered[0]['id']}", file=sys.stderr)
