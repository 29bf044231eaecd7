"""The Debian package (issue 19): `make deb`'s script builds it from the binary under test, `apt-get
install ./sketchwise_….deb` installs it, and the installed `/usr/bin/sketchwise serve`, started
from `/` as the package's system user with the package's settings file, serves the web page,
/api/classify and /api/suggest. The unit is checked with `systemd-analyze verify` where that exists.

Installing a package changes the machine: the test runs only as root with apt-get (CI), and
purges the package afterwards. The binary packaged is the debug build under test, linked to the
Swift toolchain's runtime (ALLOW_TOOLCHAIN_LIBS=1); `make deb` packages the release build linked
statically to it."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, Server, _free_port, copy_library_index, sketchwise_binary

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get") or not shutil.which("dpkg-deb"),
    reason="installs a Debian package: needs root, apt-get and dpkg-deb (CI has them)")

STATE = Path("/var/lib/sketchwise")


def run(cmd, **kwargs):
    print(f"\n$ {' '.join(map(str, cmd))}", file=sys.stderr)
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd} exited with {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def installed_package(server):
    environment = dict(os.environ, BINARY=str(sketchwise_binary()), ALLOW_TOOLCHAIN_LIBS="1", DEB_COMPRESSION="none")
    started = time.monotonic()
    deb = REPO / run([REPO / "scripts" / "make-deb.sh"], env=environment, cwd=REPO).stdout.strip().splitlines()[-1]
    print(f"[package] built {deb} ({deb.stat().st_size / 1e6:.1f} MB) in {time.monotonic() - started:.0f}s", file=sys.stderr)
    run(["apt-get", "install", "-y", "-q", str(deb)], env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    # The index the session server built, so that the installed server only checks it.
    STATE.mkdir(exist_ok=True)
    copy_library_index(server.data_dir, STATE)
    run(["chown", "-R", "sketchwise:sketchwise", str(STATE)])
    yield deb
    run(["apt-get", "purge", "-y", "-q", "sketchwise"], env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    assert not Path("/usr/bin/sketchwise").exists() and not STATE.exists(), "purge left the binary or the state behind"


def test_package_installs_the_binary_resources_settings_unit_and_user(installed_package):
    files = run(["dpkg", "-L", "sketchwise"]).stdout.split()
    for path in ["/usr/bin/sketchwise", "/usr/share/sketchwise/web/index.html", "/usr/share/sketchwise/web/openapi.yaml",
                 "/usr/share/sketchwise/models/ensemble.json", "/usr/share/sketchwise/models/raster-cnn.safetensors",
                 "/usr/share/sketchwise/tables/picture-reviews.tsv", "/lib/systemd/system/sketchwise.service",
                 "/etc/sketchwise/sketchwise.conf"]:
        assert path in files, f"{path} not in the package"
    assert any(f.startswith("/usr/share/sketchwise/pictures/lucide/") and f.endswith(".svg") for f in files)
    status = run(["dpkg-query", "-W", "-f=${Status} ${Depends}", "sketchwise"]).stdout
    assert status.startswith("install ok installed"), status
    for dependency in ["libcairo2", "librsvg2-2", "openclipart-svg", "fonts-noto-color-emoji"]:
        assert dependency in status, f"Depends lacks {dependency}: {status}"
    assert run(["dpkg-query", "-W", "-f=${Conffiles}", "sketchwise"]).stdout.strip().startswith("/etc/sketchwise/sketchwise.conf")
    user = run(["getent", "passwd", "sketchwise"]).stdout
    assert ":/var/lib/sketchwise:" in user and user.rstrip().endswith(("/usr/sbin/nologin", "/bin/false")), user
    assert STATE.is_dir()


def test_systemd_unit_verifies(installed_package):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed: the unit is not verified")
    run(["systemd-analyze", "verify", "/lib/systemd/system/sketchwise.service"])


def test_settings_file_is_readable_by_root_and_the_service_only(installed_package):
    import grp
    import stat
    info = os.stat("/etc/sketchwise/sketchwise.conf")
    assert stat.S_IMODE(info.st_mode) == 0o640, oct(info.st_mode)
    assert info.st_uid == 0 and grp.getgrgid(info.st_gid).gr_name == "sketchwise"


def test_systemd_unit_is_sandboxed(installed_package):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed: the sandbox is not scored")
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "/lib/systemd/system/sketchwise.service"],
                            capture_output=True, text=True)
    score = float(result.stdout.rsplit("Overall exposure level for sketchwise.service:", 1)[1].split()[0])
    print(f"[package] systemd-analyze security: {score}", file=sys.stderr)
    assert score <= 2.0, result.stdout[-3000:]
    unit = Path("/lib/systemd/system/sketchwise.service").read_text()
    for setting in ["UMask=0077", "MemoryMax=", "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes"]:
        assert setting in unit, setting


def test_installed_server_runs_from_root_as_its_user(installed_package, known_drawing, tmp_path):
    port = _free_port()
    log_path = tmp_path / "installed-server.log"
    log = open(log_path, "wb")
    # The settings file as installed, with the port changed through the environment (which wins).
    command = ["runuser", "-u", "sketchwise", "--", "env", f"SKETCHWISE_PORT={port}",
               "/usr/bin/sketchwise", "serve", "--config", "/etc/sketchwise/sketchwise.conf"]
    print(f"\n$ (cd / && {' '.join(command)})", file=sys.stderr)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKETCHWISE_")}
    proc = subprocess.Popen(command, cwd="/", stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    srv = Server(proc, port, log_path, str(STATE))
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, f"the installed server exited with {proc.returncode}:\n{srv.log_tail()}"
            try:
                if srv.get("/api/ready", timeout=5)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"not ready after 300 s:\n{srv.log_tail()}"
            time.sleep(1)
        log_lines = Path(log_path).read_text().splitlines()
        assert any('"Serving files from /usr/share/sketchwise/web"' in line or "/usr/share/sketchwise/web" in line for line in log_lines)
        assert log_lines[0].startswith("{"), "the packaged settings ask for JSON logs"

        status, headers, body = srv.get("/")
        assert status == 200 and b"<canvas" in body, f"GET / → {status}"
        cls, record, _ = known_drawing
        status, answer, _, raw = srv.post_json("/api/classify", {"strokes": record["drawing"], "top": 3})
        assert status == 200 and cls in [g["label"] for g in answer["guesses"]], raw[:300]
        status, answer, _, raw = srv.post_json("/api/suggest", {"strokes": record["drawing"]})
        assert status == 200 and answer["suggestions"], raw[:300]
        assert (STATE / "personal.sqlite").exists(), "the state goes to /var/lib/sketchwise"
        metrics = srv.get("/metrics")[2].decode()
        assert 'sketchwise_model_info{name="raster-cnn"' in metrics
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
