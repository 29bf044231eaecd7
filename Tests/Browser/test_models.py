"""The model lifecycle (issue 17) against real local HTTP servers: `sketchwise models download`
from a hosted manifest (the happy path and every fault: 404, 500, a slow server, a connection cut
mid-file, a wrong SHA-256, a right SHA-256 on a model that fails validation, a malformed manifest,
a write error while installing, two concurrent downloads, kill -9 in the middle of an install),
use/rollback/delete, `models serve-manifest`, and a running server that switches models without
a restart, falls back to the bundled model, and follows the update policies. After each fault
the active model still classifies a real drawing correctly.

Run:  /usr/bin/python3 -m pytest -v -s Tests/Browser/test_models.py
"""

import hashlib
import shutil
import http.server
import json
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO, RAW, ended_with_the_tests, start_server, stop_server, sketchwise_binary as binary

MODELS = REPO / "Models"
NAME = "raster-cnn"


def run(*args, timeout=300, **kwargs):
    return subprocess.run([str(binary()), *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=timeout, **kwargs)


BUNDLED_VERSION = json.loads((MODELS / f"{NAME}.json").read_text())["version"]


def spec_with_version(version):
    spec = json.loads((MODELS / f"{NAME}.json").read_text())
    spec["version"] = version
    return json.dumps(spec).encode()


# ---- a hosted-model server with faults on demand ---------------------------------------------


class ModelHost:
    """Serves raster-cnn 2.0.0 (the bundled weights under a new version) and a manifest over
    HTTP on 127.0.0.1, with a fault per file on demand, counting the requests of every path."""

    def __init__(self):
        self.files = {f"{NAME}.json": spec_with_version("2.0.0"), f"{NAME}.safetensors": (MODELS / f"{NAME}.safetensors").read_bytes()}
        self.faults = {}  # path → "404" | "500" | "500-once" | "slow" | "cut" | ("throttle", seconds per 64 KiB)
        self.manifest_body = None  # bytes served as the manifest instead of the real one
        self.hits = Counter()
        host = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                try:
                    self.answer()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def answer(self):
                path = self.path.lstrip("/")
                host.hits[path] += 1
                fault = host.faults.get(path)
                if path == "manifest.json":
                    body = host.manifest_body if host.manifest_body is not None else json.dumps(host.manifest()).encode()
                elif path in host.files:
                    body = host.files[path]
                else:
                    return self.reply(404, b"not found")
                if fault == "404":
                    return self.reply(404, b"not found")
                if fault == "500" or (fault == "500-once" and host.hits[path] == 1):
                    return self.reply(500, b"internal error")
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if fault == "slow":
                    time.sleep(6)
                elif fault == "cut":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                elif isinstance(fault, tuple):
                    for start in range(0, len(body), 65536):
                        self.wfile.write(body[start : start + 65536])
                        self.wfile.flush()
                        time.sleep(fault[1])
                    return
                self.wfile.write(body)

            def reply(self, status, body):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/manifest.json"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def entry(self, name=NAME, version="2.0.0", weights=None, spec=None):
        weights = weights or f"{name}.safetensors"
        spec = spec or f"{name}.json"
        return {
            "name": name, "version": version, "minimumSketchwiseVersion": "0.1",
            "url": weights, "sha256": hashlib.sha256(self.files[weights]).hexdigest(), "size": len(self.files[weights]),
            "spec": {"url": spec, "sha256": hashlib.sha256(self.files[spec]).hexdigest(), "size": len(self.files[spec])},
        }

    def manifest(self):
        return {"models": [self.entry()]}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def host():
    h = ModelHost()
    yield h
    h.close()


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


def download(host, store, *extra, **kwargs):
    return run("models", "download", NAME, "--manifest", host.url, "--model-store", store, "--timeout", "3", *extra, **kwargs)


def listing(store):
    r = run("models", "list", "--json", "--model-store", store)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def active_version(store, name=NAME):
    """The version of `name` that serves: from `models list`, bundled or hosted."""
    active = [m for m in listing(store)["models"] if m["name"] == name and m["status"] == "active"]
    assert len(active) == 1, active
    return active[0]["source"], active[0]["version"]


# ---- a real drawing the raster model recognises ------------------------------------------------


@pytest.fixture(scope="module")
def drawing(tmp_path_factory):
    """(class, ndjson file of one raw drawing whose class the bundled raster model ranks top 3)."""
    folder = tmp_path_factory.mktemp("drawing")
    for cls in ["cat", "house", "sun", "bicycle", "clock", "fish"]:
        lines = (RAW / f"{cls}.ndjson").read_text().splitlines()[:6]
        candidates = folder / f"{cls}-candidates.ndjson"
        candidates.write_text("\n".join(lines) + "\n")
        r = run("classify", candidates, "--model", "raster", "--json", "--top", "3", "--model-store", folder / "no-store")
        assert r.returncode == 0, r.stderr
        for line, answer in zip(lines, r.stdout.splitlines()):
            if cls in [g["label"] for g in json.loads(answer)["guesses"]]:
                chosen = folder / f"{cls}.ndjson"
                chosen.write_text(line + "\n")
                return cls, chosen
    pytest.fail("no drawing the raster model recognises")


def assert_classifies(store, drawing):
    """The active raster model (downloaded or bundled) still puts the drawing's class in its top 3."""
    cls, path = drawing
    r = run("classify", path, "--model", "raster", "--json", "--top", "3", "--model-store", store)
    assert r.returncode == 0, r.stderr
    labels = [g["label"] for g in json.loads(r.stdout)["guesses"]]
    assert cls in labels, f"{cls} not in {labels}"


def assert_refused(result, store, drawing, reason):
    """The download exited non-zero saying `reason`; the bundled model still serves, nothing is
    left half-installed, and it classifies."""
    print(f"\n  refused: {result.stderr.strip().splitlines()[-1]}", file=sys.stderr)
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert reason in result.stderr, result.stderr
    assert active_version(store) == ("bundled", BUNDLED_VERSION)
    assert not list(store.glob("*/.staging-*")), list(store.glob("*/.staging-*"))
    assert_classifies(store, drawing)


# ---- downloads: the happy path and the faults ---------------------------------------------------


def test_download_installs_verifies_and_activates(host, store, drawing):
    r = download(host, store)
    assert r.returncode == 0, r.stderr
    assert "raster-cnn 2.0.0 installed and active" in r.stdout
    assert active_version(store) == ("hosted", "2.0.0")
    hosted = [m for m in listing(store)["models"] if m["source"] == "hosted"][0]
    assert hosted["sha256"] == hashlib.sha256(host.files[f"{NAME}.safetensors"]).hexdigest()
    assert hosted["roles"] == ["raster", "ensemble"]
    assert_classifies(store, drawing)
    # Asked again, nothing is transferred.
    again = download(host, store)
    assert again.returncode == 0 and "already downloaded" in again.stdout
    assert host.hits[f"{NAME}.safetensors"] == 1


def test_missing_file_404_is_refused(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = "404"
    assert_refused(download(host, store), store, drawing, "HTTP 404")
    assert host.hits[f"{NAME}.safetensors"] == 1, "a 404 is not retried"


def test_server_error_500_is_retried_then_refused(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = "500"
    r = download(host, store, "--retries", "2")
    assert_refused(r, store, drawing, "HTTP 500")
    assert host.hits[f"{NAME}.safetensors"] == 3
    assert r.stderr.count("retry") == 2


def test_one_server_error_is_retried_with_back_off(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = "500-once"
    r = download(host, store)
    assert r.returncode == 0, r.stderr
    assert "retry 1" in r.stderr
    assert active_version(store) == ("hosted", "2.0.0")
    assert_classifies(store, drawing)


def test_slow_server_times_out(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = "slow"
    started = time.monotonic()
    r = run("models", "download", NAME, "--manifest", host.url, "--model-store", store, "--timeout", "1", "--retries", "0")
    assert time.monotonic() - started < 5.5, "the timeout did not stop the transfer"
    assert_refused(r, store, drawing, "timed out")


def test_connection_cut_mid_file_is_refused(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = "cut"
    r = download(host, store, "--retries", "1")
    assert r.returncode == 1
    assert "cut off" in r.stderr or "connection" in r.stderr.lower(), r.stderr
    assert_refused(r, store, drawing, "raster-cnn")
    assert host.hits[f"{NAME}.safetensors"] == 2


def test_wrong_sha256_is_refused(host, store, drawing):
    manifest = host.manifest()
    manifest["models"][0]["sha256"] = "0" * 64
    host.manifest_body = json.dumps(manifest).encode()
    assert_refused(download(host, store), store, drawing, "SHA-256 is")


def test_right_sha256_on_a_model_that_fails_validation_is_refused(host, store, drawing):
    # Weights of the right size and a matching checksum, but not a model: noise after the header.
    weights = bytearray(host.files[f"{NAME}.safetensors"])
    weights[8:200] = b"\xff" * 192
    host.files["broken.safetensors"] = bytes(weights)
    host.manifest_body = json.dumps({"models": [host.entry(weights="broken.safetensors")]}).encode()
    assert_refused(download(host, store), store, drawing, "failed validation")


def test_a_hosted_manifest_naming_a_local_file_is_refused(host, store, drawing):
    """A manifest served over HTTP may not have the machine read its own files: the weights as a
    file: URL (which would read it and log its size) are refused before anything is fetched."""
    manifest = host.manifest()
    manifest["models"][0]["url"] = (MODELS / f"{NAME}.safetensors").as_uri()
    host.manifest_body = json.dumps(manifest).encode()
    assert_refused(download(host, store), store, drawing, "is not an http or https URL")


def test_model_reading_the_wrong_input_fails_validation(host, store, drawing):
    # stroke-rnn's files offered as raster-cnn: they load, but read strokes, not images.
    spec = json.loads((MODELS / "stroke-rnn.json").read_text())
    spec["version"] = "2.0.0"
    host.files["strokes-as-raster.json"] = json.dumps(spec).encode()
    host.files["strokes-as-raster.safetensors"] = (MODELS / "stroke-rnn.safetensors").read_bytes()
    host.manifest_body = json.dumps({"models": [host.entry(weights="strokes-as-raster.safetensors",
                                                           spec="strokes-as-raster.json")]}).encode()
    assert_refused(download(host, store), store, drawing, "reads strokes")


@pytest.mark.parametrize("body, reason", [
    (b"{not json", "not JSON"),
    (b'{"models": [{"name": "raster-cnn", "version": "2.0.0"}]}', "missing"),
    (b'{"models": [{"name": "../x", "version": "1", "url": "a", "sha256": "' + b"0" * 64 + b'", "size": 1,'
     b' "spec": {"url": "b", "sha256": "' + b"0" * 64 + b'", "size": 1}}]}', "plain"),
    (b'{"models": []}', "lists no raster-cnn"),
])
def test_malformed_manifest_is_refused(host, store, drawing, body, reason):
    host.manifest_body = body
    assert_refused(download(host, store), store, drawing, reason)


def test_model_needing_a_newer_sketchwise_is_refused(host, store, drawing):
    manifest = host.manifest()
    manifest["models"][0]["minimumSketchwiseVersion"] = "99.0"
    host.manifest_body = json.dumps(manifest).encode()
    assert_refused(download(host, store), store, drawing, "needs Sketchwise 99.0")


def test_model_over_the_size_limit_is_refused(host, store, drawing):
    assert_refused(download(host, store, "--max-bytes", "100000"), store, drawing, "over the limit")
    assert host.hits[f"{NAME}.safetensors"] == 0, "the size is checked before any transfer"


def test_write_error_while_installing_is_refused(host, store, drawing):
    store.mkdir(parents=True)

    def small_file_limit():
        # Writes past 64 KiB fail with EFBIG (SIGXFSZ ignored, as the child inherits it).
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))

    r = download(host, store, preexec_fn=small_file_limit)
    assert_refused(r, store, drawing, "could not install")


def test_two_concurrent_downloads_make_one_transfer(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = ("throttle", 0.05)
    first = subprocess.Popen([str(binary()), "models", "download", NAME, "--manifest", host.url, "--model-store", str(store)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen([str(binary()), "models", "download", NAME, "--manifest", host.url, "--model-store", str(store)],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outputs = [p.communicate(timeout=120) for p in (first, second)]
    assert first.returncode == 0 and second.returncode == 0, outputs
    assert host.hits[f"{NAME}.safetensors"] == 1, host.hits
    assert sum("already downloaded" in out for out, _ in outputs) == 1, outputs
    assert active_version(store) == ("hosted", "2.0.0")
    assert_classifies(store, drawing)


def test_kill_9_in_the_middle_of_an_install_then_a_restart(host, store, drawing):
    host.faults[f"{NAME}.safetensors"] = ("throttle", 0.25)
    proc = subprocess.Popen([str(binary()), "models", "download", NAME, "--manifest", host.url, "--model-store", str(store)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    partial = []
    while time.monotonic() < deadline and not partial:
        partial = [p for p in store.glob(f"{NAME}/.staging-*/{NAME}.safetensors") if p.stat().st_size > 0]
        time.sleep(0.1)
    assert partial, "the download never started writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    print(f"\n  killed with {partial[0].stat().st_size} bytes of {len(host.files[f'{NAME}.safetensors'])} written", file=sys.stderr)
    # Right after the kill: the half-written staging folder is there, but nothing serves from it.
    assert list(store.glob(f"{NAME}/.staging-*"))
    assert active_version(store) == ("bundled", BUNDLED_VERSION)
    assert_classifies(store, drawing)
    # The restart clears what the killed process left and installs.
    host.faults.clear()
    r = download(host, store)
    assert r.returncode == 0, r.stderr
    assert not list(store.glob(f"{NAME}/.staging-*"))
    assert active_version(store) == ("hosted", "2.0.0")
    assert_classifies(store, drawing)


# ---- use, rollback, delete ------------------------------------------------------------------------


def test_a_models_command_clears_what_a_dead_download_left(store):
    """docs/models.md: a staging folder whose process is gone is removed by the next `models`
    command (it was only by a server start), which says so; a live one is left alone."""
    dead = store / NAME / ".staging-2147483000-abc"
    live = store / NAME / f".staging-{os.getpid()}-def"
    for folder in (dead, live):
        folder.mkdir(parents=True)
        (folder / f"{NAME}.safetensors").write_bytes(b"part of a download")
    r = run("models", "list", "--model-store", store)
    assert r.returncode == 0, r.stderr
    assert not dead.exists() and live.exists()
    assert f"removed {NAME}/.staging-2147483000-abc, left by an interrupted download" in r.stderr, r.stderr


def test_use_rollback_and_delete(host, store, drawing):
    assert download(host, store).returncode == 0
    host.files[f"{NAME}.json"] = spec_with_version("3.0.0")
    host.manifest_body = json.dumps({"models": [host.entry(version="3.0.0")]}).encode()
    assert download(host, store).returncode == 0
    assert active_version(store) == ("hosted", "3.0.0")
    statuses = {m["version"]: m["status"] for m in listing(store)["models"] if m["name"] == NAME}
    assert statuses == {BUNDLED_VERSION: "fallback", "2.0.0": "previous", "3.0.0": "active"}

    r = run("models", "rollback", NAME, "--model-store", store)
    assert r.returncode == 0 and "version 2.0.0 is active" in r.stdout, r
    assert active_version(store) == ("hosted", "2.0.0")
    assert_classifies(store, drawing)

    r = run("models", "use", f"{NAME}@3.0.0", "--model-store", store)
    assert r.returncode == 0, r.stderr
    assert active_version(store) == ("hosted", "3.0.0")

    r = run("models", "use", f"{NAME}@9.9", "--model-store", store)
    assert r.returncode == 1 and "not installed" in r.stderr and f"bundled: {BUNDLED_VERSION}" in r.stderr, r.stderr

    r = run("models", "use", f"{NAME}@{BUNDLED_VERSION}", "--model-store", store)
    assert r.returncode == 0 and "the bundled model" in r.stdout, r.stderr
    assert active_version(store) == ("bundled", BUNDLED_VERSION)
    r = run("models", "use", f"{NAME}@3.0.0", "--model-store", store)
    assert r.returncode == 0, r.stderr

    r = run("models", "use", f"{NAME}@bundled", "--model-store", store)
    assert r.returncode == 0 and active_version(store) == ("bundled", BUNDLED_VERSION)

    r = run("models", "delete", NAME, "--model-store", store)
    assert r.returncode == 0, r.stderr
    assert active_version(store) == ("bundled", BUNDLED_VERSION)
    assert not (store / NAME).exists()
    r = run("models", "rollback", NAME, "--model-store", store)
    assert r.returncode == 1 and "nothing to roll back" in r.stderr
    assert_classifies(store, drawing)


def test_serve_manifest_then_download_end_to_end(tmp_path, store, drawing):
    folder = tmp_path / "hosted"
    folder.mkdir()
    (folder / f"{NAME}.json").write_bytes(spec_with_version("2.1.0"))
    (folder / f"{NAME}.safetensors").write_bytes((MODELS / f"{NAME}.safetensors").read_bytes())
    (folder / "notes.txt").write_text("not a model")
    proc = subprocess.Popen([str(binary()), "models", "serve-manifest", str(folder), "--port", "0"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "serving 1 models: http://127.0.0.1:" in line, (line, proc.poll())
        url = line.split()[-1]
        manifest = json.loads(subprocess.run(["curl", "-sf", url], capture_output=True, text=True, timeout=30).stdout)
        assert [(m["name"], m["version"]) for m in manifest["models"]] == [(NAME, "2.1.0")]
        r = run("models", "download", NAME, "--manifest", url, "--model-store", store)
        assert r.returncode == 0, r.stderr
        assert active_version(store) == ("hosted", "2.1.0")
        assert_classifies(store, drawing)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


# ---- a running server -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lucide_index(tmp_path_factory):
    """A library index of the Lucide icons alone, built once with the bundled raster model: the
    servers below start from a copy instead of each indexing the library again."""
    path = tmp_path_factory.mktemp("lucide-index") / "library.sqlite"
    r = run("index", "build", "--sources", "lucide", "--db", path, "--no-model-store", timeout=900)
    if r.returncode != 0:
        pytest.fail(f"index build failed: {r.stderr[-2000:]}")
    return path


def data_with_index(tmp_path_factory, name, index):
    """A fresh data folder holding a copy of the Lucide index."""
    data = tmp_path_factory.mktemp(name)
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{index}{suffix}")
        if source.exists():
            shutil.copy(source, data / f"library.sqlite{suffix}")
    return data


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def served_version(srv, name=NAME):
    status, _, body = srv.get("/api/models")
    assert status == 200
    models = json.loads(body)
    active = [m for m in models["models"] if m["name"] == name and m["status"] == "active"]
    return active[0]["version"], models.get("reindex")


def classify_over_http(srv, drawing):
    cls, path = drawing
    strokes = json.loads(path.read_text())["drawing"]
    status, body, _, raw = srv.post_json("/api/classify", {"strokes": strokes, "model": "raster", "top": 3})
    assert status == 200, raw
    assert cls in [g["label"] for g in body["guesses"]]


def test_server_switches_models_without_a_restart(tmp_path_factory, host, drawing, driver, lucide_index):
    """A download activates raster-cnn 2.0.0 in the server's store: the server re-indexes the library
    in a child process while the old index serves, then switches; the RSS is sampled throughout.
    The web app shows the active version before and after."""
    from browser_helpers import open_app, save_screenshot, wait_for
    data = data_with_index(tmp_path_factory, "switch-data", lucide_index)
    srv = start_server(tmp_path_factory, data, ["--sources", "lucide", "--model-updates", "local"], name="switch-server")
    try:
        assert served_version(srv) == (BUNDLED_VERSION, None)
        open_app(driver, srv.base)
        driver.find_element("id", "help").click()  # the "?" dialog lists the models
        info = driver.find_element("id", "model-info")
        wait_for(lambda: info.text == f"raster-cnn {BUNDLED_VERSION}", 15, message=f"the app shows the bundled model (shows {info.text!r})")
        before = rss_kib(srv.proc.pid)
        r = run("models", "download", NAME, "--manifest", host.url, "--model-store", Path(data) / "models")
        assert r.returncode == 0, r.stderr
        peak, progress, deadline = before, [], time.monotonic() + 600
        while time.monotonic() < deadline:
            peak = max(peak, rss_kib(srv.proc.pid))
            version, reindex = served_version(srv)
            if reindex:
                progress.append(reindex["done"])
                classify_over_http(srv, drawing)  # the old models keep answering meanwhile
            if version == "2.0.0":
                break
            time.sleep(0.5)
        assert version == "2.0.0", srv.log_tail(40)
        after = rss_kib(srv.proc.pid)
        print(f"\n  server RSS: {before / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB during the switch, {after / 1024:.0f} MiB after;"
              f" re-index progress seen: {sorted(set(progress))[:3]}…{max(progress, default=0)}", file=sys.stderr)
        assert progress and max(progress) > 0, "no re-index progress was reported"
        assert (Path(data) / "library-raster-cnn-2.0.0.sqlite").exists()
        assert "re-indexed the library for raster-cnn@2.0.0" in srv.log_tail(80)
        classify_over_http(srv, drawing)
        status, body, _, raw = srv.post_json("/api/suggest", {"strokes": json.loads(drawing[1].read_text())["drawing"]})
        assert status == 200 and body["suggestions"], raw
        driver.execute_script("return window.sketchwise.refreshModelInfo()")
        wait_for(lambda: info.text == "raster-cnn 2.0.0, downloaded", 15,
                 message=f"the app shows the downloaded model (shows {info.text!r})")
        assert "raster-cnn 2.0.0 (downloaded; raster, ensemble)" in driver.find_element("id", "model-list").text
        save_screenshot(driver, "models-switched.png")

        # Rolling back switches again, at once: the bundled model's index is still there.
        r = run("models", "rollback", NAME, "--model-store", Path(data) / "models")
        assert r.returncode == 0, r.stderr
        deadline = time.monotonic() + 120
        while served_version(srv)[0] != BUNDLED_VERSION and time.monotonic() < deadline:
            time.sleep(0.5)
        assert served_version(srv)[0] == BUNDLED_VERSION
        classify_over_http(srv, drawing)
    finally:
        stop_server(srv)


def test_server_serves_the_bundled_model_when_the_downloaded_one_is_broken(tmp_path_factory, host, drawing, lucide_index):
    data = data_with_index(tmp_path_factory, "fallback-data", lucide_index)
    store = Path(data) / "models"
    assert download(host, store).returncode == 0
    # The installed file is damaged on disk afterwards.
    weights = store / NAME / "2.0.0" / f"{NAME}.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    srv = start_server(tmp_path_factory, data, ["--sources", "lucide", "--model-updates", "local"], name="fallback-server")
    try:
        assert served_version(srv)[0] == BUNDLED_VERSION
        assert "is not used, the bundled one serves" in srv.log_tail(200)
        classify_over_http(srv, drawing)
    finally:
        stop_server(srv)


def test_server_latest_policy_downloads_before_serving(tmp_path_factory, host, drawing):
    data = tmp_path_factory.mktemp("latest-data")
    srv = start_server(tmp_path_factory, data, ["--sources", "lucide", "--model-updates", "latest", "--manifest", host.url],
                       name="latest-server")
    try:
        assert served_version(srv)[0] == "2.0.0"
        classify_over_http(srv, drawing)
    finally:
        stop_server(srv)


def test_server_starts_on_the_bundled_model_when_the_manifest_is_unreachable(tmp_path_factory, drawing, lucide_index):
    data = data_with_index(tmp_path_factory, "offline-data", lucide_index)
    srv = start_server(tmp_path_factory, data, ["--sources", "lucide", "--model-updates", "latest", "--manifest", "http://127.0.0.1:9/manifest.json"],
                       name="offline-server")
    try:
        assert served_version(srv)[0] == BUNDLED_VERSION
        assert "not downloaded" in srv.log_tail(200) or "manifest" in srv.log_tail(200)
        classify_over_http(srv, drawing)
    finally:
        stop_server(srv)


class StuckHost:
    """A hosted-model server that hangs (issue 34) on 127.0.0.1: "silent" accepts and never
    answers; "trickle" sends a 200 head, then a byte of the body every `every` seconds;
    "endless" sends a body without end and without a Content-Length. Counts the body bytes the
    client took."""

    def __init__(self, mode, every=0.5):
        self.mode, self.every, self.sent, self.open = mode, every, 0, True
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/manifest.json"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        with connection:
            try:
                connection.recv(65536)
                if self.mode == "silent":
                    while self.open:
                        time.sleep(0.1)
                    return
                length = b"Content-Length: 1000000\r\n" if self.mode == "trickle" else b""
                connection.sendall(b"HTTP/1.1 200 OK\r\n" + length + b"Connection: close\r\n\r\n")
                chunk = b"{" if self.mode == "trickle" else b" " * 65536
                while self.open:
                    connection.sendall(chunk)
                    self.sent += len(chunk)
                    if self.mode == "trickle":
                        time.sleep(self.every)
            except OSError:
                pass

    def close(self):
        self.open = False
        self.sock.close()


@pytest.mark.parametrize("mode", ["silent", "trickle"])
def test_server_listens_at_once_although_the_manifest_host_is_stuck(tmp_path_factory, drawing, lucide_index, mode):
    """`serve --model-updates latest` against a manifest host that hangs: /api/health answers
    after --model-start-timeout (2 s) plus the usual start, the bundled model serves, and the
    log says why."""
    from conftest import Server, _free_port
    stuck = StuckHost(mode)
    data = data_with_index(tmp_path_factory, f"stuck-{mode}-data", lucide_index)
    port = _free_port()
    log_path = tmp_path_factory.mktemp(f"stuck-{mode}-log") / "server.log"
    log = open(log_path, "wb")
    args = ["serve", "--host", "127.0.0.1", "--port", port, "--data-dir", data, "--sources", "lucide",
            "--model-updates", "latest", "--manifest", stuck.url, "--model-start-timeout", "2"]
    started = time.monotonic()
    proc = subprocess.Popen(ended_with_the_tests([binary(), *args]), cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    srv = Server(proc, port, log_path, data)
    srv.log = log
    try:
        health = None
        while time.monotonic() - started < 30 and proc.poll() is None:
            try:
                health, _, _ = srv.get("/api/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        took = time.monotonic() - started
        print(f"\n  /api/health answered {health} {took:.1f} s after start ({mode} manifest host)", file=sys.stderr)
        assert health == 200, srv.log_tail(40)
        assert took < 20, f"the server listened only after {took:.1f} s"
        assert "hosted models: not done after 2.0 seconds" in srv.log_tail(200)
        while time.monotonic() - started < 300 and srv.get("/api/ready", timeout=5)[0] != 200:
            time.sleep(0.5)
        assert served_version(srv)[0] == BUNDLED_VERSION
        classify_over_http(srv, drawing)
    finally:
        stop_server(srv)
        stuck.close()


@pytest.mark.parametrize("policy", ["latest", "background"])
def test_server_survives_a_manifest_declaring_two_to_the_sixty_third_bytes(tmp_path_factory, host, drawing, lucide_index, policy):
    """A size of 2⁶³−1 once trapped the server 2 s after it was ready (background) or at every
    start (latest): now the manifest is refused, saying why, and the bundled model serves."""
    manifest = host.manifest()
    manifest["models"][0]["size"] = 2**63 - 1
    host.manifest_body = json.dumps(manifest).encode()
    data = data_with_index(tmp_path_factory, f"huge-{policy}-data", lucide_index)
    srv = start_server(tmp_path_factory, data, ["--sources", "lucide", "--model-updates", policy, "--manifest", host.url],
                       name=f"huge-{policy}-server")
    try:
        deadline = time.monotonic() + 30
        while "4 GiB" not in srv.log_tail(200) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "over the 4294967296 (4 GiB) a model file may have" in srv.log_tail(200), srv.log_tail(40)
        time.sleep(2)
        assert srv.proc.poll() is None, srv.log_tail(40)
        assert served_version(srv)[0] == BUNDLED_VERSION
        classify_over_http(srv, drawing)
        assert host.hits[f"{NAME}.safetensors"] == 0
    finally:
        stop_server(srv)


@pytest.mark.parametrize("mode, reason", [("trickle", "deadline of 2 s"), ("endless", "over the limit")])
def test_download_from_a_hostile_host_ends_within_its_deadline_and_size(host, store, drawing, mode, reason):
    """The weights from a host that trickles (a byte a second, enough to pass the stall check)
    or never ends its body: refused within --deadline, having read no more than the declared
    size (the kernel's socket buffers aside)."""
    stuck = StuckHost(mode)
    try:
        manifest = host.manifest()
        manifest["models"][0]["url"] = stuck.url.replace("manifest.json", f"{NAME}.safetensors")
        host.manifest_body = json.dumps(manifest).encode()
        started = time.monotonic()
        r = download(host, store, "--deadline", "2", "--retries", "0", timeout=60)
        took = time.monotonic() - started
        print(f"\n  {mode}: refused after {took:.1f} s, {stuck.sent} bytes sent", file=sys.stderr)
        assert_refused(r, store, drawing, reason)
        assert took < 15
        assert stuck.sent < len(host.files[f"{NAME}.safetensors"]) + (32 << 20)
    finally:
        stuck.close()


def perturbed_weights(path, tensor_suffix="bias", label=0, delta=30.0):
    """A copy of a safetensors file whose last `*bias` tensor has `delta` added to one entry: a
    model that visibly favours one label, so two versions answer differently."""
    data = bytearray(path.read_bytes())
    header_length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + header_length])
    name = [k for k in header if k != "__metadata__" and k.endswith(tensor_suffix)][-1]
    start = 8 + header_length + header[name]["data_offsets"][0] + 4 * label
    (value,) = struct.unpack("<f", data[start : start + 4])
    data[start : start + 4] = struct.pack("<f", value + delta)
    return bytes(data)


def test_ab_test_splits_people_deterministically_and_counts_each_arm(tmp_path_factory, host, drawing, lucide_index):
    lite = "raster-cnn-lite"
    spec = json.loads((MODELS / f"{lite}.json").read_text())
    spec["version"] = "2.0.0"
    host.files[f"{lite}.json"] = json.dumps(spec).encode()
    host.files[f"{lite}.safetensors"] = perturbed_weights(MODELS / f"{lite}.safetensors")
    host.manifest_body = json.dumps({"models": [host.entry(name=lite)]}).encode()
    favoured = spec["labels"][0]
    data = data_with_index(tmp_path_factory, "ab-data", lucide_index)
    args = ["--sources", "lucide", "--model-updates", "local", "--manifest", host.url, "--ab-test", f"{lite}@2.0.0:50"]
    srv = start_server(tmp_path_factory, data, args, name="ab-server")
    strokes = json.loads(drawing[1].read_text())["drawing"]
    try:
        status, _, body = srv.get("/api/models")
        listing = json.loads(body)
        assert listing["experiment"]["model"] == lite and listing["experiment"]["control"] == "1.0.0", listing["experiment"]
        people = []
        for _ in range(24):
            status, created, _, raw = srv.post_json("/api/users", {})
            assert status == 201, raw
            auth = {"Authorization": f"Bearer {created['token']}"}
            status, _, body = srv.get("/api/users/me", headers=auth)
            arm = json.loads(body)["experiments"][f"{lite}@2.0.0"]
            people.append((auth, arm))
        arms = Counter(arm for _, arm in people)
        print(f"\n  arms of 24 people: {dict(arms)}", file=sys.stderr)
        assert 4 <= arms["treatment"] <= 20, arms

        # Each arm is answered by its own version: the treatment's puts one label first.
        answers = {}
        for auth, arm in people:
            status, body, _, raw = srv.post_json("/api/classify", {"strokes": strokes, "model": lite, "top": 3}, headers=auth)
            assert status == 200, raw
            answers.setdefault(arm, set()).add(tuple(g["label"] for g in body["guesses"]))
        assert len(answers["control"]) == 1 and len(answers["treatment"]) == 1, answers
        (control,), (treatment,) = answers["control"], answers["treatment"]
        assert treatment[0] == favoured and control[0] != favoured, answers

        # Suggestions answered and accepted are counted per arm.
        for auth, arm in people:
            status, body, _, raw = srv.post_json("/api/suggest", {"strokes": strokes}, headers=auth)
            assert status == 200 and body["suggestions"], raw
            status, _, _, raw = srv.post_json("/api/corrections", {"strokes": strokes, "label": drawing[0], "kind": "suggestion"},
                                              headers=auth)
            assert status in (200, 201), raw
        status, _, _, raw = srv.post_json("/api/corrections", {"strokes": strokes, "label": "x", "kind": "nope"}, headers=people[0][0])
        assert status == 400, raw
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            counts = {a["arm"]: a for a in json.loads(srv.get("/api/models")[2])["experiment"]["arms"]}
            if counts["control"]["accepted"] + counts["treatment"]["accepted"] == len(people):
                break
            time.sleep(0.5)
        print(f"  counts: {counts}", file=sys.stderr)
        for arm in ("control", "treatment"):
            assert counts[arm]["served"] == arms[arm] and counts[arm]["accepted"] == arms[arm], (arm, counts, arms)
    finally:
        stop_server(srv)
