"""The HTTP and WebSocket API of `sketchwise serve` against docs/api.md, over real sockets, with the
Python standard library only (minimal_ws.py is the WebSocket client).

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_api.py
"""

import json
import struct
import sys
import time
import urllib.parse

import pytest

from conftest import PICTURES, REPO
from minimal_ws import ConnectionClosed, WebSocket

ERROR_STATUS = {"bad_request": 400, "too_large": 413, "not_found": 404, "method_not_allowed": 405, "unsupported_media_type": 415,
                "rate_limited": 429, "timeout": 503, "internal": 500}
SUGGESTION_FIELDS = {"id", "label", "display", "score", "source", "title", "displayTitle", "image", "thumbnail", "width", "height"}


# ---- helpers ---------------------------------------------------------------------------------


def assert_error(status, body, raw, *statuses):
    """An error answer: one of `statuses`, JSON {"error": {"code", "message"}} with the matching code."""
    assert status in statuses, f"expected {statuses}, got {status}: {raw[:300]!r}"
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), f"not an error object: {raw[:300]!r}"
    code, message = body["error"].get("code"), body["error"].get("message")
    assert ERROR_STATUS.get(code) == status, f"code {code!r} does not go with status {status}"
    assert isinstance(message, str) and message, "error.message must be a non-empty string"


def get_json(server, path):
    status, headers, data = server.get(path)
    return status, (json.loads(data) if data and headers.get("content-type", "").startswith("application/json") else None), headers, data


def check_guesses(guesses, top=None):
    assert isinstance(guesses, list)
    if top is not None:
        assert len(guesses) == top, f"expected {top} guesses, got {len(guesses)}"
    probs = []
    for g in guesses:
        assert set(g) >= {"label", "display", "probability"}
        assert isinstance(g["label"], str) and g["label"] and isinstance(g["display"], str) and g["display"]
        assert 0.0 <= g["probability"] <= 1.0
        probs.append(g["probability"])
    assert probs == sorted(probs, reverse=True), "guesses must be most probable first"
    assert len({g["label"] for g in guesses}) == len(guesses), "labels repeat"


def check_suggestions(suggestions, guesses, labels=4, per_label=6):
    # Suggestions are for the top `labels` guessed labels; the response lists fewer guesses than
    # that when labels > 5 (the default top), so only then can their labels be checked here.
    allowed = [g["label"] for g in guesses[:labels]] if labels <= len(guesses) else None
    per = {}
    for s in suggestions:
        assert set(s) >= SUGGESTION_FIELDS, f"missing fields: {SUGGESTION_FIELDS - set(s)}"
        assert s["source"] in ("clipart", "emoji", "openmoji", "lucide", "tabler", "doodle")
        assert s["id"].startswith(s["source"] + ":"), s["id"]
        assert allowed is None or s["label"] in allowed, f"suggestion for {s['label']!r}, not one of the top {labels} guesses {allowed}"
        enc = urllib.parse.quote(s["id"], safe="")
        assert s["image"] == f"/api/library/{enc}/image", s["image"]
        assert s["thumbnail"] == f"/api/library/{enc}/thumbnail", s["thumbnail"]
        assert isinstance(s["width"], int) and isinstance(s["height"], int)
        assert 1 <= s["width"] <= 96 and 1 <= s["height"] <= 96 and max(s["width"], s["height"]) == 96, (s["width"], s["height"])
        assert isinstance(s["title"], str) and isinstance(s["score"], (int, float))
        per[s["label"]] = per.get(s["label"], 0) + 1
    assert all(n <= per_label for n in per.values()), f"more than perLabel={per_label} per label: {per}"
    assert len({s["id"] for s in suggestions}) == len(suggestions), "an id repeats"


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack("!II", data[16:24])


def dot(x, y):
    return [[x], [y], [0]]


def ws(server, timeout=60):
    return WebSocket(server.host, server.port, "/api/live", timeout=timeout)


# ---- service ---------------------------------------------------------------------------------


def test_health(server):
    status, body, headers, raw = get_json(server, "/api/health")
    assert status == 200, raw
    assert body["status"] == "ok"
    assert set(body["models"]) >= {"raster", "strokes", "ensemble"}
    assert isinstance(body["library"]["items"], int) and body["library"]["items"] > 0
    print(f"\n[health] {body}", file=sys.stderr)


def test_limits_are_the_ones_the_server_enforces(server):
    status, limits, _, raw = get_json(server, "/api/limits")
    assert status == 200, raw
    assert set(limits) == {"strokes", "points", "messageBytes", "messagesPerSecond"}, limits
    dot = [[0], [0]]
    status, _, _, raw = server.post_json("/api/classify", {"strokes": [dot] * limits["strokes"]})
    assert status == 200, raw
    status, body, _, raw = server.post_json("/api/classify", {"strokes": [dot] * (limits["strokes"] + 1)})
    assert status == 413 and body["error"]["code"] == "too_large", raw


