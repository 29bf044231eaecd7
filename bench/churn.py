"""WebSocket churn against a running `sketchwise serve` (bench/churn.sh starts the server).

    python3 bench/churn.py --port PORT --pid PID [--connections 20000] [--rounds 3] [--settle 35]

Each round opens `--connections` WebSocket connections to /api/live from 8 threads, one after
another, and closes each one at once with a close frame; then it waits `--settle` seconds (past
the 30 s auto-ping period, whose pending sleeps hold memory for that long) and reads the server's
resident memory. Memory taken by the first round is the allocator's working set; every later
round must not keep more than 1 MiB per 10,000 connections, or the script exits 1 (issue 14: a
reference cycle kept about 1.3 KB per connection).
"""

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "Browser"))
from minimal_ws import WebSocket  # noqa: E402  (the project's small WebSocket client)


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def churn(port, count, failures, lock):
    for _ in range(count):
        try:
            WebSocket("127.0.0.1", port, "/api/live", timeout=10).close()
        except Exception as error:  # noqa: BLE001  (every failure is counted and shown)
            with lock:
                failures.append(repr(error))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--connections", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=35)
    args = parser.parse_args()

    threads = 8
    per_thread = args.connections // threads
    readings = [rss_mib(args.pid)]
    print(f"churn: {args.rounds} rounds of {per_thread * threads} WebSocket connections; RSS {readings[0]:.1f} MiB", flush=True)
    failures, lock = [], threading.Lock()
    for round_number in range(1, args.rounds + 1):
        started = time.monotonic()
        workers = [threading.Thread(target=churn, args=(args.port, per_thread, failures, lock)) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.monotonic() - started
        time.sleep(args.settle)
        readings.append(rss_mib(args.pid))
        print(f"round {round_number}: {per_thread * threads / elapsed:.0f} connections/s, "
              f"RSS {readings[-1]:.1f} MiB ({readings[-1] - readings[-2]:+.1f})", flush=True)
    kept = max(readings[-1] - readings[1], 0) if args.rounds > 1 else 0
    allowed = (args.rounds - 1) * per_thread * threads / 10000
    print(f"failures: {len(failures)}{' ' + failures[0] if failures else ''}")
    print(f"kept after the first round: {kept:.1f} MiB (allowed {allowed:.1f})")
    ok = not failures and kept <= allowed
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
