"""Several objects by default: in the AutoDraw tool, strokes form objects as they are drawn
(grouping.js), the "Do you mean" card guesses the object being drawn, and a swap replaces only that
object's strokes. Real Quick, Draw! drawings from the committed sample, drawn with the mouse.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_objects.py
"""

import json
import sys

from browser_helpers import (canvas_rect, draw, fit_drawing, guess_labels, install_probe, open_app, save_screenshot,
                             wait_for, wait_for_full_result)
from conftest import SAMPLE, skip_module_without_browser

skip_module_without_browser()


def sample_drawings(cls):
    """The committed sample's raw drawings of `cls` (the same in every checkout)."""
    with open(SAMPLE / "raw" / f"{cls}.ndjson") as f:
        return [json.loads(line)["drawing"] for line in f if line.strip()]


def recognised(server, cls, drawings):
    """The first drawing whose class /api/classify puts in its top 3, as one sketch on its own."""
    for drawing in drawings:
        status, body, _, raw = server.post_json("/api/classify", {"strokes": drawing, "top": 3})
        assert status == 200, f"POST /api/classify → {status}: {raw[:300]!r}"
        if cls in [g["label"] for g in body["guesses"]]:
            return drawing
    raise AssertionError(f"no sample drawing of {cls} is in its own top 3")


def placed(drawing, rect, left, width):
    """The drawing fitted into the square of side `width` at `left` (canvas px), halfway down the canvas."""
    side = min(width, rect["h"] * 0.8)
    strokes = fit_drawing(drawing, {"w": side, "h": side}, fill=1.0)
    top = (rect["h"] - side) / 2
    return [([(x + left, y + top) for x, y in pts], ts) for pts, ts in strokes]


def sketches(driver):
    """The sketch objects on the page: [{id, strokeCount}]."""
    return [o for o in driver.execute_script("return window.sketchwise.objects()") if o["type"] == "sketch"]


def test_a_sun_drawn_ray_by_ray_stays_one_object(driver, server):
    # The sample's sun with the most strokes: a disc and its rays, each ray a stroke of its own.
    sun = max(sample_drawings("sun"), key=len)
    assert len(sun) >= 10
    open_app(driver, server.base)
    rect = canvas_rect(driver)
    draw(driver, fit_drawing(sun, rect), rect)
    wait_for(lambda: sum(o["strokeCount"] for o in sketches(driver)) == len(sun), 10, message="every stroke drawn")
    objects = sketches(driver)
    assert len(objects) == 1, f"the sun's {len(sun)} strokes became {[o['strokeCount'] for o in objects]}"


def test_a_sun_and_a_house_drawn_apart_are_two_objects(driver, server):
    from selenium.webdriver.common.by import By

    sun = recognised(server, "sun", sample_drawings("sun"))
    house = recognised(server, "house", sample_drawings("house"))
    open_app(driver, server.base)
    install_probe(driver)
    rect = canvas_rect(driver)
    third = rect["w"] / 3
    # The sun in the left third, the house in the right third: a third of the canvas between them.
    draw(driver, placed(sun, rect, 0.1 * third, 0.8 * third), rect)
    wait_for_full_result(driver, len(sun))
    sun_guesses = wait_for(lambda: guess_labels(driver) or None, 30, message="guesses for the sun")
    assert "sun" in sun_guesses[:3], f"the card's guesses for the sun: {sun_guesses}"

    draw(driver, placed(house, rect, 2.1 * third, 0.8 * third), rect)
    wait_for_full_result(driver, len(house))
    house_guesses = wait_for(lambda: "house" in guess_labels(driver)[:3] and guess_labels(driver), 30,
                             message="the card following the house")
    objects = sketches(driver)
    assert [o["strokeCount"] for o in objects] == [len(sun), len(house)], "two objects, each with its own strokes"
    # A guess cut at the strip's edge is faded there, as more to scroll to.
    overflows, more = driver.execute_script(
        "const g = document.getElementById('guesses'); return [g.scrollWidth > g.clientWidth + 1, g.dataset.more || null]")
    assert more == ("end" if overflows else None), (overflows, more)
    # Before strokes formed objects, the app guessed every stroke on the page as one sketch.
    every_stroke = driver.execute_script("return window.sketchwise.strokes()")
    status, body, _, _ = server.post_json("/api/classify", {"strokes": every_stroke, "top": 3})
    assert status == 200
    together = [f"{g['label']} {g['probability']:.0%}" for g in body["guesses"]]
    print(f"\n[objects] before, as one sketch: {together}; after: sun {sun_guesses[:3]}, house {house_guesses[:3]}", file=sys.stderr)
    save_screenshot(driver, "objects-sun-and-house.png")

    # Scene mode boxes both objects (the server groups the page's strokes); off, they are two again.
    driver.find_element(By.ID, "scene-mode").click()
    wait_for(lambda: len(driver.execute_script("return window.sketchwise.sceneObjects()")) == 2, 60, message="two boxes in scene mode")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#scene-boxes .scene-tag")) == 2
    save_screenshot(driver, "objects-scene-mode.png")
    driver.find_element(By.ID, "scene-mode").click()
    assert sorted(o["strokeCount"] for o in sketches(driver)) == sorted([len(sun), len(house)]), "the same two objects"
    assert sketches(driver)[-1]["strokeCount"] == len(house), "the house is the object drawn last"
    wait_for(lambda: driver.execute_script("return document.getElementById('assist').dataset.stale") != "true"
             and "house" in guess_labels(driver)[:3], 30, message="the card back on the house")

    # A swap replaces the house's strokes only; the sun stays a sketch.
    pick = next(s for s in driver.execute_script("return window.sketchwise.suggestions()") if s["label"] == "house")
    driver.find_element(By.CSS_SELECTOR, f'#suggestions button[data-id="{pick["id"]}"]').click()
    wait_for(lambda: len(driver.execute_script("return window.sketchwise.pictures()")) == 1, 10, message="the house swapped")
    (kept,) = sketches(driver)
    assert kept["strokeCount"] == len(sun), "the sun keeps all its strokes"
    picture = driver.execute_script("return window.sketchwise.pictures()")[0]
    assert picture["x"] > kept["x"] + kept["w"], "the picture took the house's place, right of the sun"
    save_screenshot(driver, "objects-house-swapped.png")
