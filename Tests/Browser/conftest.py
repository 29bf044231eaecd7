"""Fixtures for the end-to-end tests of `sketchwise serve`: the server process, HTTP helpers, a real
Quick, Draw! drawing the model recognises, and a headless Chromium.

Environment:
  SKETCHWISE_BIN             the binary (default .build/debug/sketchwise)
  SKETCHWISE_TEST_DATA_DIR   the server's --data-dir (default: a fresh temporary folder; the
                             library index is built there on first start, which takes a while)
  SKETCHWISE_SHARED_DATA     the shared data folder (default ../shared/data beside the repo); without
                             it, real drawings come from the committed sample Tests/Fixtures/quickdraw
  SKETCHWISE_STARTUP_TIMEOUT seconds to wait for GET /api/ready (default 600)

Run with Debian's Python, which has python3-selenium:  /usr/bin/python3 -m pytest Tests/Browser
Under pytest-xdist (python3-pytest-xdist; `-n 3 --dist loadfile`, as `make test` runs them) each
worker's session server has a folder of its own (its own personal.sqlite) under the data dir,
with a copy of the library index that the first worker builds there.
"""

import fcntl
import functools
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SKETCHWISE_SHARED_DATA", REPO.parent / "shared" / "data"))
#: The servers' installed pictures (scripts/install-deps.sh; the doodles scripts/install-doodles.sh).
PICTURES = Path(os.environ.get("SKETCHWISE_PICTURES", "/usr/local/share/sketchwise/pictures"))
SAMPLE = REPO / "Tests" / "Fixtures" / "quickdraw"
#: Raw Quick, Draw! drawings: the shared data's, or the committed sample of a few classes (a fresh clone).
RAW = SHARED / "quickdraw" / "raw" if (SHARED / "quickdraw" / "raw").is_dir() else SAMPLE / "raw"
ARTIFACTS = REPO / "out" / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def skip_module_without_browser():
    """Skips the calling test module, before any server starts, when Selenium or Debian's Chromium
    is missing."""
    pytest.importorskip("selenium", reason=f"selenium is not importable from {sys.executable} "
                        "(Debian: python3-selenium; run with /usr/bin/python3)")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            pytest.skip(f"{path} not found (Debian: chromium, chromium-driver)", allow_module_level=True)

# Classes tried, in order, for a drawing the model recognises.
CANDIDATE_CLASSES = ["cat", "house", "sun", "bicycle", "star", "tree", "clock", "fish", "car", "apple", "umbrella"]


