"""Rates and quotas of the personal API and labels as typed text (issue 34), over real HTTP: users
per client per minute (429 with Retry-After), the quotas of shortcuts, examples and corrections
(count and bytes, 429 quota_exceeded with Retry-After), a counter in /metrics for each refusal, labels with control characters
or too many bytes refused and "é" in either Unicode form one label, a store holding the labels of
older versions (a NUL, 800 KB in one grapheme) still usable and cleanable, the shortcut called
`predict`, memory under 64 concurrent GET /api/shortcuts, and `corrections export` streaming.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_quotas.py
"""

import hashlib
import json
import re
import secrets
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest

from conftest import start_server, stop_server, sketchwise_binary as binary
from test_shortcuts import SPIRAL, auth, spiral

USERS_PER_MINUTE = 6
HUGE_GRAPHEME = "e" + "\u0301" * 400_000   # one grapheme of 800 KB of UTF-8


def post_raw_json(server, path, obj, token):
    """POSTs `obj` as UTF-8 JSON (not \\u-escaped, so an 800 KB label stays 800 KB)."""
    body = json.dumps(obj, ensure_ascii=False).encode()
    status, headers, raw = server.request("POST", path, body=body, headers={**auth(token), "Content-Type": "application/json"})
    return status, headers, json.loads(raw) if raw else None


def refusals(server):
    """sketchwise_personal_refusals_total by reason, from /metrics."""
    status, _, body = server.get("/metrics")
    assert status == 200
    return {m[1]: float(m[2])
            for m in re.finditer(r'^sketchwise_personal_refusals_total\{reason="([a-z_]+)"\} (\S+)$', body.decode(), re.M)}


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.fixture(scope="module")
def quota_server(tmp_path_factory, server):
    """A server over the test index with small quotas (its own process, the same personal.sqlite)."""
    srv = start_server(tmp_path_factory, server.data_dir, [
        "--users-per-client-per-minute", str(USERS_PER_MINUTE), "--max-shortcuts", "2", "--max-example-bytes", "60000",
        "--max-corrections", "3", "--max-correction-bytes", "30000",
    ], name="quota-server")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def people(quota_server):
    """Three users of the quota server, made before its rate of users is spent."""
    tokens = []
    for _ in range(3):
        status, body, _, raw = quota_server.post_json("/api/users", {})
        assert status == 201, raw
        tokens.append(body["token"])
    return tokens


def test_users_per_client_are_limited_with_429_and_retry_after(quota_server, people):
    before = refusals(quota_server).get("users_per_client", 0)
    answers = [quota_server.post_json("/api/users", {}) for _ in range(USERS_PER_MINUTE + 4)]
    made = [a for a in answers if a[0] == 201]
    refused = [a for a in answers if a[0] == 429]
    assert len(made) + len(people) <= USERS_PER_MINUTE + 1, [a[0] for a in answers]
    assert refused and len(made) + len(refused) == len(answers), [a[0] for a in answers]
    status, body, headers, raw = refused[0]
    assert body["error"]["code"] == "rate_limited" and "per client per minute" in body["error"]["message"], raw
    assert 1 <= int(headers["retry-after"]) <= 60 / USERS_PER_MINUTE + 1, headers
    assert refusals(quota_server)["users_per_client"] >= before + len(refused)


def test_corrections_past_the_quota_of_count_or_bytes_are_refused(quota_server, people):
    counted, sized = people[0], people[1]
    for k in range(3):
        status, body, _, raw = quota_server.post_json("/api/corrections", {"label": f"c{k}", "strokes": spiral(k)}, headers=auth(counted))
        assert status == 201, raw
    status, body, headers, raw = quota_server.post_json("/api/corrections", {"label": "c3", "strokes": spiral(3)}, headers=auth(counted))
    assert status == 429 and body["error"]["code"] == "quota_exceeded" and "at most 3 corrections" in body["error"]["message"], raw
    assert headers["retry-after"] == "3600", headers
    # One large correction (20 000 points, ~240 KB of JSON), refused by bytes (30000 here).
    big = [[[float(i % 400) for i in range(start, start + 4000)], [float(i % 300) for i in range(4000)]] for start in range(0, 20000, 4000)]
    status, body, _, raw = quota_server.post_json("/api/corrections", {"label": "big", "strokes": big}, headers=auth(sized))
    assert status == 429 and "bytes of corrections" in body["error"]["message"], raw
    counts = refusals(quota_server)
    assert counts.get("corrections", 0) >= 1 and counts.get("correction_bytes", 0) >= 1, counts


