"""The API in the languages it speaks: `display` names beside the stable English labels, chosen by
`lang` (body, query, live message), else `Accept-Language`; the picture search by name; the list
of locales. Against the real binary on 127.0.0.1 (conftest.py's server)."""

import csv
import json
import re
import urllib.parse
from pathlib import Path

import pytest
from minimal_ws import WebSocket

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "Sources" / "SketchwiseLocalization" / "Resources" / "class-names"
CLDR = Path("/usr/share/unicode/cldr/common/annotations")
LOCALES = ["en", "zh-Hans", "he", "es", "fr", "de", "ja"]


def class_names(tag):
    """The class-name table of a locale: label → name (English: the labels themselves)."""
    if tag == "en":
        return None
    with open(TABLES / f"{tag}.tsv", encoding="utf-8") as f:
        return {row["label"]: row["name"] for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}


def cldr_names(language):
    """CLDR's short names of the emoji in one language's annotation file (emoji without FE0F)."""
    names = {}
    pattern = re.compile(r'<annotation cp="([^"]+)" type="tts">([^<]+)</annotation>')
    for emoji, name in pattern.findall((CLDR / f"{language}.xml").read_text(encoding="utf-8")):
        names[emoji.replace("\ufe0f", "")] = name.strip()
    return names


def check_named(guesses, tag):
    """Every guess has its class's name in `tag` as `display`."""
    names = class_names(tag)
    for guess in guesses:
        expected = guess["label"] if names is None else names[guess["label"]]
        assert guess["display"] == expected, f"{tag}: {guess}"


def test_locales_lists_every_language_with_its_direction(server):
    status, headers, data = server.get("/api/locales")
    assert status == 200, data
    locales = json.loads(data)["locales"]
    assert [loc["tag"] for loc in locales] == LOCALES
    assert {loc["tag"]: loc["direction"] for loc in locales}["he"] == "rtl"
    assert all(loc["direction"] == "ltr" for loc in locales if loc["tag"] != "he")
    assert len({loc["name"] for loc in locales}) == len(LOCALES)


@pytest.mark.parametrize("tag", LOCALES)
def test_guesses_are_named_in_the_language_of_lang(server, known_drawing, tag):
    _, rec, _ = known_drawing
    status, body, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "lang": tag})
    assert status == 200, raw
    check_named(body["guesses"], tag)
    if tag != "en":
        assert any(g["display"] != g["label"] for g in body["guesses"]), "no guess was translated"


def test_accept_language_chooses_when_the_body_does_not(server, known_drawing):
    _, rec, _ = known_drawing
    body = {"strokes": rec["drawing"]}
    for header, tag in [("ja-JP,ja;q=0.9,en;q=0.5", "ja"), ("pt-BR, de;q=0.8", "de"), ("zh-CN", "zh-Hans"), ("ko", "en")]:
        status, answer, _, raw = server.post_json("/api/classify", body, headers={"Accept-Language": header})
        assert status == 200, raw
        check_named(answer["guesses"], tag)
    status, answer, _, raw = server.post_json("/api/classify", {**body, "lang": "he"}, headers={"Accept-Language": "fr"})
    check_named(answer["guesses"], "he")
    status, answer, _, raw = server.post_json("/api/classify", {**body, "lang": "pt"}, headers={"Accept-Language": "es"})
    check_named(answer["guesses"], "es")


@pytest.mark.parametrize("lang", [7, ["fr"], "x" * 36])
def test_a_lang_that_is_not_a_short_string_is_400(server, known_drawing, lang):
    _, rec, _ = known_drawing
    status, body, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "lang": lang})
    assert status == 400, raw
    assert body["error"]["code"] == "bad_request" and "lang" in body["error"]["message"]


