"""The web app in every language it speaks (issue 41): English, Simplified Chinese, Hebrew (right
to left), Spanish, French, German and Japanese.

Without a browser: the catalogs (Web/locales/<tag>.json) hold every key the code uses and no
other, keep the English placeholders and have every plural category the language needs; the page
has no text outside them. In Chromium: each language's app guesses a real drawing with the
server's names in that language, shows the catalog's words, sets <html lang dir> and lays out
without a control overlapping another or cutting its text (at the tests' window and at a phone's
390 × 844); Hebrew mirrors the page but not the canvas, and its keyboard's letters still pick the
tools; the picture search finds pictures by a name in the person's language and places one; the
language picker switches the page at once, keeps the drawing and is kept; the browser's
languages choose the default; and the app opens offline in the language chosen.

Screenshots: out/test-artifacts/locales/<tag>.png and <tag>-phone.png.

Run:  /usr/bin/python3 -m pytest Tests/Browser/test_locales.py -x -q
"""

import html.parser
import json
import re
import sys

import pytest

from browser_helpers import (ITEMS, MOUSE_TARGET, TOUCH_TARGET, attr_int, canvas_rect, click_at, draw, draw_in_clear_band, emulate,
                             guess_labels, ink_pixels, layout, layout_problems, more_menus, open_app, press, save_screenshot, shell_kept,
                             wait_for)
from conftest import WEB, start_server, stop_server

