"""Admission control over real sockets (issue 14): recognition runs on the server's own worker
threads behind a bounded queue, so heavy requests never hold up health checks or static files; a
full queue is answered `503 busy` at once; a request past its deadline is answered within
deadline + 0.1 s and its work stops. `strict_server` has 1 worker, 2 places in its queue and a
request timeout of 1 s; `hasty_server` the same with a timeout of 0.15 s; `server` has the
defaults (a worker per core, 256 places, 10 s)."""

import json
import random
import threading
import time

import pytest
from conftest import start_server, stop_server

STRICT_TIMEOUT = 1.0
HASTY_TIMEOUT = 0.15
DEFAULT_TIMEOUT = 10.0


def heavy_strokes(seed=1):
    """One stroke of 20,000 random points, the documented maximum: legal, and costly to render
    (about 0.5 s of work in a debug build)."""
    rng = random.Random(seed)
    return [[[round(rng.uniform(0, 1000), 1) for _ in range(20_000)], [round(rng.uniform(0, 1000), 1) for _ in range(20_000)]]]


def many_strokes(seed=1):
    """256 strokes of 78 random points (the documented maxima: 256 strokes, 20,000 points): the
    costliest sketch for scene detection, which groups strokes (over 10 s of work)."""
    rng = random.Random(seed)
    return [[[round(rng.uniform(0, 1000), 1) for _ in range(78)], [round(rng.uniform(0, 1000), 1) for _ in range(78)]] for _ in range(256)]


HEAVY = json.dumps({"strokes": heavy_strokes()})
HEAVY_SCENE = json.dumps({"strokes": many_strokes(), "maxObjects": 20})


def timed_post(server, path, body, timeout=60):
    """(status, parsed JSON, headers, seconds) for a POST of a JSON text."""
    start = time.monotonic()
    status, headers, data = server.request("POST", path, body=body, headers={"Content-Type": "application/json"}, timeout=timeout)
    took = time.monotonic() - start
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = None
    return status, parsed, headers, took


def reading_time(server):
    """Seconds to send and parse a heavy body: the time of a refusal that comes after parsing."""
    body = json.dumps({"strokes": many_strokes(), "maxObjects": 0})
    times = []
    for _ in range(3):
        status, parsed, _, took = timed_post(server, "/api/detect", body)
        assert status == 400, parsed
        times.append(took)
    return max(times)


def run_in_parallel(count, work):
    results = [None] * count

    def one(i):
        results[i] = work(i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads, results


def test_health_and_static_files_answer_while_heavy_requests_run(server):
    """Twelve concurrent heavy suggest requests (the original finding froze health for 30 s)."""
    threads, results = run_in_parallel(12, lambda i: timed_post(server, "/api/suggest", HEAVY))
    slowest = 0.0
    checks = 0
    while any(thread.is_alive() for thread in threads):
        for path in ("/api/health", "/"):
            start = time.monotonic()
            status, _, _ = server.get(path, timeout=30)
            took = time.monotonic() - start
            assert status == 200, path
            slowest = max(slowest, took)
            checks += 1
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    assert checks >= 4, "the heavy requests ended before the checks could run"
    assert slowest < 1.0, f"health or a static file took {slowest:.2f} s behind heavy requests"
    for status, parsed, _, took in results:
        assert status == 200 or (status == 503 and parsed["error"]["code"] in ("timeout", "busy")), (status, parsed)
        assert took < DEFAULT_TIMEOUT + 2, f"a heavy request was answered after {took:.1f} s (deadline {DEFAULT_TIMEOUT} s)"


@pytest.fixture(scope="module")
def hasty_server(tmp_path_factory, server):
    """One worker, two places and a request timeout of 0.15 s: shorter than the heavy scene's
    replay (about 0.3 s in a debug build), longer than a light request (about 20 ms)."""
    arguments = ["--workers", "1", "--queue-length", "2", "--request-timeout", str(HASTY_TIMEOUT)]
    srv = start_server(tmp_path_factory, server.data_dir, arguments, name="hasty-server")
    yield srv
    stop_server(srv)


@pytest.mark.parametrize("path,body", [("/api/detect", HEAVY_SCENE), ("/api/suggest", HEAVY)], ids=["scene", "suggest"])
def test_a_request_past_its_deadline_is_answered_in_time_and_its_work_stops(hasty_server, path, body):
    parsing = reading_time(hasty_server)
    status, parsed, headers, took = timed_post(hasty_server, path, body)
    assert status == 503 and parsed["error"]["code"] == "timeout", (status, parsed)
    assert headers.get("retry-after") == "1"
    assert took <= parsing + HASTY_TIMEOUT + 0.1 + 0.15, f"answered {took:.2f} s after sending (reading {parsing:.2f} s + deadline)"
    # The single worker is free again at once: the heavy work stopped at its next check instead of
    # running on (a light request behind it would then time out too).
    light = json.dumps({"strokes": [[[0, 50, 100], [0, 80, 0]]]})
    status, parsed, _, took = timed_post(hasty_server, "/api/classify", light)
    assert status == 200, parsed
    assert took < 1.0, f"a light request after a stopped heavy one took {took:.2f} s"


def test_a_full_queue_is_answered_503_busy_at_once(strict_server):
    """One worker and two places: of eight heavy requests at once, at least five are refused."""
    parsing = reading_time(strict_server)
    threads, results = run_in_parallel(8, lambda i: timed_post(strict_server, "/api/detect", HEAVY_SCENE))
    for thread in threads:
        thread.join()
    busy = [(headers, took) for status, parsed, headers, took in results if status == 503 and parsed["error"]["code"] == "busy"]
    assert len(busy) >= 4, f"only {len(busy)} of 8 refused as busy: {[(s, p) for s, p, _, _ in results]}"
    for headers, took in busy:
        assert headers.get("retry-after") == "1"
        # Eight bodies are read at once, so a refusal may wait for the others' reading too.
        assert took < 8 * parsing + 0.5, f"a busy answer took {took:.2f} s (reading one body takes {parsing:.2f} s)"
    for status, parsed, _, took in results:
        assert status in (200, 503), (status, parsed)
        assert took < 8 * parsing + STRICT_TIMEOUT + 0.5, f"an answer took {took:.2f} s"