def test_shortcuts_past_the_quotas_of_count_or_bytes_are_refused(quota_server, people):
    token = people[2]
    for label in ("one", "two"):
        status, _, _, raw = quota_server.post_json("/api/shortcuts", {"label": label, "examples": [spiral(s) for s in range(3)]},
                                                   headers=auth(token))
        assert status == 201, raw
    status, body, _, raw = quota_server.post_json("/api/shortcuts", {"label": "three", "examples": [spiral(s) for s in range(3)]},
                                                  headers=auth(token))
    assert status == 429 and "at most 2 shortcuts" in body["error"]["message"], raw
    heavy = [spiral(s, n=2000) for s in range(3)]   # ~3 × 40 KB, past 60000 bytes
    status, body, _, raw = quota_server.post_json("/api/shortcuts", {"label": "one", "examples": heavy}, headers=auth(token))
    assert status == 429 and "bytes of examples" in body["error"]["message"], raw
    status, _, listing = quota_server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == [{"label": "one", "examples": 3}, {"label": "two", "examples": 3}]
    counts = refusals(quota_server)
    assert counts.get("shortcuts", 0) >= 1 and counts.get("example_bytes", 0) >= 1, counts


def test_labels_with_control_characters_or_too_many_bytes_are_refused(server):
    status, body, _, _ = server.post_json("/api/users", {})
    token = body["token"]
    examples = [spiral(s) for s in range(3)]
    for label in ("a\u0000b", "\u0000abc", "tab\there", "bell\u0007", "del\u007f", "c1\u0085", HUGE_GRAPHEME):
        status, _, answer = post_raw_json(server, "/api/shortcuts", {"label": label, "examples": examples}, token)
        assert status == 400 and answer["error"]["code"] == "bad_request", (label[:10], answer)
        status, _, answer = post_raw_json(server, "/api/corrections", {"label": label, "strokes": spiral(1)}, token)
        assert status == 400, (label[:10], answer)
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == []


def test_e_acute_composed_or_decomposed_is_one_label(server):
    status, body, _, _ = server.post_json("/api/users", {})
    token = body["token"]
    decomposed, composed = "cafe\u0301", "caf\u00e9"
    status, _, answer = post_raw_json(server, "/api/shortcuts", {"label": decomposed, "examples": [spiral(s) for s in range(3)]}, token)
    assert status == 201 and answer["label"] == composed, answer
    status, _, answer = post_raw_json(server, "/api/shortcuts", {"label": composed, "examples": [spiral(s) for s in range(4)]}, token)
    assert status == 201, answer
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == [{"label": composed, "examples": 4}]
    status, _, raw = server.request("DELETE", "/api/shortcuts/" + urllib.parse.quote(decomposed), headers=auth(token))
    assert status == 200, raw
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == []


@pytest.mark.parametrize("name", ["predict", "misfires"])
def test_a_shortcut_called_predict_or_misfires_can_be_deleted(server, name):
    """Both paths take POST for their own job; DELETE there removes the shortcut of that name."""
    status, body, _, _ = server.post_json("/api/users", {})
    token = body["token"]
    status, _, _, raw = server.post_json("/api/shortcuts", {"label": name, "examples": [spiral(s) for s in range(3)]},
                                         headers=auth(token))
    assert status == 201, raw
    status, answer, _, raw = server.post_json("/api/shortcuts/predict", {"strokes": spiral(9)}, headers=auth(token))
    assert status == 200 and answer["label"] == name, raw
    status, headers, raw = server.get(f"/api/shortcuts/{name}", headers=auth(token))
    assert status == 405 and headers["allow"] == "POST, DELETE", raw
    status, _, raw = server.request("DELETE", f"/api/shortcuts/{name}", headers=auth(token))
    assert status == 200 and json.loads(raw)["label"] == name, raw
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == []
    status, _, raw = server.request("DELETE", f"/api/shortcuts/{name}", headers=auth(token))
    assert status == 404, raw


def seed_legacy_user(db_path, rows):
    """A user written straight into personal.sqlite as older versions could leave it: `rows` of
    (label bytes, strokes), embedder '' (so the server embeds them again). Returns the token."""
    token = secrets.token_hex(32)
    with sqlite3.connect(db_path, timeout=30) as connection:
        cursor = connection.execute("INSERT INTO user (name, tokenDigest, modelVersion, embedder) VALUES (?, ?, 1, '')",
                                    (f"legacy-{token[:8]}", hashlib.sha256(token.encode()).hexdigest()))
        user = cursor.lastrowid
        connection.executemany("INSERT INTO example (userId, label, strokes, embedding) VALUES (?, CAST(? AS TEXT), ?, X'')",
                               [(user, label, json.dumps({"word": "sketch", "drawing": strokes})) for label, strokes in rows])
    return token


