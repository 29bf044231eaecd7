"""The web app with the keyboard alone, and what a screen reader is told: found by a scripted
keyboard-only hour. Menus keep the focus while their arrow keys choose, the width slider takes its
arrow keys, a control that goes away hands the keyboard on instead of dropping it to the top of the
page, and the strip's settled guesses, what a search found and what was placed are said once in a
polite status region.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_keyboard.py
"""

import json

from browser_helpers import canvas_rect, click_at, draw, emulate, fit_drawing, more_menus, open_app, wait_for


def active(driver):
    """The focused element's id (or its tag when it has none)."""
    return driver.execute_script("const e = document.activeElement; return e.id || e.tagName.toLowerCase()")


def key(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def test_menus_keep_the_focus_while_their_arrow_keys_choose(driver, static_base):
    from selenium.webdriver.common.keys import Keys

    open_app(driver, static_base, expect_state=None)
    camera = driver.execute_script("return window.sketchwise.camera()")
    style = driver.find_element("id", "style")
    driver.execute_script("arguments[0].focus()", style)
    key(driver, Keys.ARROW_DOWN)
    first = style.get_attribute("value")
    assert first != "line" and active(driver) == "style", (first, active(driver))
    key(driver, Keys.ARROW_DOWN)
    assert style.get_attribute("value") != first and active(driver) == "style", "a second arrow chooses again"
    assert driver.execute_script("return window.sketchwise.camera()") == camera, "the arrows did not pan the view"

    language = driver.find_element("id", "language")
    driver.execute_script("arguments[0].focus()", language)
    key(driver, Keys.ARROW_DOWN)
    wait_for(lambda: driver.execute_script("return document.documentElement.lang") != "en", 10, message="another language")
    wait_for(lambda: active(driver) == "language", 5, message="the focus on the menu, not elsewhere")


def test_the_width_slider_takes_its_arrow_keys_with_an_object_selected(driver, static_base):
    from selenium.webdriver.common.keys import Keys

    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    driver.find_element("id", "tool-draw").click()
    draw(driver, [([(200, 200), (320, 260)], [0, 200])], rect)
    sketch = driver.execute_script("return window.sketchwise.objects()")[-1]
    driver.execute_script("window.sketchwise.select(arguments[0])", sketch["id"])
    width = driver.find_element("id", "width")
    before = width.get_attribute("value")
    driver.execute_script("arguments[0].focus()", width)
    key(driver, Keys.ARROW_RIGHT)
    assert width.get_attribute("value") != before, "the slider moved"
    moved = driver.execute_script("return window.sketchwise.objects()")[-1]
    assert (moved["x"], moved["y"]) == (sketch["x"], sketch["y"]), "the selected object stayed where it was"


def test_a_control_that_goes_away_hands_the_keyboard_on(driver, static_base):
    """Undo pressed until there is nothing left to undo hands the keyboard to Redo; the object
    bar's Delete, to the tool in use; neither drops it to the top of the page."""
    from selenium.webdriver.common.keys import Keys

    open_app(driver, static_base, expect_state=None)
    rect = canvas_rect(driver)
    driver.find_element("id", "tool-draw").click()
    draw(driver, [([(200, 200), (320, 260)], [0, 200])], rect)
    undo = driver.find_element("id", "undo")
    driver.execute_script("arguments[0].focus()", undo)
    key(driver, Keys.ENTER)
    wait_for(lambda: undo.get_attribute("disabled") is not None, 5, message="nothing left to undo")
    assert active(driver) == "redo", f"the focus went to {active(driver)}"

    key(driver, Keys.ENTER)   # Redo brings the stroke back
    sketch = driver.execute_script("return window.sketchwise.objects()")[-1]
    driver.execute_script("window.sketchwise.select(arguments[0])", sketch["id"])
    delete = driver.find_element("id", "object-delete")
    driver.execute_script("arguments[0].focus()", delete)
    key(driver, Keys.ENTER)
    wait_for(lambda: not driver.execute_script("return window.sketchwise.objects()"), 5, message="deleted")
    assert active(driver).startswith("tool-"), f"the focus went to {active(driver)}"


def test_n_selects_each_object_in_turn(driver, static_base):
    """N selects the next object (Shift+N the one before), with the Select tool, so the object bar,
    the arrow keys and Delete reach what a press on an object reaches."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    open_app(driver, static_base, expect_state=None)
    shape = {"type": "shape", "y": 40, "w": 80, "h": 60, "rotation": 0, "color": "#111111", "width": 4, "fill": None}
    page = {"format": "sketchwise", "version": 1,
            "objects": [{**shape, "shape": "rectangle", "x": 40}, {**shape, "shape": "ellipse", "x": 240}]}
    assert driver.execute_script("return window.sketchwise.openText(arguments[0], 'two.sketchwise.json')", json.dumps(page))["ok"]
    ids = [o["id"] for o in driver.execute_script("return window.sketchwise.objects()")]
    selected = "return window.sketchwise.selected()"
    driver.execute_script("document.activeElement.blur()")
    key(driver, "n")
    assert driver.execute_script(selected) == ids[0]
    assert driver.find_element("id", "tool-select").get_attribute("aria-pressed") == "true"
    key(driver, "n")
    assert driver.execute_script(selected) == ids[1]
    ActionChains(driver).key_down(Keys.SHIFT).send_keys("n").key_up(Keys.SHIFT).perform()
    assert driver.execute_script(selected) == ids[0], "Shift+N goes back"
    assert driver.find_element("id", "object-bar").is_displayed()
    key(driver, Keys.DELETE)
    assert [o["id"] for o in driver.execute_script("return window.sketchwise.objects()")] == ids[1:]


def test_single_key_shortcuts_can_be_turned_off_and_stay_off(driver, static_base):
    """WCAG 2.1.4: letters, +, −, 0 and ? can be turned off in the help dialog (kept for the next
    visit); named keys (Escape here) still work."""
    from selenium.webdriver.common.keys import Keys

    def pressed(tool):
        return driver.find_element("id", f"tool-{tool}").get_attribute("aria-pressed") == "true"

    open_app(driver, static_base, expect_state=None)
    driver.execute_script("document.activeElement.blur()")
    key(driver, "v")
    assert pressed("select"), "V picks Select while single keys are on"
    key(driver, "?")
    driver.find_element("id", "single-keys").click()
    key(driver, Keys.ESCAPE)
    wait_for(lambda: not driver.execute_script("return document.querySelector('dialog[open]')"), 5, message="help closed")
    driver.execute_script("document.activeElement.blur()")
    camera = driver.execute_script("return window.sketchwise.camera()")
    key(driver, "d")
    key(driver, "+")
    key(driver, "?")
    assert pressed("select"), "D did nothing"
    assert driver.execute_script("return window.sketchwise.camera()") == camera, "+ did not zoom"
    assert not driver.execute_script("return document.querySelector('dialog[open]')"), "? opened nothing"
    driver.refresh()
    wait_for(lambda: driver.execute_script("return Boolean(window.sketchwise)"), 10, message="the app again")
    assert not driver.find_element("id", "single-keys").is_selected(), "the choice is kept"
    driver.execute_script("document.activeElement.blur()")
    key(driver, "v")
    assert not pressed("select"), "still off after a reload"


def test_tab_out_of_a_more_menu_goes_back_to_its_button(driver, static_base):
    """On a phone the bars' "more" menus stand at the end of the page: Tab past a menu's last
    control (Shift+Tab before its first) closes it and goes back to its More button, in the bar's
    order, instead of to the end of the page with the menu left open."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    emulate(driver, 390, 844)
    open_app(driver, static_base, expect_state=None)
    menus = more_menus(driver)
    assert menus, "a phone shows More buttons"
    for button, menu in menus:
        for backwards in (False, True):
            driver.execute_script("arguments[0].focus()", driver.find_element("id", button))
            key(driver, Keys.ENTER)
            wait_for(lambda: driver.find_element("id", menu).is_displayed(), 5, message=f"#{menu} open")
            controls = driver.execute_script("return [...document.getElementById(arguments[0]).querySelectorAll('button, input, select')]"
                                             ".filter((c) => !c.disabled && c.getClientRects().length)", menu)
            driver.execute_script("arguments[0].focus()", controls[0] if backwards else controls[-1])
            if backwards:
                ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
            else:
                key(driver, Keys.TAB)
            assert not driver.find_element("id", menu).is_displayed(), f"#{menu} closed"
            assert active(driver) == button, f"the focus went to {active(driver)}"


def test_the_help_dialog_starts_at_its_title_and_messages_interrupt_only_for_errors(driver, static_base):
    from selenium.webdriver.common.keys import Keys

    open_app(driver, static_base, expect_state=None)
    driver.execute_script("document.activeElement.blur()")
    key(driver, "?")
    wait_for(lambda: driver.execute_script("return document.getElementById('shortcuts').open"), 5, message="the help dialog")
    assert active(driver) == "shortcuts-title", f"the dialog starts at {active(driver)}"
    key(driver, Keys.ESCAPE)
    role = "return document.getElementById('message').getAttribute('role')"
    driver.find_element("id", "tool-fill").click()
    rect = canvas_rect(driver)
    click_at(driver, (rect["x"] + rect["w"] / 2, rect["y"] + rect["h"] * 0.8))   # Fill on nothing: a note
    wait_for(lambda: driver.find_element("id", "message").is_displayed(), 5, message="the note")
    assert driver.execute_script(role) == "status"


def test_a_screen_reader_hears_the_settled_guesses_a_search_and_a_placement_once(driver, server, known_drawing):
    from selenium.webdriver.common.keys import Keys

    _, record, _ = known_drawing
    open_app(driver, server.base)
    for region in ("guesses", "assist-note"):
        assert driver.find_element("id", region).get_attribute("aria-live") is None, f"#{region} says every change"
    driver.execute_script("""
      window.__said = [];
      new MutationObserver(() => window.__said.push(document.getElementById('announce').textContent))
        .observe(document.getElementById('announce'), {childList: true, characterData: true, subtree: true});""")
    rect = canvas_rect(driver)
    draw(driver, fit_drawing(record["drawing"], rect), rect)
    wait_for(lambda: driver.find_elements("css selector", "#suggestions button[data-id]"), 60, message="pictures")
    wait_for(lambda: any(s.startswith("Guesses: ") for s in driver.execute_script("return window.__said")), 10,
             message="the guesses said")
    said = driver.execute_script("return window.__said")
    assert not any("Guessing" in s or "before its last change" in s for s in said), said
    assert len(said) <= len(record["drawing"]) + 1, f"at most once a stroke: {said}"

    # Tab to the guesses: each chip comes fully into view. Focused and checked in one script, as
    # are the pictures below: a late answer may redraw the rows between two WebDriver calls.
    chips, hidden = driver.execute_script("""
      const chips = [...document.querySelectorAll('#guesses button[data-label]')];
      return [chips.length, chips.filter((chip) => {
        chip.focus();
        const r = chip.getBoundingClientRect();
        return !chip.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
      }).map((chip) => chip.dataset.label)];""")
    assert chips > 0 and hidden == [], f"of {chips} guesses, hidden where they have the focus: {hidden}"

    name = driver.execute_script("""
      const picture = document.querySelector('#suggestions button[data-id]');
      picture.focus();
      return picture.querySelector('img').alt;""")
    key(driver, Keys.ENTER)
    wait_for(lambda: driver.execute_script("return document.getElementById('announce').textContent") == f"Placed {name}.", 30,
             message="the placement said")

    field = driver.find_element("id", "picture-search")
    field.send_keys("cat", Keys.ENTER)
    wait_for(lambda: "found for “cat”" in driver.execute_script("return document.getElementById('announce').textContent"), 30,
             message="what the search found said")
