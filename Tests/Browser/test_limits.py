"""Browser tests of the limits the web app holds sketches and live messages to: they come from the
server (GET /api/limits), never from a copy in the app. With the route, a sketch over them is not
sent and one message says so, and a live message over the size goes over HTTP instead; without it
(an older server answers 404) the app checks nothing and says the server's refusal, once.

Both cases are made here whatever the server is: a script run before the app answers /api/limits
itself, and records what the app sends (WebSocket messages, POST /api/suggest).

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_limits.py
"""

import json
import time


from browser_helpers import open_app, wait_for
from conftest import WEB, skip_module_without_browser

skip_module_without_browser()


def limits_stub(status, body):
    """A script, run before the app, that answers GET /api/limits with `status` and `body`, and
    records each live message ({type, n (strokes), bytes}) and each POST /api/suggest (strokes)."""
    return """
      (() => {
        const status = %d, body = %s;
        window.__sent = [];
        window.__posts = [];
        const realFetch = window.fetch;
        window.fetch = function (input, init) {
          const url = String((input && input.url) || input);
          if (url.endsWith('/api/limits')) {
            return Promise.resolve(new Response(body, { status, headers: { 'Content-Type': 'application/json' } }));
          }
          if (url.includes('/api/suggest') && init && typeof init.body === 'string') {
            try { window.__posts.push(JSON.parse(init.body).strokes.length); } catch (e) { /* not JSON */ }
          }
          return realFetch.apply(this, arguments);
        };
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
          try {
            const m = JSON.parse(data);
            window.__sent.push({ type: m.type, n: m.strokes ? m.strokes.length : null,
                                 bytes: new TextEncoder().encode(data).length });
          } catch (e) { /* not JSON */ }
          return send.call(this, data);
        };
      })();
    """ % (status, json.dumps(body))


def ndjson(strokes):
    return json.dumps({"word": "", "drawing": strokes})


def short_strokes(n):
    """n two-point strokes on a grid."""
    return [[[10 * (i % 30), 10 * (i % 30) + 5], [10 * (i // 30), 10 * (i // 30) + 5], [i * 10, i * 10 + 5]] for i in range(n)]


def long_strokes(n, points):
    """n strokes of `points` points each (a wavy line per stroke)."""
    out = []
    for i in range(n):
        xs = [round(100 + j * 1.37, 2) for j in range(points)]
        ys = [round(100 + 40 * i + (j % 7) * 3.11, 2) for j in range(points)]
        out.append([xs, ys, [1000 * i + j * 10 for j in range(points)]])
    return out


def load(driver, strokes, name):
    result = driver.execute_script("return window.sketchwise.loadNdjsonText(arguments[0], arguments[1])", ndjson(strokes), name)
    assert result["ok"], result
    return result


def message(driver):
    return driver.execute_script("const m = document.getElementById('message'); return m.hidden ? null : m.textContent")


def test_limits_from_the_server_hold_sketches_and_messages(driver, server):
    limits = {"strokes": 5, "points": 10000, "messageBytes": 1500, "messagesPerSecond": 50}
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": limits_stub(200, json.dumps(limits))})
    open_app(driver, server.base)
    time.sleep(0.3)   # the limits' answer has come (it is asked at start)

    # Over the strokes: one message from the server's numbers, and the sketch is not sent.
    load(driver, short_strokes(6), "six.ndjson")
    msg = wait_for(lambda: (message(driver) or "") if "Guesses stop" in (message(driver) or "") else None, 5,
                   message="the limit message")
    assert "5 strokes or 10,000 points" in msg, msg
    time.sleep(1)
    sent = driver.execute_script("return window.__sent")
    posts = driver.execute_script("return window.__posts")
    assert not any(m["n"] == 6 for m in sent), sent
    assert 6 not in posts, posts

    # Within the strokes but over the message size: asked over HTTP, not on the socket.
    load(driver, long_strokes(3, 80), "long.ndjson")
    wait_for(lambda: 3 in driver.execute_script("return window.__posts"), 10, message="POST /api/suggest of the 3 strokes")
    wait_for(lambda: driver.execute_script("return window.sketchwise.guesses().length") > 0, 30, message="guesses over HTTP")
    sent = driver.execute_script("return window.__sent")
    assert all(m["bytes"] <= limits["messageBytes"] for m in sent), sent
    assert driver.execute_script("return window.sketchwise.status()") == "connected"

    # A small sketch still goes on the socket.
    load(driver, short_strokes(2), "two.ndjson")
    wait_for(lambda: any(m["n"] == 2 for m in driver.execute_script("return window.__sent")), 10, message="a live message of 2 strokes")


def test_without_the_route_the_servers_refusal_is_said_once(driver, server):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": limits_stub(404, json.dumps({"error": {"code": "not_found", "message": "no route"}}))})
    open_app(driver, server.base)

    # No limits known: the app sends the sketch, and says what the server answers.
    load(driver, short_strokes(300), "many.ndjson")
    msg = wait_for(lambda: (message(driver) or "") if "Guesses stop" in (message(driver) or "") else None, 10,
                   message="the server's refusal")
    # Said by its code (too_large), in the app's words rather than the server's English.
    assert msg == json.loads((WEB / "locales" / "en.json").read_text())["recognition.tooLarge"], msg
    assert any(m["n"] == 300 for m in driver.execute_script("return window.__sent"))

    # Still too large: not said again.
    load(driver, short_strokes(301), "more.ndjson")
    wait_for(lambda: any(m["n"] == 301 for m in driver.execute_script("return window.__sent")), 10, message="the 301 strokes sent")
    time.sleep(1.5)
    assert "Guesses stop" not in (message(driver) or ""), message(driver)

    # Once a sketch is answered, a refusal is said again.
    load(driver, short_strokes(3), "three.ndjson")
    wait_for(lambda: driver.execute_script("return window.sketchwise.guesses().length") > 0, 30, message="guesses for 3 strokes")
    load(driver, short_strokes(300), "again.ndjson")
    wait_for(lambda: "Guesses stop" in (message(driver) or ""), 10, message="the refusal said again")


def test_without_the_route_a_message_too_big_for_the_socket_goes_over_http(driver, server):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": limits_stub(404, json.dumps({"error": {"code": "not_found", "message": "no route"}}))})
    open_app(driver, server.base)

    # About 350 KB as one live message: the server closes the socket (1009, too big); the app asks
    # over HTTP instead, reconnects, and does not send a message that large again.
    big = long_strokes(100, 190)
    load(driver, big, "big.ndjson")
    wait_for(lambda: 100 in driver.execute_script("return window.__posts"), 20, message="POST /api/suggest of the big sketch")
    wait_for(lambda: driver.execute_script("return window.sketchwise.guesses().length") > 0, 30, message="guesses over HTTP")
    wait_for(lambda: driver.execute_script("return window.sketchwise.status()") == "connected", 30, message="connected again")
    sent = [m for m in driver.execute_script("return window.__sent") if m["n"] == 100]
    assert len(sent) == 1 and sent[0]["bytes"] > 256 * 1024, sent

    # Drawn on, still as large: over HTTP at once; a small sketch goes live again.
    load(driver, long_strokes(101, 190), "bigger.ndjson")
    wait_for(lambda: 101 in driver.execute_script("return window.__posts"), 20, message="POST /api/suggest of the bigger sketch")
    assert not any(m["n"] == 101 for m in driver.execute_script("return window.__sent"))
    load(driver, short_strokes(2), "two.ndjson")
    wait_for(lambda: any(m["n"] == 2 for m in driver.execute_script("return window.__sent")), 10, message="a live message of 2 strokes")