LOCALES = ["en", "zh-Hans", "he", "es", "fr", "de", "ja"]
CATALOGS = {tag: json.loads((WEB / "locales" / f"{tag}.json").read_text()) for tag in LOCALES}
#: The CLDR plural categories of each language, as Chromium's Intl.PluralRules gives them
#: (CLDR 42 on: Spanish and French have "many" for millions, Hebrew no longer has it).
PLURAL_CATEGORIES = {
    "en": {"one", "other"}, "de": {"one", "other"}, "es": {"one", "many", "other"}, "fr": {"one", "many", "other"},
    "he": {"one", "two", "other"}, "zh-Hans": {"other"}, "ja": {"other"},
}
#: Words the page may show outside the catalogs: the app's name and file formats.
NOT_TRANSLATED = {"Sketchwise", "PNG", "SVG", "ndjson"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")

#: Where the code names catalog keys: t("key") calls; translated(element, {what: "key"}); and the
#: data-i18n attributes of the page (data-i18n-slot and data-i18n-params hold no key).
T_CALL = re.compile(r"\bt\(\s*\"([^\"]+)\"")
TRANSLATED_CALL = re.compile(r"\btranslated\([^,]+,\s*\{([^}]*)\}")
MARKUP = re.compile(r"data-i18n(?:-(?!slot|params)[\w-]+)?=\"([^\"]+)\"")


def used_keys():
    """Every catalog key the web app's code and page use: {key: [files]}."""
    used = {}
    for path in sorted(WEB.glob("*.js")):
        source = path.read_text()
        keys = T_CALL.findall(source) + [k for literal in TRANSLATED_CALL.findall(source) for k in re.findall(r"\"([^\"]+)\"", literal)]
        for key in keys + MARKUP.findall(source):
            used.setdefault(key, []).append(path.name)
    for key in MARKUP.findall((WEB / "index.html").read_text()):
        used.setdefault(key, []).append("index.html")
    return used


def strings(entry):
    """The strings of a catalog entry: itself, or each form of a plural entry."""
    return list(entry.values()) if isinstance(entry, dict) else [entry]


def placeholders(entry):
    return set().union(*(PLACEHOLDER.findall(s) for s in strings(entry)))


# ---- the catalogs, without a browser -------------------------------------------------------------


def test_every_key_the_code_uses_is_in_every_catalog():
    used = used_keys()
    assert len(used) > 200, "the code's keys were not found: has the way it names them changed?"
    missing = {tag: sorted(k for k in used if k not in catalog) for tag, catalog in CATALOGS.items()}
    assert not any(missing.values()), {tag: keys for tag, keys in missing.items() if keys}


def test_no_catalog_holds_a_key_the_code_does_not_use():
    used = used_keys()
    unused = {tag: sorted(k for k in catalog if not k.startswith("_") and k not in used) for tag, catalog in CATALOGS.items()}
    assert not any(unused.values()), {tag: keys for tag, keys in unused.items() if keys}


def test_every_catalog_says_how_it_was_made():
    for tag, catalog in CATALOGS.items():
        about = catalog.get("_meta", {}).get("about", "")
        assert about, f"{tag}.json has no _meta.about"
        if tag != "en":
            assert "AI model" in about and "review" in about, f"{tag}.json: {about!r}"


def test_translations_keep_the_placeholders():
    """Each string (each form of a plural) has the English entry's placeholders; a plural's `one`
    or `two` form may spell its number out instead of {count}."""
    wrong = []
    for key, english in CATALOGS["en"].items():
        if key.startswith("_"):
            continue
        expected = placeholders(english)
        for tag, catalog in CATALOGS.items():
            entry = catalog[key]
            if isinstance(entry, dict) != isinstance(english, dict):
                wrong.append(f"{tag} {key}: plural in one catalog, not in the other")
                continue
            forms = entry if isinstance(entry, dict) else {"": entry}
            for form, text in forms.items():
                found = set(PLACEHOLDER.findall(text))
                spelt_out = form in ("one", "two") and found == expected - {"count"}
                if found != expected and not spelt_out:
                    wrong.append(f"{tag} {key}{'.' + form if form else ''}: {sorted(found)} for {sorted(expected)}")
    assert not wrong, "\n".join(wrong)


def test_plural_entries_have_their_languages_categories():
    wrong = []
    for tag, catalog in CATALOGS.items():
        for key, entry in catalog.items():
            if isinstance(entry, dict) and not key.startswith("_") and set(entry) != PLURAL_CATEGORIES[tag]:
                wrong.append(f"{tag} {key}: {sorted(entry)}, not {sorted(PLURAL_CATEGORIES[tag])}")
    assert not wrong, "\n".join(wrong)


class _VisibleText(html.parser.HTMLParser):
    """The text of a page that no data-i18n attribute covers: its text nodes outside <svg>,
    <script>, <style>, <title> and <kbd> and outside elements marked data-i18n or data-i18n-slot;
    and its title, aria-label, placeholder, alt and content attributes without a data-i18n-<name>."""

    SKIPPED = {"svg", "script", "style", "title", "kbd"}
    VOID = {"meta", "link", "input", "img", "br", "hr", "source", "use", "path", "circle", "rect"}
    READ_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "content")

    def __init__(self):
        super().__init__()
        self.stack = []   # (tag, whether its text is covered)
        self.found = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in self.READ_ATTRIBUTES:
            words = any(c.isalpha() for c in a.get(name) or "")
            if words and f"data-i18n-{name}" not in a and not (tag == "meta" and a.get("name") != "description"):
                self.found.append(f"<{tag}> {name}={a[name]!r}")
        if tag in self.VOID:
            return
        covered = (bool(self.stack) and self.stack[-1][1]) or tag in self.SKIPPED or "data-i18n" in a or "data-i18n-slot" in a
        self.stack.append((tag, covered))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        text = data.strip()
        words = set(re.findall(r"\w+", text))
        if text and any(c.isalpha() for c in text) and not (self.stack and self.stack[-1][1]) and not words <= NOT_TRANSLATED:
            self.found.append(repr(text))


def test_the_page_has_no_text_outside_the_catalogs():
    page = _VisibleText()
    page.feed((WEB / "index.html").read_text())
    assert not page.found, "text the catalogs do not cover:\n" + "\n".join(page.found)


# ---- in the browser (each test is skipped without Chromium and Selenium) ------------------------

#: The labels, titles and headings measured besides the layout probe's usual items.
TEXT_ITEMS = ITEMS + ", .topbar h1, .topbar label, .rail label, .assist h2, .assist label"


def catalog_text(tag, key):
    """What the page shows for a plain catalog key (its placeholders unfilled)."""
    return CATALOGS[tag][key]


def page_language(driver):
    return driver.execute_script("return [document.documentElement.lang, document.documentElement.dir, window.sketchwise.locale()]")


