"""Replays issue 14's attacks on a running `sketchwise serve` and checks that `/api/health`
answers within 1 s throughout each (bench/attack.sh starts the server and calls this).

    python3 bench/attack.py --port PORT [--pid PID] [--seconds 20]

Phases, each `--seconds` long, with health asked every 0.25 s from another address (127.0.0.250):
- silent: 3,000 connections from 30 addresses that send nothing;
- slow-loris: 3,000 connections sending a request's headers one byte a second;
- heavy flood: 24 clients posting the costliest legal sketch (one stroke of 20,000 random
  points) to /api/suggest back to back;
- malformed: garbage, conflicting lengths, HTTP/2 and TLS preambles, huge URLs and headers,
  bad chunks, unknown methods, as fast as 8 clients can send them;
- oversized: 8 clients declaring 100 GB bodies and sending 1 MiB + 1 of JSON.
Prints one line per phase (health: answered, max, p99; the server's answers; its RSS) and exits 1
if health ever took 1 s or more, or failed.
"""

import argparse
import json
import random
import socket
import subprocess
import sys
import threading
import time

HEALTH_LIMIT = 1.0


def rss_mib(pid):
    if not pid:
        return "?"
    out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return f"{int(out) / 1024:.0f} MiB" if out else "gone"


def health_probe(port, stop, samples):
    """Asks /api/health every 0.25 s from 127.0.0.250 until `stop` is set."""
    while not stop.is_set():
        start = time.monotonic()
        try:
            ok = exchange(port, b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "127.0.0.250", 5).startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        samples.append((time.monotonic() - start, ok))
        stop.wait(0.25)


def connections(port, count, addresses):
    socks = []
    for i in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"127.0.1.{1 + i % addresses}", 0))
            socks.append(sock)
        except OSError:
            pass
    return socks


def silent(port, seconds, answers):
    socks = connections(port, 3000, 30)
    time.sleep(seconds)
    closed = 0
    for sock in socks:
        sock.setblocking(False)
        try:
            closed += sock.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        sock.close()
    answers["opened"] = len(socks)
    answers["closed by the server"] = closed


def slow_loris(port, seconds, answers):
    socks = connections(port, 3000, 30)
    request = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
    end = time.monotonic() + seconds
    position = 0
    cut = 0
    while time.monotonic() < end and socks:
        alive = []
        for sock in socks:
            try:
                sock.send(request[position:position + 1])
                alive.append(sock)
            except OSError:
                cut += 1
                sock.close()
        socks = alive
        position = (position + 1) % len(request)
        time.sleep(1)
    for sock in socks:
        sock.close()
    answers["cut off"] = cut
    answers["still open"] = len(socks)


def heavy_body():
    rng = random.Random(1)
    points = 20_000
    return json.dumps({"strokes": [[[round(rng.uniform(0, 1000), 1) for _ in range(points)],
                                    [round(rng.uniform(0, 1000), 1) for _ in range(points)]]]}).encode()


def exchange(port, payload, source, timeout):
    """Sends `payload` from `source` and reads until the server closes: the answer's bytes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
    try:
        sock.sendall(payload)
    except OSError:
        pass  # the server may answer and close before reading everything
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except OSError:
        pass
    sock.close()
    return answer


def status_of(answer):
    return answer[9:12].decode(errors="replace") if answer.startswith(b"HTTP/1.") else "closed without answer"


def post(port, path, body, source, timeout=30):
    return status_of(exchange(port, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                    f"Content-Length: {len(body)}\r\n\r\n".encode() + body, source, timeout))


def clients(count, seconds, work, answers):
    end = time.monotonic() + seconds
    lock = threading.Lock()

    def loop(i):
        while time.monotonic() < end:
            try:
                status = work(i)
            except OSError as error:
                status = type(error).__name__
            with lock:
                answers[status] = answers.get(status, 0) + 1

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


MALFORMED = [
    b"\x00\x01garbage that is not HTTP\r\n\r\n",
    b"POST /api/classify HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
    b"POST /api/classify HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    bytes.fromhex("16030100a5010000a10303") + bytes(32) + b"\r\n\r\n",
    b"POST /api/classify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    b"GET /" + b"a" * 150_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 200_000 + b"\r\n\r\n",
    b"BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /\r\n",
    b"GET /index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n",
]


def send_raw(port, payload, source):
    return status_of(exchange(port, payload, source, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    port, seconds = args.port, args.seconds
    heavy = heavy_body()
    oversized = b'{"strokes": [[[0, 1], [0, 1]]], "pad": "' + b"x" * (1 << 20) + b'"}'
    phases = [
        ("silent", lambda answers: silent(port, seconds, answers)),
        ("slow-loris", lambda answers: slow_loris(port, seconds, answers)),
        ("heavy flood", lambda answers: clients(24, seconds, lambda i: post(port, "/api/suggest", heavy, f"127.0.2.{1 + i}"), answers)),
        ("malformed", lambda answers: clients(8, seconds, lambda i: send_raw(port, random.choice(MALFORMED), f"127.0.3.{1 + i}"), answers)),
        ("oversized", lambda answers: clients(8, seconds, lambda i: send_raw(
            port, b"POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n"
            + oversized, f"127.0.4.{1 + i}"), answers)),
    ]
    failed = False
    print(f"{'phase':<12} {'health answered':>15} {'max':>8} {'p99':>8}  server RSS  what the attack got")
    for name, attack in phases:
        stop, samples, answers = threading.Event(), [], {}
        probe = threading.Thread(target=health_probe, args=(port, stop, samples))
        probe.start()
        attack(answers)
        stop.set()
        probe.join()
        times = sorted(t for t, _ in samples)
        good = sum(ok for _, ok in samples)
        slowest = times[-1] if times else float("inf")
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else float("inf")
        ok = good == len(samples) and slowest < HEALTH_LIMIT and samples
        failed |= not ok
        print(f"{name:<12} {good:>7}/{len(samples):<7} {slowest * 1000:>6.0f}ms {p99 * 1000:>6.0f}ms  {rss_mib(args.pid):>10}  "
              f"{json.dumps(answers, sort_keys=True)}  {'PASS' if ok else 'FAIL'}", flush=True)
        time.sleep(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
