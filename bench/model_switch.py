#!/usr/bin/env python3
"""Measures a raster-model switch on a running server: the server's RSS before, at its peak during
the switch and after; the re-index child's peak RSS (memory kept out of the server); how long the
re-index and the whole switch take; and that requests are answered throughout.

It starts `sketchwise serve` on a fresh data folder (all library sources), serves raster-cnn under
version 2.0.0 with `sketchwise models serve-manifest`, downloads it into the server's store, and
samples /proc every 100 ms until /api/models reports 2.0.0 active.

Usage:  python3 bench/model_switch.py [--binary PATH] [--data DIR] [--sources all|lucide,…]
(build first: swift build -c release --scratch-path .build-release --product sketchwise)
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def rss_kib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    """The processes whose parent is `pid` (any of its threads may have started them)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def wait_for(url, proc, timeout):
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            sys.exit(f"{proc.args[1]} exited with {proc.returncode}")
        try:
            return get_json(url)
        except OSError:
            time.sleep(0.5)
    sys.exit(f"{url} did not answer within {timeout} s")


def main():
    ap = argparse.ArgumentParser()
    default = REPO / ".build-release" / "release" / "sketchwise"
    ap.add_argument("--binary", type=Path, default=default)
    ap.add_argument("--data", type=Path, help="the server's data folder (default: a fresh temporary one)")
    ap.add_argument("--sources", default=None, help="library sources (default: every one installed)")
    ap.add_argument("--port", type=int, default=8093)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sketchwise-switch-"))
    data = args.data or work / "data"
    hosted = work / "hosted"
    hosted.mkdir()
    spec = json.loads((REPO / "Models" / "raster-cnn.json").read_text())
    spec["version"] = "2.0.0"
    (hosted / "raster-cnn.json").write_text(json.dumps(spec))
    shutil.copy(REPO / "Models" / "raster-cnn.safetensors", hosted / "raster-cnn.safetensors")

    serve = [str(args.binary), "serve", "--port", str(args.port), "--data-dir", str(data), "--model-updates", "local"]
    if args.sources:
        serve += ["--sources", args.sources]
    log = open(work / "server.log", "wb")
    started = time.monotonic()
    server = subprocess.Popen(serve, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    manifest = subprocess.Popen([str(args.binary), "models", "serve-manifest", str(hosted), "--port", "0"],
                                cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        manifest_url = manifest.stdout.readline().split()[-1]
        base = f"http://127.0.0.1:{args.port}"
        wait_for(f"{base}/api/ready", server, 1800)
        print(f"server ready in {time.monotonic() - started:.1f} s (log: {work / 'server.log'})")
        time.sleep(3)
        before = rss_kib(server.pid)
        download = subprocess.run([str(args.binary), "models", "download", "raster-cnn", "--manifest", manifest_url,
                                   "--model-store", str(data / "models")], capture_output=True, text=True)
        assert download.returncode == 0, download.stderr
        switch_started = time.monotonic()
        peak, child_peak, answered, reindex_seen = before, 0, 0, False
        while True:
            peak = max(peak, rss_kib(server.pid))
            for child in children(server.pid):
                child_peak = max(child_peak, rss_kib(child))
            listing = get_json(f"{base}/api/models")
            reindex_seen |= listing.get("reindex") is not None
            get_json(f"{base}/api/health")
            answered += 1
            active = [m["version"] for m in listing["models"] if m["name"] == "raster-cnn" and m["status"] == "active"]
            if active == ["2.0.0"]:
                break
            if time.monotonic() - switch_started > 1800:
                sys.exit("no switch within 30 minutes")
            time.sleep(0.1)
        switch = time.monotonic() - switch_started
        time.sleep(2)
        after = rss_kib(server.pid)
        reindexed = [line for line in (work / "server.log").read_text().splitlines() if "re-indexed the library" in line]
        last_reindex = reindexed[-1].split("] ")[-1] if reindexed else "?"
        print(f"switch to raster-cnn 2.0.0: {switch:.1f} s (re-index seen: {reindex_seen}; {last_reindex})")
        print(f"server RSS: {before / 1024:.0f} MiB before, {peak / 1024:.0f} MiB peak during the switch, {after / 1024:.0f} MiB after")
        print(f"re-index child's peak RSS: {child_peak / 1024:.0f} MiB (kept out of the server); "
              f"{answered} requests answered during the switch")
    finally:
        for proc in (manifest, server):
            proc.terminate()
            proc.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    main()
