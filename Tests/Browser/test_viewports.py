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

from browser_helpers import (MOUSE_TARGET, TOUCH_TARGET, draw_in_clear_band, emulate, guess_labels, layout, layout_problems,
                             more_menus, open_app, wait_for)
from conftest import REPO, skip_module_without_browser

skip_module_without_browser()

SCREENSHOTS = REPO / "out" / "screenshots"

#: (width, height): phones and tablets in portrait, then landscape phones, tablets and monitors.
VIEWPORTS = [(360, 740), (390, 844), (768, 1024), (740, 360), (844, 390), (900, 600), (1024, 768), (1280, 800), (1920, 1080), (2560, 1440)]
#: Every control the person must be able to reach at every size, directly or through a "more" menu.
REACHABLE = ["#clear", "#load-ndjson", "#add-photo", "#save-document", "#export-png", "#export-svg", "#save-ndjson",
             "#my-shortcuts", "#help", "#tool-select", "#tool-autodraw", "#tool-draw", "#tool-shape", "#tool-text",
             "#tool-fill", "#scene-mode", "#undo", "#redo", "#erase-last", "#palette button", ".swatch.custom",
             "#width", "#zoom-out", "#zoom-fit", "#zoom-in", "#style", "#picture-search", "#language"]

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