def layout_of_screen(driver, min_target):
    """What is wrong with the page's layout (bars, strip, object bar) and with each "more" menu opened."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    problems = layout_problems(layout(driver, items=TEXT_ITEMS), min_target)
    for button, menu in more_menus(driver):
        driver.find_element("id", button).click()
        wait_for(lambda: driver.execute_script("return !document.getElementById(arguments[0]).hidden", menu), 5, message=f"#{menu} open")
        problems += [f"in #{menu}: {p}" for p in layout_problems(layout(driver, within=f"#{menu}"), min_target)]
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: driver.execute_script("return document.getElementById(arguments[0]).hidden", menu), 5, message=f"#{menu} closed")
    return problems


@pytest.mark.parametrize("tag", LOCALES)
def test_the_app_speaks(tag, driver, server, known_drawing):
    cls, record, _ = known_drawing
    open_app(driver, server.base, lang=tag)
    assert page_language(driver) == [tag, "rtl" if tag == "he" else "ltr", tag]
    categories = driver.execute_script("return new Intl.PluralRules(arguments[0]).resolvedOptions().pluralCategories", tag)
    assert set(categories) == PLURAL_CATEGORIES[tag], f"Chromium's plural categories of {tag}: {categories}"
    driver.execute_script("localStorage.setItem('sketchwise.firstRunDone', '1')")

    # The guesses: the server's names in the language, the English label kept for the program.
    draw_in_clear_band(driver, record)
    wait_for(lambda: cls in guess_labels(driver), 60, message=f"{cls!r} among the guesses")
    guess = next(g for g in driver.execute_script("return window.sketchwise.guesses()") if g["label"] == cls)
    assert guess.get("display"), f"the server gave no display name: {guess}"
    chip = driver.execute_script("const b = document.querySelector(`#guesses button[data-label='${arguments[0]}']`);"
                                 "return b.firstChild.textContent", cls)
    assert chip == guess["display"], f"the chip shows {chip!r}, not the server's {guess['display']!r}"
    if tag != "en":
        assert chip != cls, f"{tag}: {cls!r} is not named in the language"

    # The manifest an install prompt reads is the server's, in the language.
    def manifest():
        found = driver.execute_cdp_cmd("Page.getAppManifest", {})
        ours = found.get("url", "").endswith(f"/manifest.webmanifest?lang={tag}") and found.get("data")
        return json.loads(found["data"]) if ours else None
    wait_for(manifest, 10, message=f"the manifest in {tag}")
    assert manifest()["lang"] == tag and manifest()["description"] == catalog_text(tag, "app.description")

    # The page's words are the catalog's.
    assert driver.find_element("css selector", "#tool-select span").get_attribute("textContent") == catalog_text(tag, "tool.select")
    assert driver.find_element("id", "assist-title").get_attribute("textContent") == catalog_text(tag, "strip.title.guesses")
    assert driver.find_element("id", "undo").get_attribute("title") == catalog_text(tag, "edit.undo.title")
    assert driver.find_element("id", "picture-search").get_attribute("placeholder") == catalog_text(tag, "search.placeholder")
    assert driver.find_element("id", "status").text == catalog_text(tag, "status.connected")

    # A picture placed and selected brings up the object bar, measured with the rest.
    wait_for(lambda: driver.execute_script("const a = document.getElementById('assist').dataset;"
                                           "return a.pending === 'false' && a.stale === 'false'"), 30, message="the strip settled")
    driver.execute_script("document.querySelector(`#suggestions button[data-label='${arguments[0]}'], #suggestions button[data-id]`)"
                          ".click()", cls)
    wait_for(lambda: attr_int(driver, "data-picture-count") == 1, 20, message="the picture placed")
    driver.execute_script("window.sketchwise.select(window.sketchwise.objects().find((o) => o.type === 'picture').id)")
    wait_for(lambda: driver.find_element("id", "object-bar").is_displayed(), 5, message="the object bar")

    problems = layout_of_screen(driver, MOUSE_TARGET)
    save_screenshot(driver, f"locales/{tag}.png")
    touch = emulate(driver, 390, 844)
    wait_for(lambda: driver.execute_script("return innerWidth") == 390, 5, message="the phone's width")
    driver.execute_script("return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    problems += [f"phone: {p}" for p in layout_of_screen(driver, TOUCH_TARGET if touch else MOUSE_TARGET)]
    save_screenshot(driver, f"locales/{tag}-phone.png")
    print(f"\n[locales] {tag}: {cls} is {chip!r}; {len(problems)} layout problems", file=sys.stderr)
    assert not problems, f"{tag}:\n  " + "\n  ".join(problems)


def test_hebrew_mirrors_the_page_but_not_the_canvas(driver, static_base):
    open_app(driver, static_base, expect_state=None, lang="he")
    assert page_language(driver) == ["he", "rtl", "he"]
    boxes = driver.execute_script("""
      const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return {left: r.left, right: r.right}; };
      return {rail: box('.rail'), canvas: box('#canvas'), title: box('#assist-title'), style: box('#style'), width: innerWidth,
              direction: getComputedStyle(document.getElementById('canvas')).direction};""")
    assert abs(boxes["rail"]["right"] - boxes["width"]) <= 1 and boxes["rail"]["left"] >= boxes["canvas"]["right"] - 1, \
        f"the rail is on the right edge: {boxes}"
    assert boxes["title"]["left"] > boxes["style"]["right"], f"the strip starts on the right: {boxes}"
    assert boxes["direction"] == "ltr", "the canvas keeps left to right"

    # A stroke drawn left to right stays so: its points run rightwards, where the pointer went.
    rect = canvas_rect(driver)
    y = rect["h"] * 0.7
    start, end = (rect["w"] * 0.25, y), (rect["w"] * 0.45, y)
    draw(driver, [([start, end], [0, 300])], rect)
    (xs, ys, _), = driver.execute_script("return window.sketchwise.strokes()")
    assert xs[-1] > xs[0], f"the stroke runs leftwards: {xs}"
    first = driver.execute_script("return window.sketchwise.clientPoint(arguments[0], arguments[1])", xs[0], ys[0])
    assert abs(first["x"] - (rect["x"] + start[0])) <= 2 and abs(first["y"] - (rect["y"] + y)) <= 2, f"drawn at {first}"
    band = {"y": y - 8, "h": 16, "w": 40}
    assert ink_pixels(driver, {**band, "x": start[0] - 4}) > 0, "ink where the stroke began"
    assert ink_pixels(driver, {**band, "x": rect["w"] - start[0] - 36}) == 0, "no ink where a mirror would put it"

    # The tools' keys work with a Hebrew keyboard, whose V key types "ה".
    key = "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0], code: arguments[1], bubbles: true}))"
    driver.execute_script("document.activeElement.blur()")
    driver.execute_script(key, "ה", "KeyV")
    assert driver.find_element("id", "tool-select").get_attribute("aria-pressed") == "true"
    driver.execute_script(key, "ש", "KeyA")
    assert driver.find_element("id", "tool-autodraw").get_attribute("aria-pressed") == "true"
    driver.execute_script(key, "ם", "KeyO")
    assert driver.find_element("id", "scene-mode").get_attribute("aria-pressed") == "true"
    save_screenshot(driver, "locales/he-drawn.png")


def test_hebrew_text_reads_right_to_left_where_it_is_typed_drawn_and_exported(driver, static_base):
    """The Text tool's editor takes the direction of what is typed (dir="auto"), and the canvas and
    the SVG export order the text as the editor did: "א" and eight full stops read right to left
    put the letter at the right end, the stops after it on its left."""
    open_app(driver, static_base, expect_state=None, lang="he")
    rect = canvas_rect(driver)
    driver.find_element("id", "tool-text").click()
    click_at(driver, (rect["x"] + 200, rect["y"] + 300))
    editor = driver.find_element("id", "text-editor")
    editor.send_keys("א........")
    assert driver.execute_script("return getComputedStyle(arguments[0]).direction", editor) == "rtl"
    press(driver, "ENTER")
    text = driver.execute_script("return window.sketchwise.objects()")[-1]
    assert text["type"] == "text" and text["text"] == "א........", text
    client_point = "return window.sketchwise.clientPoint(arguments[0], arguments[1])"
    a = driver.execute_script(client_point, text["x"], text["y"])
    b = driver.execute_script(client_point, text["x"] + text["w"], text["y"] + text["h"])
    # The letter's height is ink; the stops sit low. Look at the top half of each end of the box.
    quarter, half = (b["x"] - a["x"]) / 4, (b["y"] - a["y"]) / 2
    top = {"y": a["y"] - rect["y"], "h": half * 0.8, "w": quarter}
    left = ink_pixels(driver, {**top, "x": a["x"] - rect["x"]})
    right = ink_pixels(driver, {**top, "x": b["x"] - rect["x"] - quarter})
    assert right > 20 and left == 0, f"the letter is drawn at the right end (ink at the top: left {left}, right {right})"
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    assert 'direction="rtl" text-anchor="end"' in svg, svg
    save_screenshot(driver, "locales/he-text.png")

    # English typed in the Hebrew app keeps left to right.
    click_at(driver, (rect["x"] + 200, rect["y"] + 420))
    editor.send_keys("cat")
    assert driver.execute_script("return getComputedStyle(arguments[0]).direction", editor) == "ltr"


@pytest.mark.parametrize("tag,query,phone", [("fr", "chat", False), ("ja", "猫", False), ("he", "חתול", True)])
def test_a_picture_found_by_its_name_is_placed(tag, query, phone, driver, server):
    if phone:   # where the field folds into its magnifier until it is used
        emulate(driver, 390, 844)
    open_app(driver, server.base, lang=tag)
    field = driver.find_element("id", "picture-search")
    if phone:
        assert field.size["width"] <= TOUCH_TARGET + 1, f"folded: {field.size}"
        field.click()
        wait_for(lambda: field.size["width"] > 200, 5, message="the field unfolded")
    field.send_keys(query)
    wait_for(lambda: driver.find_elements("css selector", "#assist[data-searching='true'] #suggestions button[data-id]"), 30,
             message=f"pictures found for {query!r}")
    found = driver.execute_script("return [...document.querySelectorAll('#suggestions button[data-id]')].map((b) => b.dataset.label)")
    assert "cat" in found, f"{query!r} in {tag} found {found}"
    assert driver.find_element("id", "assist-title").get_attribute("textContent") == catalog_text(tag, "search.found")
    assert driver.find_element("id", "tool-autodraw").get_attribute("aria-pressed") == "true", "typing picked no tool"
    save_screenshot(driver, f"locales/{tag}-search{'-phone' if phone else ''}.png")

    driver.find_element("css selector", '#suggestions button[data-label="cat"]').click()
    wait_for(lambda: attr_int(driver, "data-picture-count") == 1, 10, message="the picture placed")
    (placed,) = driver.execute_script("return window.sketchwise.pictures()")
    assert placed["label"] == "cat"
    assert placed["displayTitle"] and placed["displayTitle"] != placed["title"], f"the picture's name in {tag}: {placed}"
    svg = driver.execute_async_script("const done = arguments[arguments.length - 1]; window.sketchwise.svg().then(done);")
    assert f"<title>{html.escape(placed['displayTitle'], quote=False)}</title>" in svg, "the SVG export names it in the language"
    rect = canvas_rect(driver)
    centre = driver.execute_script("return window.sketchwise.clientPoint(arguments[0], arguments[1])",
                                   placed["x"] + placed["w"] / 2, placed["y"] + placed["h"] / 2)
    assert rect["x"] < centre["x"] < rect["x"] + rect["w"] and rect["y"] < centre["y"] < rect["y"] + rect["h"], "placed in view"
    assert field.get_attribute("value") == "", "the search is done with"

    # Cleared, the strip follows the drawing again.
    field.send_keys("x")
    wait_for(lambda: driver.execute_script("return document.getElementById('assist').dataset.searching") == "true", 5, message="searching")
    field.clear()
    field.send_keys(" ")
    wait_for(lambda: driver.execute_script("return document.getElementById('assist').dataset.searching") == "false", 5,
             message="the guesses back")


def test_the_language_picker_switches_at_once_and_is_kept(driver, static_base):
    from selenium.webdriver.support.ui import Select

    open_app(driver, static_base, expect_state=None, lang="fr")
    assert page_language(driver)[0] == "fr"
    rect = canvas_rect(driver)
    draw(driver, [([(rect["w"] * 0.3, rect["h"] * 0.6), (rect["w"] * 0.6, rect["h"] * 0.65)], [0, 200]),
                  ([(rect["w"] * 0.3, rect["h"] * 0.7), (rect["w"] * 0.6, rect["h"] * 0.75)], [0, 200])], rect)
    strokes = driver.execute_script("return window.sketchwise.strokes()")
    options = driver.execute_script("return [...document.querySelectorAll('#language option')].map((o) => [o.value, o.textContent])")
    assert dict(options) == {"en": "English", "zh-Hans": "简体中文", "he": "עברית", "es": "Español", "fr": "Français",
                             "de": "Deutsch", "ja": "日本語"}

    Select(driver.find_element("id", "language")).select_by_value("de")
    wait_for(lambda: page_language(driver)[0] == "de", 5, message="the page in German")
    assert driver.find_element("css selector", "#tool-select span").get_attribute("textContent") == catalog_text("de", "tool.select")
    wait_for(lambda: driver.find_element("id", "status").text == catalog_text("de", "status.offline"), 10, message="the status in German")
    assert driver.find_element("id", "zoom-value").text.replace("\u00a0", " ") == "100 %", "numbers as German writes them"
    assert driver.execute_script("return window.sketchwise.strokes()") == strokes, "the drawing stays"
    assert "lang=" not in driver.current_url, "the address's ?lang= gives way to the choice"
    assert driver.execute_script("return localStorage.getItem('sketchwise.lang')") == "de"

    driver.refresh()
    wait_for(lambda: driver.execute_script("return !!window.sketchwise"), 15, message="the app again")
    assert page_language(driver) == ["de", "ltr", "de"]
    assert driver.execute_script("return document.getElementById('language').value") == "de"
    assert driver.execute_script("return window.sketchwise.strokes()") == strokes, "the drawing came back"

    Select(driver.find_element("id", "language")).select_by_value("he")
    wait_for(lambda: page_language(driver) == ["he", "rtl", "he"], 5, message="the page in Hebrew, right to left")
    assert driver.find_element("id", "undo").get_attribute("title") == catalog_text("he", "edit.undo.title")


@pytest.mark.parametrize("languages,expected", [
    (["fr-CA", "en"], "fr"), (["zh-CN"], "zh-Hans"), (["zh-SG"], "zh-Hans"), (["zh-Hans-HK"], "zh-Hans"), (["zh"], "zh-Hans"),
    (["zh-TW", "ja-JP"], "ja"), (["iw"], "he"), (["de-AT"], "de"), (["pt-BR", "es-MX"], "es"), (["pt-BR", "ko"], "en"),
])
def test_the_browsers_languages_choose_the_default(languages, expected, driver, static_base):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        f"Object.defineProperty(navigator, 'languages', {{get: () => {json.dumps(languages)}}});"
        f"Object.defineProperty(navigator, 'language', {{get: () => {json.dumps(languages[0])}}});")})
    open_app(driver, static_base, expect_state=None)
    assert page_language(driver)[0] == expected, f"{languages} → {page_language(driver)}"


def test_the_app_opens_offline_in_its_language(driver, tmp_path_factory, server):
    srv = start_server(tmp_path_factory, server.data_dir, name="offline-locale-server")
    stopped = False
    try:
        open_app(driver, srv.base, lang="he")
        wait_for(lambda: shell_kept(driver, ["app.js", "i18n.js", "locales/he.json", "locales/en.json"]), 30,
                 message="the page and the Hebrew catalog kept by the service worker")
        stop_server(srv)
        stopped = True
        driver.refresh()
        open_app(driver, srv.base, expect_state="offline", lang="he")
        assert page_language(driver) == ["he", "rtl", "he"]
        assert driver.find_element("id", "status").text == catalog_text("he", "status.offline")
        assert driver.find_element("id", "offline-banner").is_displayed()
        save_screenshot(driver, "locales/he-offline.png")
    finally:
        if not stopped:
            stop_server(srv)