@pytest.mark.skipif(not (CLDR / "fr.xml").exists(), reason="Debian's unicode-cldr-core is not installed")
def test_suggestions_name_classes_and_emoji_pictures_in_the_language(server, known_drawing):
    _, rec, _ = known_drawing
    status, body, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "lang": "fr", "style": "emoji"})
    assert status == 200, raw
    check_named(body["guesses"], "fr")
    names, french = class_names("fr"), cldr_names("fr")
    emoji_pictures = [s for s in body["suggestions"] if s["source"] == "emoji"]
    assert emoji_pictures, "the emoji style gave no emoji picture"
    for s in body["suggestions"]:
        assert s["display"] == names[s["label"]], s
        if s["source"] == "emoji":
            emoji = chr(int(s["id"].split("U+", 1)[1], 16))
            assert s["displayTitle"] == french.get(emoji, names[s["label"]]), s
    status, english, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "style": "emoji"})
    assert all(s["displayTitle"] == s["title"] and s["display"] == s["label"] for s in english["suggestions"])


def search(server, query, **params):
    path = "/api/pictures/search?" + urllib.parse.urlencode({"q": query, **params})
    status, headers, data = server.get(path)
    return status, json.loads(data)


@pytest.mark.parametrize("tag, label", [("fr", "cat"), ("de", "cat"), ("ja", "cat"), ("zh-Hans", "bicycle"), ("he", "house"),
                                        ("es", "tree"), ("en", "apple")])
def test_search_finds_pictures_by_their_class_name_in_the_language(server, tag, label):
    names = class_names(tag)
    query = label if names is None else names[label]
    status, body = search(server, query, lang=tag)
    assert status == 200, body
    assert body["query"] == query
    assert body["suggestions"], f"nothing found for {query!r} in {tag}"
    assert body["suggestions"][0]["label"] == label, body["suggestions"][0]
    check_named([{"label": s["label"], "display": s["display"]} for s in body["suggestions"]], tag)
    assert len(body["suggestions"]) <= 12
    status, body = search(server, query.upper(), lang=tag, limit=3, style="emoji")
    assert status == 200 and len(body["suggestions"]) <= 3
    assert all(s["source"] == "emoji" for s in body["suggestions"] if s["label"] == label)


def test_search_of_nothing_finds_nothing_and_bad_options_are_400(server):
    assert search(server, "   ")[1]["suggestions"] == []
    assert search(server, "qqqxqqq")[1]["suggestions"] == []
    for params in [{"limit": 0}, {"limit": 49}, {"style": "neon"}]:
        status, body = search(server, "cat", **params)
        assert status == 400 and body["error"]["code"] == "bad_request", params
    status, body = search(server, "c" * 101)
    assert status == 400 and "100" in body["error"]["message"]


def test_live_answers_in_the_handshake_language_then_a_messages_lang(server, known_drawing):
    _, rec, _ = known_drawing
    with WebSocket(server.host, server.port, "/api/live?lang=he", timeout=60) as conn:
        assert conn.status == 101
        conn.send_json({"type": "sketch", "seq": 1, "strokes": rec["drawing"]})
        msg = conn.recv_until(lambda m: m.get("seq") == 1 and m.get("type") in ("result", "error"), 60)[-1]
        assert msg["type"] == "result", msg
        check_named(msg["guesses"], "he")
        conn.send_json({"type": "sketch", "seq": 2, "strokes": rec["drawing"], "lang": "es"})
        msg = conn.recv_until(lambda m: m.get("seq") == 2 and m.get("type") in ("result", "error"), 60)[-1]
        check_named(msg["guesses"], "es")
        conn.send_json({"type": "sketch", "seq": 3, "strokes": rec["drawing"], "lang": "pt"})
        msg = conn.recv_until(lambda m: m.get("seq") == 3 and m.get("type") in ("result", "error"), 60)[-1]
        check_named(msg["guesses"], "es")
        conn.send_json({"type": "sketch", "seq": 4, "strokes": rec["drawing"], "lang": 5})
        msg = conn.recv_until(lambda m: m.get("seq") == 4 and m.get("type") in ("result", "error"), 60)[-1]
        assert msg["type"] == "error" and msg["error"]["code"] == "bad_request"