def test_openapi_served_and_parses(server):
    status, headers, data = server.get("/api/openapi.yaml")
    assert status == 200
    assert "yaml" in headers.get("content-type", "") or "text/" in headers.get("content-type", ""), headers.get("content-type")
    local = (REPO / "Sources" / "SketchwiseServer" / "Web" / "openapi.yaml").read_bytes()
    assert data == local, "the served document is not Web/openapi.yaml"
    text = data.decode()
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml:
        doc = yaml.safe_load(text)
        assert str(doc["openapi"]).startswith("3.1")
        paths = set(doc["paths"])
    else:
        assert text.startswith("openapi: 3.1")
        paths = {p for p in DOCUMENTED_PATHS if f"\n  {p}:" in text}
    assert paths >= DOCUMENTED_PATHS


DOCUMENTED_PATHS = {"/api/classify", "/api/suggest", "/api/library/{id}/image", "/api/library/{id}/thumbnail", "/api/library/{id}/vector",
                    "/api/health", "/api/models", "/api/openapi.yaml", "/api/live", "/api/users", "/api/users/me", "/api/shortcuts",
                    "/api/shortcuts/predict", "/api/shortcuts/misfires", "/api/shortcuts/{label}", "/api/corrections", "/api/photo"}


def test_models_lists_the_bundled_models_with_checksums_and_roles(server):
    import hashlib
    status, _, data = server.get("/api/models")
    assert status == 200, data
    body = json.loads(data)
    assert body["broken"] == []
    models = {m["name"]: m for m in body["models"]}
    weights = (REPO / "Models" / "raster-cnn.safetensors").read_bytes()
    assert models["raster-cnn"]["sha256"] == hashlib.sha256(weights).hexdigest()
    assert "raster" in models["raster-cnn"]["roles"] and models["sketch-embedding"]["roles"] == ["embedding"]
    assert models["stroke-rnn"]["input"] == "strokes" and models["raster-cnn"]["source"] == "bundled"


def test_web_app_files(server):
    status, headers, data = server.get("/")
    assert status == 200 and headers.get("content-type", "").startswith("text/html")
    assert b"Sketchwise" in data and b'id="canvas"' in data
    # The credits are worded by each language's catalog; the page holds their links.
    assert b'<p class="credits" data-i18n="credits.text">' in data
    assert b'<a data-i18n-slot="tabler" href="https://tabler.io/icons">Tabler Icons</a>' in data
    for tag in ("en", "zh-Hans", "he", "es", "fr", "de", "ja"):
        status, _, catalog = server.get(f"/locales/{tag}.json")
        assert status == 200, tag
        credits = json.loads(catalog)["credits.text"]
        for part in ("{openmoji} (CC BY-SA 4.0)", "{lucide} (ISC)", "{tabler} (MIT)", "Open Clip Art Library",
                     "Noto Color Emoji (SIL OFL 1.1)", "Quick, Draw!", "CC BY 4.0"):
            assert part in credits, f"{tag}: {part!r} is missing from the credits: {credits!r}"
    for name, kind in (("app.js", "javascript"), ("canvas.js", "javascript"), ("live.js", "javascript"),
                       ("style.css", "text/css"), ("index.html", "text/html")):
        status, headers, data = server.get("/" + name)
        assert status == 200, name
        assert kind in headers.get("content-type", ""), \
            f"/{name} served as {headers.get('content-type')!r} (ES modules need a JavaScript type)"
        assert data == (REPO / "Sources" / "SketchwiseServer" / "Web" / name).read_bytes()


def test_unknown_api_path_is_404_json(server):
    status, body, _, raw = get_json(server, "/api/nope")
    assert_error(status, body, raw, 404)


# ---- classify --------------------------------------------------------------------------------


def test_classify_real_drawing(server, known_drawing):
    cls, rec, _ = known_drawing
    status, body, headers, raw = server.post_json("/api/classify", {"strokes": rec["drawing"]})
    assert status == 200, raw
    assert headers.get("content-type", "").startswith("application/json")
    assert body["model"] == "ensemble"
    check_guesses(body["guesses"], top=5)
    assert cls in [g["label"] for g in body["guesses"]]
    for model in ("raster", "strokes", "ensemble"):
        status, body, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "model": model, "top": 3})
        assert status == 200, raw
        assert body["model"] == model
        check_guesses(body["guesses"], top=3)
    for top in (1, 20):
        status, body, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "top": top})
        assert status == 200, raw
        check_guesses(body["guesses"], top=top)


def test_classify_without_t_and_with_floats(server, known_drawing):
    _, rec, _ = known_drawing
    no_t = [[s[0], s[1]] for s in rec["drawing"]]
    floats = [[[x * 0.37 + 0.25 for x in s[0]], [y * 0.37 - 1000.5 for y in s[1]]] for s in rec["drawing"]]
    base = server.post_json("/api/classify", {"strokes": rec["drawing"], "model": "raster"})[1]
    for strokes in (no_t, floats):
        status, body, _, raw = server.post_json("/api/classify", {"strokes": strokes, "model": "raster"})
        assert status == 200, raw
        assert body["guesses"][0]["label"] == base["guesses"][0]["label"], "scale/offset must not change the raster guess"