# ---- the server ------------------------------------------------------------------------------


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ended_with_the_tests(command):
    """``command`` run so that the kernel stops it (SIGTERM) when the test process that started it
    dies, also when that process is killed: an interrupted run leaves no server behind
    (util-linux's setpriv, Linux's parent-death signal; as given where setpriv is missing)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--", *map(str, command)] if setpriv else list(map(str, command))


class Server:
    """A running `sketchwise serve` and small HTTP helpers against it."""

    def __init__(self, proc, port, log_path, data_dir):
        self.proc = proc
        self.host = "127.0.0.1"
        self.port = port
        self.base = f"http://{self.host}:{port}"
        self.log_path = log_path
        self.data_dir = data_dir

    def log_tail(self, n=80):
        try:
            lines = Path(self.log_path).read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-n:])

    def request(self, method, path, body=None, headers=None, timeout=120):
        """(status, headers dict lower-cased, body bytes). body may be bytes, str or a JSON-able object."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        hdrs = dict(headers or {})
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            hdrs.setdefault("Content-Type", "application/json")
        if isinstance(body, str):
            body = body.encode()
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            for k, v in hdrs.items():
                conn.putheader(k, v)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            if body is not None:
                try:
                    conn.send(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server may answer (413) before reading everything
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post_json(self, path, obj, **kw):
        status, headers, data = self.request("POST", path, body=obj, **kw)
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = None
        return status, parsed, headers, data


def sketchwise_binary():
    """The binary under test: $SKETCHWISE_BIN, default .build/debug/sketchwise; skips when missing."""
    path = Path(os.environ.get("SKETCHWISE_BIN", REPO / ".build" / "debug" / "sketchwise"))
    path = path if path.is_absolute() else REPO / path
    if not path.exists():
        pytest.skip(f"sketchwise binary not found at {path} (build it, or set SKETCHWISE_BIN)")
    return path


def start_server(tmp_path_factory, data_dir, extra_args=(), name="server"):
    """Starts `sketchwise serve` on a free port with `extra_args` and waits for GET /api/ready (the
    library index loaded; /api/health, liveness, answers from the start)."""
    binary = Path(os.environ.get("SKETCHWISE_BIN", REPO / ".build" / "debug" / "sketchwise"))
    if not binary.is_absolute():
        binary = REPO / binary
    if not binary.exists():
        pytest.skip(f"server binary not found at {binary} (build it, or set SKETCHWISE_BIN)")
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    port = _free_port()
    log_path = tmp_path_factory.mktemp(f"{name}-log") / "server.log"
    timeout = float(os.environ.get("SKETCHWISE_STARTUP_TIMEOUT", "600"))
    cmd = [str(binary), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir), *extra_args]
    print(f"\n[{name}] {' '.join(cmd)}  (log: {log_path})", file=sys.stderr)
    log = open(log_path, "wb")
    proc = subprocess.Popen(ended_with_the_tests(cmd), cwd=REPO, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    srv = Server(proc, port, log_path, data_dir)
    srv.log = log

    started = time.monotonic()
    while True:
        if proc.poll() is not None:
            log.close()
            pytest.fail(f"server exited with {proc.returncode} before it was ready; log:\n{srv.log_tail(200)}")
        try:
            status, _, body = srv.get("/api/ready", timeout=5)
            if status == 200:
                break
        except OSError:
            pass
        if time.monotonic() - started > timeout:
            proc.kill()
            proc.wait()
            log.close()
            pytest.fail(f"GET /api/ready not 200 after {timeout:.0f}s; log:\n{srv.log_tail(200)}")
        time.sleep(0.2)
    print(f"[{name}] ready in {time.monotonic() - started:.1f}s: {body.decode(errors='replace')}", file=sys.stderr)
    return srv


def stop_server(srv):
    """Stops a server started by start_server with SIGTERM; fails if it died or exits badly."""
    proc, log = srv.proc, srv.log
    if proc.poll() is not None:
        log.close()
        pytest.fail(f"server died during the tests with exit code {proc.returncode}; log:\n{srv.log_tail(200)}")
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        log.close()
        pytest.fail(f"server did not exit within 10 s of SIGTERM; log:\n{srv.log_tail(80)}")
    log.close()
    assert code == 0, f"server exited with {code} after SIGTERM (expected 0); log:\n{srv.log_tail(80)}"


def data_dir_for(tmp_path_factory):
    return os.environ.get("SKETCHWISE_TEST_DATA_DIR") or str(tmp_path_factory.getbasetemp() / "sketchwise-data")


def session_data_dir(tmp_path_factory):
    """The session server's --data-dir: the data dir itself, or under pytest-xdist a folder of the
    worker's own beside it, so that no two workers share a personal store. The library index is
    built (or checked) once in the shared folder, by one worker at a time, and copied."""
    shared = Path(data_dir_for(tmp_path_factory))
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return shared
    own = shared / worker
    own.mkdir(parents=True, exist_ok=True)
    with open(shared / ".index-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        indexer = start_server(tmp_path_factory, shared, name=f"indexer-{worker}")
        stop_server(indexer)
        copy_library_index(shared, own)
    return own


def copy_library_index(data_dir, folder):
    """Copies the library index of a server's data dir into `folder`, so that a server started
    there only checks it (a first start builds it, which takes minutes with a debug build)."""
    with sqlite3.connect(Path(data_dir) / "library.sqlite") as source, sqlite3.connect(Path(folder) / "library.sqlite") as copy:
        source.backup(copy)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    srv = start_server(tmp_path_factory, session_data_dir(tmp_path_factory))
    yield srv
    stop_server(srv)


@pytest.fixture(scope="session")
def strict_server(tmp_path_factory, server):
    """A second server over the same index with short connection timeouts, a low limit of
    connections per client, one worker thread with two places in its queue and a request timeout
    of 1 s, for the connection and admission tests."""
    srv = start_server(tmp_path_factory, server.data_dir, [
        "--header-timeout", "1", "--body-timeout", "1.5", "--idle-timeout", "2", "--max-connections-per-client", "20",
        "--workers", "1", "--queue-length", "2", "--request-timeout", "1",
    ], name="strict-server")
    yield srv
    stop_server(srv)


# ---- real drawings ---------------------------------------------------------------------------


def read_drawings(cls, limit=None, max_points=1500, max_strokes=24):
    """Raw Quick, Draw! records of a class, skipping very long drawings."""
    out = []
    path = RAW / f"{cls}.ndjson"
    if not path.exists():
        return out
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            points = sum(len(s[0]) for s in rec["drawing"])
            if points > max_points or len(rec["drawing"]) > max_strokes:
                continue
            out.append(rec)
            if limit and len(out) >= limit:
                break
    return out


@pytest.fixture(scope="session")
def known_drawing(server):
    """(class, record, top-3 labels): a real raw drawing whose class /api/classify puts in its top 3."""
    tried = []
    for cls in CANDIDATE_CLASSES:
        for rec in read_drawings(cls, limit=8):
            status, body, _, raw = server.post_json("/api/classify", {"strokes": rec["drawing"], "top": 3})
            assert status == 200, f"POST /api/classify → {status}: {raw[:300]!r}"
            labels = [g["label"] for g in body["guesses"]]
            tried.append((cls, labels))
            if cls in labels:
                print(f"\n[drawing] {cls} key_id={rec['key_id']} strokes={len(rec['drawing'])} top3={labels}", file=sys.stderr)
                return cls, rec, labels
    pytest.fail(f"no drawing of {CANDIDATE_CLASSES} had its class in the top 3: {tried}")


# ---- the browser -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser_available():
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip(f"selenium is not importable from {sys.executable} (Debian: python3-selenium; run with /usr/bin/python3)")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.exists(path) or shutil.which(os.path.basename(path))):
            pytest.skip(f"{path} not found (Debian: chromium, chromium-driver)")
    return True


@pytest.fixture
def download_dir(tmp_path):
    d = tmp_path / "downloads"
    d.mkdir()
    return d


def new_driver(download_dir):
    """Headless Chromium at 1280×900, downloads going to download_dir."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--disable-gpu", "--hide-scrollbars=false"):
        opts.add_argument(arg)
    opts.add_experimental_option("prefs", {
        "download.default_directory": str(download_dir),
        "download.prompt_for_download": False,
        "download.directory_upgrade": True,
        "safebrowsing.enabled": False,
    })
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Chromium leaves a temporary folder behind at each run (its singleton socket): made in a
    # folder of the driver's own, removed with it (short: a socket's path has at most 107 bytes).
    scratch = tempfile.mkdtemp(prefix="sketchwise-chromium-")
    service = Service(executable_path=CHROMEDRIVER, env={**os.environ, "TMPDIR": scratch})
    drv = webdriver.Chrome(service=service, options=opts)
    drv.scratch = scratch
    drv.set_window_size(1280, 900)
    try:
        drv.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(download_dir)})
    except Exception:  # older drivers: the prefs above do it
        pass
    drv.set_script_timeout(60)
    return drv


def quit_driver(drv):
    """Prints the page's JavaScript errors, then closes the browser."""
    try:
        for entry in drv.get_log("browser"):
            if entry.get("level") == "SEVERE" and entry.get("source") == "javascript":
                print(f"[browser] {entry.get('message')}", file=sys.stderr)
    except Exception:
        pass
    drv.quit()
    shutil.rmtree(drv.scratch, ignore_errors=True)


@pytest.fixture
def driver(browser_available, download_dir):
    """Headless Chromium at 1280×900, downloads going to download_dir."""
    drv = new_driver(download_dir)
    yield drv
    quit_driver(drv)


# ---- the web app without a server behind it ---------------------------------------------------

WEB = REPO / "Sources" / "SketchwiseServer" / "Web"


@pytest.fixture
def static_base():
    """The Web folder served by a plain static HTTP server (no API behind it)."""
    handler = functools.partial(_QuietHandler, directory=str(WEB))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# ---- the accessibility engine ------------------------------------------------------------------

AXE = Path(os.environ.get("SKETCHWISE_AXE", PICTURES.parent / "test-tools" / "axe-core-4.4.3" / "axe.min.js"))


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's browser script (scripts/install-deps.sh --test installs it)."""
    if not AXE.exists():
        pytest.skip(f"{AXE} not found: scripts/install-deps.sh --test installs axe-core")
    return AXE.read_text()