def test_a_store_with_labels_of_older_versions_still_lists_predicts_and_cleans(server):
    huge = HUGE_GRAPHEME.encode()
    rows = ([(b"\x00abc", spiral(s)) for s in range(3)] + [(huge, spiral(s)) for s in range(3, 6)]
            + [(b"a\x00b", spiral(s)) for s in range(6, 9)] + [(b"a", spiral(s)) for s in range(9, 12)])
    token = seed_legacy_user(Path(server.data_dir) / "personal.sqlite", rows)
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert status == 200, listing
    assert json.loads(listing)["shortcuts"] == [
        {"label": "\ufffdabc", "examples": 3}, {"label": "\ufffd", "examples": 3},
        {"label": "a\ufffdb", "examples": 3}, {"label": "a", "examples": 3},
    ]
    for path, body in (("/api/shortcuts/predict", {"strokes": spiral(20)}), ("/api/suggest", {"strokes": spiral(20)})):
        status, _, _, raw = server.post_json(path, body, headers=auth(token))
        assert status == 200, (path, raw[:300])
    for label in ("\ufffdabc", "\ufffd", "a\ufffdb"):
        status, _, raw = server.request("DELETE", "/api/shortcuts/" + urllib.parse.quote(label), headers=auth(token))
        assert status == 200, (label, raw)
    status, _, listing = server.get("/api/shortcuts", headers=auth(token))
    assert json.loads(listing)["shortcuts"] == [{"label": "a", "examples": 3}]
    status, _, _, raw = server.post_json("/api/shortcuts", {"label": SPIRAL, "examples": [spiral(s) for s in range(30, 33)]},
                                         headers=auth(token))
    assert status == 201, raw


def concurrent_gets(server, token, count=64):
    """`count` concurrent GET /api/shortcuts; (statuses, peak RSS growth of the server in MiB)."""
    pid = server.proc.pid
    before = rss_kib(pid)
    peak, statuses, done = [before], [], threading.Event()

    def watch():
        while not done.is_set():
            peak.append(rss_kib(pid))
            time.sleep(0.005)

    def get():
        statuses.append(server.get("/api/shortcuts", headers=auth(token))[0])

    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [threading.Thread(target=get) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    done.set()
    watcher.join()
    return statuses, (max(peak) - before) / 1024


def test_64_concurrent_listings_of_a_full_account_stay_small(server):
    status, body, _, _ = server.post_json("/api/users", {})
    full = body["token"]
    examples = [spiral(s, n=150) for s in range(10)]
    for k in range(50):
        status, _, _, raw = server.post_json("/api/shortcuts", {"label": f"shortcut-{k}", "examples": examples}, headers=auth(full))
        assert status == 201, raw
    # And an account of older versions: an 800 KB label on each of its 10 examples.
    legacy = seed_legacy_user(Path(server.data_dir) / "personal.sqlite", [(HUGE_GRAPHEME.encode(), spiral(s)) for s in range(10)])
    for name, token in (("full (50 shortcuts × 10 examples)", full), ("10 examples with 800 KB labels", legacy)):
        statuses, growth = concurrent_gets(server, token)
        print(f"\n[quotas] 64 concurrent GET /api/shortcuts, {name}: RSS grew by {growth:.1f} MiB", file=sys.stderr)
        assert statuses == [200] * 64
        assert growth < 64, f"RSS grew by {growth:.0f} MiB"


def test_corrections_export_streams_with_flat_memory(tmp_path):
    """`corrections export` of 2 000 and of 20 000 corrections (~6 KB each, 120 MB in all): the
    peak RSS of the second is within 40 MiB of the first's."""
    sketchwise = binary()
    drawing = json.dumps({"word": "sketch", "drawing": spiral(1, n=400)})
    peaks = {}
    for count in (2_000, 20_000):
        db = tmp_path / f"corrections-{count}.sqlite"
        made = subprocess.run([str(sketchwise), "corrections", "export", "--database", str(db)],
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        with sqlite3.connect(db) as connection:
            user = connection.execute("INSERT INTO user (name, tokenDigest) VALUES ('ann', 'x')").lastrowid
            connection.executemany("INSERT INTO correction (userId, label, strokes, created) VALUES (?, ?, ?, ?)",
                                   ((user, f"c{k}", drawing, 1.7e9 + k) for k in range(count)))
        out = tmp_path / f"export-{count}.ndjson"
        with open(out, "wb") as sink:
            timed = subprocess.run(["/usr/bin/time", "-f", "%M", str(sketchwise), "corrections", "export", "--database", str(db)],
                                   stdout=sink, stderr=subprocess.PIPE, text=True, timeout=600)
        assert timed.returncode == 0, timed.stderr
        peaks[count] = int(timed.stderr.strip().splitlines()[-1]) / 1024
        with open(out) as lines:
            assert sum(1 for _ in lines) == count
        assert f"exported {count} corrections" in timed.stderr
    print(f"\n[quotas] corrections export peak RSS: 2 000 → {peaks[2000]:.0f} MiB, 20 000 → {peaks[20000]:.0f} MiB", file=sys.stderr)
    assert peaks[20_000] - peaks[2_000] < 40, peaks