@pytest.mark.parametrize("payload", [
    {"strokes": [[[0, 10], [0, 10]]], "top": 0},
    {"strokes": [[[0, 10], [0, 10]]], "top": 21},
    {"strokes": [[[0, 10], [0, 10]]], "top": "5"},
    {"strokes": [[[0, 10], [0, 10]]], "model": "gpt"},
    {"strokes": [[[0, 10], [0, 10]]], "model": "sketch-embedding"},   # a model of the server, but no guesses
    {"strokes": "cat"},
    {"strokes": [[[0, 10], [0]]]},                         # x and y lengths differ
    {"strokes": [[[0, 10], [0, 10], [0]]]},                # t length differs
    {"strokes": [[[0, 10]]]},                              # no y
    {"strokes": [[["a", "b"], [0, 10]]]},
    {"strokes": [[[0, 1e10], [0, 10]]]},                   # |v| > 1e9
    {"strokes": [[[0, -1.5e9], [0, 10]]]},
    {},                                                    # no strokes at all
], ids=["top0", "top21", "top-string", "bad-model", "embedding-model", "strokes-string", "xy-mismatch", "t-mismatch", "no-y",
        "strings", "huge", "huge-negative", "missing"])
def test_classify_bad_request(server, payload):
    status, body, _, raw = server.post_json("/api/classify", payload)
    assert_error(status, body, raw, 400)


def test_bad_requests_say_what_is_wrong(server):
    """A member of the wrong kind is said as such (not as missing); strokes are counted from 0."""
    for payload, said in (({"strokes": "cat"}, '"strokes" must be a list of strokes [[x…],[y…]] or [[x…],[y…],[t…]], not a string'),
                          ({}, 'missing "strokes"'),
                          ({"strokes": [[[1], [2]], [[], []]]}, "stroke 1 has no points")):
        status, body, _, raw = server.post_json("/api/classify", payload)
        assert_error(status, body, raw, 400)
        assert said in body["error"]["message"], body


@pytest.mark.parametrize("text", [
    "{not json",
    '{"strokes": [[[NaN, 1], [1, 2]]]}',
    '{"strokes": [[[Infinity, 1], [1, 2]]]}',
    '{"strokes": [[[1e400, 1], [1, 2]]]}',                  # overflows to infinity
    "",
    "[1, 2, 3]",
], ids=["malformed", "nan", "infinity", "1e400", "empty-body", "array"])
def test_classify_malformed_json(server, text):
    status, headers, data = server.request("POST", "/api/classify", body=text, headers={"Content-Type": "application/json"})
    body = json.loads(data) if data else None
    assert_error(status, body, data, 400)


def test_classify_limit_boundaries_are_accepted(server):
    ok = [dot(i % 100, i // 100) for i in range(256)]
    status, _, _, raw = server.post_json("/api/classify", {"strokes": ok})
    assert status == 200, f"256 strokes must be accepted: {raw[:200]!r}"
    pts = list(range(20000))
    status, _, _, raw = server.post_json("/api/classify", {"strokes": [[[p % 500 for p in pts], [p // 500 for p in pts]]]})
    assert status == 200, f"20,000 points must be accepted: {raw[:200]!r}"
    status, _, _, raw = server.post_json("/api/classify", {"strokes": [[[0, 1e9], [-1e9, 0]]]})
    assert status == 200, f"|v| = 1e9 must be accepted: {raw[:200]!r}"
    # 20,000 points zig-zagging across the box: millions of units long once scaled (issue 14).
    zigzag = [[(i % 2) * 1000 for i in range(20000)], [i * 0.05 for i in range(20000)]]
    for path, model in [("/api/classify", "strokes"), ("/api/suggest", "strokes"), ("/api/suggest", None)]:
        status, _, _, raw = server.post_json(path, {"strokes": [zigzag], **({"model": model} if model else {})})
        assert status == 200, f"{path} ({model or 'default model'}): a legal 20,000-point zigzag must be accepted: {raw[:200]!r}"


def test_classify_too_many_strokes_or_points(server):
    status, body, _, raw = server.post_json("/api/classify", {"strokes": [dot(i, i) for i in range(257)]})
    assert_error(status, body, raw, 400, 413)
    print(f"\n[limits] 257 strokes → {status}", file=sys.stderr)
    pts = list(range(20001))
    status, body, _, raw = server.post_json("/api/classify", {"strokes": [[[p % 500 for p in pts], [p // 500 for p in pts]]]})
    assert_error(status, body, raw, 400, 413)
    print(f"[limits] 20,001 points → {status}", file=sys.stderr)
    split = [[[p % 500 for p in pts[:10001]], [0] * 10001], [[p % 500 for p in pts[:10000]], [1] * 10000]]
    status, body, _, raw = server.post_json("/api/classify", {"strokes": split})
    assert_error(status, body, raw, 400, 413)


def test_body_over_1_mib_is_413(server):
    pad = " " * (1024 * 1024 + 10)
    text = '{"strokes": [[[0, 10], [0, 10]]]' + pad + "}"
    for path in ("/api/classify", "/api/suggest"):
        status, headers, data = server.request("POST", path, body=text, headers={"Content-Type": "application/json"})
        body = json.loads(data) if data else None
        assert_error(status, body, data, 413)
    # Just under the limit is fine.
    text = '{"strokes": [[[0, 10], [0, 10]]]' + " " * (1024 * 1024 - 100) + "}"
    status, _, data = server.request("POST", "/api/classify", body=text, headers={"Content-Type": "application/json"})
    assert status == 200, data[:200]


def test_empty_sketch(server):
    """Not spelled out for HTTP in docs/api.md: an empty sketch is either 200 with no guesses (as the
    WebSocket's empty result) or a 400 bad_request. Report which."""
    for path in ("/api/classify", "/api/suggest"):
        status, body, _, raw = server.post_json(path, {"strokes": []})
        print(f"\n[empty] POST {path} strokes=[] → {status} {raw[:120]!r}", file=sys.stderr)
        if status == 200:
            assert body["guesses"] == []
            if path == "/api/suggest":
                assert body["suggestions"] == []
        else:
            assert_error(status, body, raw, 400)
        status, body, _, raw = server.post_json(path, {"strokes": [[[], []]]})
        print(f"[empty] POST {path} strokes=[[[],[]]] → {status} {raw[:120]!r}", file=sys.stderr)
        if status == 200:
            assert body["guesses"] == []
        else:
            assert_error(status, body, raw, 400)


# ---- suggest and library ---------------------------------------------------------------------


def test_suggest_real_drawing(server, known_drawing):
    cls, rec, _ = known_drawing
    status, body, headers, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"]})
    assert status == 200, raw
    check_guesses(body["guesses"])
    assert body["suggestions"], "no suggestions for a recognised drawing"
    check_suggestions(body["suggestions"], body["guesses"])
    assert cls in {s["label"] for s in body["suggestions"]}, f"no picture for {cls!r}"
    scores = [s["score"] for s in body["suggestions"]]
    print(f"\n[suggest] {cls}: {[(s['label'], s['id'], round(s['score'], 3)) for s in body['suggestions'][:8]]}", file=sys.stderr)
    assert scores == sorted(scores, reverse=True), f"suggestions are not ranked best first by score: {scores}"

    status, body, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "labels": 1, "perLabel": 2})
    assert status == 200, raw
    assert 1 <= len(body["suggestions"]) <= 2
    check_suggestions(body["suggestions"], body["guesses"], labels=1, per_label=2)
    status, body, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "labels": 10, "perLabel": 20})
    assert status == 200, raw
    check_suggestions(body["suggestions"], body["guesses"], labels=10, per_label=20)


def test_suggest_with_a_named_model(server, known_drawing):
    """`"model": "raster"` picks the guesses of the suggestions; the ranking embedding stays raster-cnn's."""
    _, rec, _ = known_drawing
    status, body, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "model": "raster", "labels": 3, "perLabel": 2})
    assert status == 200, raw
    check_suggestions(body["suggestions"], body["guesses"], labels=3, per_label=2)
    status, classified, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "model": "raster", "top": 5})
    assert status == 200, raw
    assert [g["label"] for g in body["guesses"]] == [g["label"] for g in classified["guesses"]]


@pytest.mark.parametrize("path", ["/api/classify", "/api/suggest"])
@pytest.mark.parametrize("model", ["no-such-model", "../Models/raster-cnn", ".hidden", "", 7],
                         ids=["unknown", "path", "hidden", "empty", "number"])
def test_unknown_model_is_400(server, path, model):
    status, body, _, raw = server.post_json(path, {"strokes": [[[0, 10], [0, 10]]], "model": model})
    assert_error(status, body, raw, 400)
    message = body["error"]["message"]
    assert "Models" not in message.replace("../Models/raster-cnn", "") and ".json" not in message, \
        f"the message must name no file or folder of the server: {message!r}"


@pytest.mark.parametrize("extra", [{"labels": 0}, {"labels": 11}, {"perLabel": 0}, {"perLabel": 21}, {"labels": 2.5}],
                         ids=["labels0", "labels11", "perLabel0", "perLabel21", "labels-float"])
def test_suggest_bad_request(server, extra):
    status, body, _, raw = server.post_json("/api/suggest", {"strokes": [[[0, 10], [0, 10]]], **extra})
    assert_error(status, body, raw, 400)


STYLE_SOURCES = {"line": {"openmoji", "lucide", "tabler", "doodle"}, "emoji": {"emoji"}, "clipart": {"clipart"},
                 "all": {"openmoji", "lucide", "tabler", "doodle", "emoji", "clipart"}}


def test_suggest_styles(server, known_drawing):
    """Each style's pictures come from its sources, but for a guess the style has no picture for:
    that guess gets one picture of another style (reviewed as good for it). Line art is the default."""
    _, rec, _ = known_drawing
    seen = {}
    for style in [None, *STYLE_SOURCES]:
        body = {"strokes": rec["drawing"], "labels": 10, "perLabel": 20}
        if style:
            body["style"] = style
        status, answer, _, raw = server.post_json("/api/suggest", body)
        assert status == 200, raw
        check_suggestions(answer["suggestions"], answer["guesses"], labels=10, per_label=20)
        own = STYLE_SOURCES[style or "line"]
        assert answer["suggestions"], f"no {style or 'default'} pictures for a recognised drawing"
        for label in {s["label"] for s in answer["suggestions"]}:
            pictures = [s for s in answer["suggestions"] if s["label"] == label]
            others = [s for s in pictures if s["source"] not in own]
            assert not others or pictures == others[:1], (style, label, pictures)
        seen[style] = [s["id"] for s in answer["suggestions"]]
    assert seen[None] == seen["line"], "line art is the default style"
    for bad in ["Line", "photo", 3, ["line"]]:
        status, body, _, raw = server.post_json("/api/suggest", {"strokes": rec["drawing"], "style": bad})
        assert_error(status, body, raw, 400)
        assert "style" in body["error"]["message"]


def test_library_images(server, known_drawing):
    _, rec, _ = known_drawing
    sources = {}
    for strokes in (rec["drawing"], [[[0, 50, 100, 0], [0, 100, 0, 0]]]):
        for style in STYLE_SOURCES:
            status, body, _, raw = server.post_json("/api/suggest", {"strokes": strokes, "labels": 10, "perLabel": 20, "style": style})
            assert status == 200, raw
            for s in body["suggestions"]:
                sources.setdefault(s["source"], s)
    assert sources, "no suggestions to fetch"
    for source, s in sources.items():
        status, headers, data = server.get(s["image"])
        assert status == 200, (s["image"], data[:200])
        assert headers.get("content-type", "").startswith("image/png"), headers
        w, h = png_size(data)
        assert max(w, h) == 512, (w, h)
        # The picture is cropped to its ink: its aspect is the suggestion's width/height.
        assert abs(w / h - s["width"] / s["height"]) < 0.05 * max(1, w / h), (w, h, s["width"], s["height"])
        status, headers, data = server.get(s["thumbnail"])
        assert status == 200 and headers.get("content-type", "").startswith("image/png")
        assert png_size(data) == (96, 96), "thumbnails are square, the picture fitted and centred"
    # The doodles are drawn from ../shared/data at set-up: without it the library has none.
    drawn = STYLE_SOURCES["all"] if (PICTURES / "doodles").is_dir() else STYLE_SOURCES["all"] - {"doodle"}
    assert set(sources) == drawn, f"pictures of every installed source: {sorted(sources)}"
    # OpenMoji pictures are line art; their colour mode draws the same picture with its fills.
    line = server.get(sources["openmoji"]["image"])[2]
    status, headers, colour = server.get(sources["openmoji"]["image"] + "?colour=true")
    assert status == 200 and headers.get("content-type", "").startswith("image/png")
    assert max(png_size(colour)) == 512 and colour != line
    assert server.get(sources["openmoji"]["image"] + "?color=true")[2] == colour, "color is the parameter's US name"
    # A line weight draws other lines in the same crop; the vector is the SVG file, cropped alike.
    status, _, thin = server.get(sources["openmoji"]["image"] + "?weight=0.01")
    assert status == 200 and png_size(thin) == png_size(line) and thin != line
    # In colour too: Fill changes a picture's fills, not its lines.
    status, _, thin_colour = server.get(sources["openmoji"]["image"] + "?colour=true&weight=0.01")
    assert status == 200 and png_size(thin_colour) == png_size(colour) and thin_colour not in (colour, thin)
    for bad in ("0", "0.5", "abc", "nan"):
        status, body, _, raw = get_json(server, sources["openmoji"]["image"] + f"?weight={bad}")
        assert_error(status, body, raw, 400)
    vector = sources["openmoji"]["image"].replace("/image", "/vector")
    status, headers, svg = server.get(vector + "?weight=0.01")
    assert status == 200 and headers["content-type"] == "image/svg+xml", headers
    assert "default-src 'none'" in headers["content-security-policy"] and headers["x-content-type-options"] == "nosniff"
    assert svg.startswith(b"<svg ") and b"viewBox=" in svg and b"stroke-width:" in svg
    if "emoji" in sources:
        status, body, _, raw = get_json(server, sources["emoji"]["image"].replace("/image", "/vector"))
        assert_error(status, body, raw, 404)
    print(f"\n[library] fetched {sorted(sources)}", file=sys.stderr)


@pytest.mark.parametrize("path", [
    "/api/library/clipart%3Ano%2Fsuch.svg/image",
    "/api/library/clipart%3Ano%2Fsuch.svg/thumbnail",
    "/api/library/clipart%3Ano%2Fsuch.svg/vector",
    "/api/library/emoji%3AU%2B0041/image",
    "/api/library/nothing/image",
    "/api/library/clipart%3Aanimals%2Fcat.svg/nope",
])
def test_library_unknown_id_404(server, path):
    status, body, _, raw = get_json(server, path)
    assert_error(status, body, raw, 404)


@pytest.mark.parametrize("path", [
    "/../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2f..%2fetc%2fpasswd",
    "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/../Package.swift",
    "/..%2fPackage.swift",
    "/%2e%2e/%2e%2e/%2e%2e/Package.swift",
    "/%2e%2e/%2e%2e/%2e%2e/README.md",
    "/api/../../etc/passwd",
    "/api/library/..%2F..%2F..%2F..%2Fetc%2Fpasswd/image",
    "/api/library/clipart%3A..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd/image",
    "/api/library/clipart%3A%2Fetc%2Fpasswd/image",
    "/api/library/clipart:../../../../../etc/passwd/image",
    "/api/library/%2e%2e/image",
])
def test_path_traversal_is_404(server, path):
    status, headers, data = server.get(path)
    assert b"root:" not in data and b"swift-tools-version" not in data and b"# Sketchwise" not in data, \
        f"{path} leaked a file: {data[:200]!r}"
    assert status == 404, f"{path} → {status} {data[:200]!r}"


# ---- WebSocket /api/live ---------------------------------------------------------------------


def result_for(conn, seq, timeout=60):
    """Messages up to the result (or error) for seq."""
    msgs = conn.recv_until(lambda m: m.get("seq") == seq and m.get("type") in ("result", "error"), timeout)
    return msgs[-1], msgs


def test_live_strokes_undo_clear(server, known_drawing):
    cls, rec, _ = known_drawing
    strokes = rec["drawing"]
    with ws(server) as conn:
        assert conn.status == 101
        seq = 0
        for stroke in strokes:
            seq += 1
            conn.send_json({"type": "stroke", "seq": seq, "stroke": stroke})
            msg, _ = result_for(conn, seq)
            assert msg["type"] == "result", msg
            check_guesses(msg["guesses"])
            check_suggestions(msg["suggestions"], msg["guesses"], labels=5)
        http_full = server.post_json("/api/suggest", {"strokes": strokes, "labels": 5})[1]
        assert [g["label"] for g in msg["guesses"]] == [g["label"] for g in http_full["guesses"]], \
            "live result differs from POST /api/suggest for the same sketch"
        assert [s["id"] for s in msg["suggestions"]] == [s["id"] for s in http_full["suggestions"]]
        assert cls in [g["label"] for g in msg["guesses"]]

        if len(strokes) > 1:
            seq += 1
            conn.send_json({"type": "undo", "seq": seq})
            msg, _ = result_for(conn, seq)
            http_less = server.post_json("/api/suggest", {"strokes": strokes[:-1]})[1]
            assert [g["label"] for g in msg["guesses"]] == [g["label"] for g in http_less["guesses"]], "undo removes the last stroke"

        seq += 1
        conn.send_json({"type": "clear", "seq": seq})
        msg, _ = result_for(conn, seq)
        assert msg == {"type": "result", "seq": seq, "guesses": [], "suggestions": []}

        seq += 1
        conn.send_json({"type": "undo", "seq": seq})       # undo on an empty sketch: still empty
        msg, _ = result_for(conn, seq)
        assert msg["type"] in ("result", "error")
        if msg["type"] == "result":
            assert msg["guesses"] == [] and msg["suggestions"] == []

        seq += 1
        conn.send_json({"type": "sketch", "seq": seq, "strokes": strokes})
        msg, _ = result_for(conn, seq)
        assert [g["label"] for g in msg["guesses"]] == [g["label"] for g in http_full["guesses"]]
        seq += 1
        conn.send_json({"type": "sketch", "seq": seq, "strokes": []})
        msg, _ = result_for(conn, seq)
        assert msg == {"type": "result", "seq": seq, "guesses": [], "suggestions": []}


def test_live_latest_wins(server, known_drawing):
    _, rec, _ = known_drawing
    strokes = rec["drawing"]
    with ws(server) as conn:
        seqs = list(range(101, 106))
        for k, seq in enumerate(seqs):
            upto = max(1, round(len(strokes) * (k + 1) / len(seqs)))
            conn.send_json({"type": "sketch", "seq": seq, "strokes": strokes[:upto]})
        msgs = conn.recv_until(lambda m: m.get("seq") == seqs[-1], timeout=60)
        msgs += conn.drain(quiet=1.5)
        got = [m["seq"] for m in msgs if m.get("type") == "result"]
        print(f"\n[live] 5 quick sketches → results for seqs {got}", file=sys.stderr)
        assert all(m.get("type") == "result" for m in msgs), msgs
        assert got[-1] == seqs[-1], "the last result must be for the last message"
        assert all(a < b for a, b in zip(got, got[1:])), f"results must come in increasing seq: {got}"
        http_full = server.post_json("/api/suggest", {"strokes": strokes, "labels": 5})[1]
        last = [m for m in msgs if m["seq"] == seqs[-1]][0]
        assert [g["label"] for g in last["guesses"]] == [g["label"] for g in http_full["guesses"]]


@pytest.mark.parametrize("message, seq", [
    ("{not json", None),
    ('{"type": "paint", "seq": 7}', 7),
    ('{"type": "stroke", "seq": 8}', 8),
    ('{"type": "stroke", "seq": 9, "stroke": [[1, 2, 3], [1, 2]]}', 9),
    ('{"type": "stroke", "seq": 10, "stroke": [[1, 1e12], [1, 2]]}', 10),
    ('{"type": "stroke", "seq": 11, "stroke": "x"}', 11),
    ('{"type": "sketch", "seq": 12, "strokes": {"a": 1}}', 12),
    ('{"type": "stroke", "stroke": [[1, 2], [1, 2]]}', None),
    ('[1, 2]', None),
], ids=["not-json", "unknown-type", "no-stroke", "xy-mismatch", "huge", "stroke-string", "strokes-object",
        "no-seq", "array"])
def test_live_bad_message_keeps_connection(server, message, seq):
    with ws(server) as conn:
        conn.send_json({"type": "stroke", "seq": 1, "stroke": [[0, 50, 100], [0, 80, 0]]})
        first, _ = result_for(conn, 1)
        conn.send_text(message)
        msg = conn.recv_json(timeout=30)
        assert msg["type"] == "error", msg
        assert msg["error"]["code"] == "bad_request" and msg["error"]["message"], msg
        if seq is not None:
            assert msg.get("seq") == seq, msg
        conn.send_json({"type": "stroke", "seq": 50, "stroke": [[0, 100], [100, 100]]})
        after, _ = result_for(conn, 50)
        assert after["type"] == "result", "the connection stays open and works after a bad message"
        conn.send_json({"type": "undo", "seq": 51})
        back, _ = result_for(conn, 51)
        assert back["guesses"] == first["guesses"], "a bad message must not change the sketch"


def test_live_too_many_strokes(server):
    with ws(server) as conn:
        conn.send_json({"type": "sketch", "seq": 1, "strokes": [dot(i, i) for i in range(257)]})
        msg, _ = result_for(conn, 1)
        assert msg["type"] == "error" and msg["error"]["code"] in ("bad_request", "too_large"), msg
        conn.send_json({"type": "sketch", "seq": 2, "strokes": [dot(i, i) for i in range(256)]})
        msg, _ = result_for(conn, 2)
        assert msg["type"] == "result", msg
        conn.send_json({"type": "stroke", "seq": 3, "stroke": dot(1, 1)})   # the 257th
        msg, _ = result_for(conn, 3)
        assert msg["type"] == "error" and msg["error"]["code"] in ("bad_request", "too_large"), msg


def test_live_rate_limit(server):
    with ws(server) as conn:
        start = time.monotonic()
        for seq in range(1, 81):
            conn.send_json({"type": "clear", "seq": seq})
        sent_in = time.monotonic() - start
        msgs = conn.drain(quiet=2.0)
        limited = [m for m in msgs if m.get("type") == "error" and m["error"]["code"] == "rate_limited"]
        results = [m for m in msgs if m.get("type") == "result"]
        print(f"\n[live] 80 messages in {sent_in * 1000:.0f} ms → {len(limited)} rate_limited, {len(results)} results",
              file=sys.stderr)
        assert limited, "more than 50 messages per second must give rate_limited errors"
        assert all(isinstance(m.get("seq"), int) for m in limited)
        time.sleep(1.1)
        conn.send_json({"type": "clear", "seq": 1000})
        msg, _ = result_for(conn, 1000)
        assert msg["type"] == "result", "the connection stays usable after being rate limited"


def close_code_after(conn, send):
    """Sends with `send(conn)` and returns the close code the server then sends."""
    send(conn)
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(10):      # any messages before the close are fine; then it must close
            conn.recv(timeout=15)
    return closed.value.code


def test_live_oversized_message_closes_with_1009(server):
    big = json.dumps({"type": "sketch", "seq": 1, "strokes": [[[0, 1], [0, 1]]], "pad": "x" * (300 * 1024)})
    with ws(server) as conn:
        assert close_code_after(conn, lambda c: c.send_text(big)) == 1009
    with ws(server) as conn:       # the same message in fragments of 100 KiB
        def fragments(c):
            data = big.encode()
            c._send_frame(0x1, data[:100_000], fin=False)
            c._send_frame(0x0, data[100_000:200_000], fin=False)
            c._send_frame(0x0, data[200_000:], fin=True)
        assert close_code_after(conn, fragments) == 1009


def test_live_invalid_utf8_closes_with_1007(server):
    with ws(server) as conn:
        assert close_code_after(conn, lambda c: c._send_frame(0x1, b'{"type": "clear", "seq": 1, "x": "\xff\xfe"}')) == 1007


def test_live_connections_are_independent(server):
    with ws(server) as a, ws(server) as b:
        a.send_json({"type": "stroke", "seq": 1, "stroke": [[0, 50, 100], [0, 80, 0]]})
        msg, _ = result_for(a, 1)
        assert msg["guesses"]
        b.send_json({"type": "undo", "seq": 1})
        msg, _ = result_for(b, 1)
        if msg["type"] == "result":
            assert msg["guesses"] == [], "b's sketch must not contain a's stroke"


@pytest.mark.parametrize("method,path,allow", [
    ("GET", "/api/classify", "POST"), ("PUT", "/api/suggest", "POST"), ("DELETE", "/api/health", "GET"),
    ("POST", "/api/library/emoji%3AU%2B1F408/image", "GET"), ("PATCH", "/api/openapi.yaml", "GET"), ("POST", "/api/live", "GET"),
])
def test_wrong_method_is_405_with_allow(server, method, path, allow):
    status, headers, raw = server.request(method, path, body=b"{}" if method in ("POST", "PUT", "PATCH") else None,
                                          headers={"Content-Type": "application/json"})
    body = json.loads(raw)
    assert_error(status, body, raw, 405)
    assert headers.get("allow") == allow, headers


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/jsonp",
                                          "multipart/form-data"])
def test_bodies_that_are_not_json_are_415(server, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    for path in ("/api/classify", "/api/suggest"):
        status, _, raw = server.request("POST", path, body=b'{"strokes": [[[0, 10], [0, 10]]]}', headers=headers)
        assert_error(status, json.loads(raw), raw, 415)
    status, _, raw = server.request("POST", "/api/classify", body=b'{"strokes": [[[0, 10], [0, 10]]]}',
                                    headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert status == 200, "the media type is case-insensitive and may carry parameters"


@pytest.mark.parametrize("path", ["/app.js%00.png", "/app.js%00", "/index.html%00.css", "/%0a", "/api/health%00"])
def test_control_characters_in_paths_are_404(server, path):
    status, _, raw = server.get(path)
    body = json.loads(raw)
    assert_error(status, body, raw, 404)


def test_live_not_a_websocket(server):
    status, _, _ = server.get("/api/live")
    assert status in (400, 404, 426), status


def test_live_unmasked_frame_closes_with_1002(server):
    """RFC 6455 §5.1: a client's frames must be masked; the server closes on an unmasked one."""
    with ws(server) as conn:
        payload = json.dumps({"type": "clear", "seq": 1}).encode()
        assert close_code_after(conn, lambda c: c.sock.sendall(bytes([0x81, len(payload)]) + payload)) == 1002


HANDSHAKE = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
             "Sec-WebSocket-Version": "13"}


@pytest.mark.parametrize("name,method,path,change,status,code", [
    ("no upgrade", "GET", "/api/live", {"Upgrade": None, "Connection": None}, 426, "upgrade_required"),
    ("no key", "GET", "/api/live", {"Sec-WebSocket-Key": None}, 400, "bad_request"),
    ("short key", "GET", "/api/live", {"Sec-WebSocket-Key": "c2hvcnQ="}, 400, "bad_request"),
    ("old version", "GET", "/api/live", {"Sec-WebSocket-Version": "8"}, 426, "upgrade_required"),
    ("no connection upgrade", "GET", "/api/live", {"Connection": "keep-alive"}, 400, "bad_request"),
    ("wrong path", "GET", "/api/nope", {}, 404, "not_found"),
    ("static path", "GET", "/index.html", {}, 404, "not_found"),
    ("wrong method", "POST", "/api/live", {}, 405, "method_not_allowed"),
])
def test_live_bad_handshakes_get_json_errors(server, name, method, path, change, status, code):
    headers = {k: v for k, v in {**HANDSHAKE, **change}.items() if v is not None}
    got, answer_headers, raw = server.request(method, path, body=b"" if method == "POST" else None, headers=headers)
    assert got == status, f"{name}: {got} {raw[:200]!r}"
    body = json.loads(raw)
    assert body["error"]["code"] == code, f"{name}: {body}"
    if status == 426:
        assert answer_headers.get("sec-websocket-version") == "13" or answer_headers.get("upgrade") == "websocket"
    if status == 405:
        assert answer_headers.get("allow") == "GET"
    status, _, _ = server.get("/api/health")
    assert status == 200
