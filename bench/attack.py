"""Replays the attacks of issues 14 and 34 on a running `sketchwise serve` and checks that
`/api/health` answers within 100 ms throughout each (bench/attack.sh starts the server and calls this).

    python3 bench/attack.py --port PORT [--pid PID] [--seconds 20] [--phases NAME,NAME]

Every attack comes from loopback addresses (127.0.x.y) and targets 127.0.0.1 only. Phases, each
`--seconds` long or bounded by a count, with health asked every 0.25 s from 127.0.0.250 (by a
process of its own, so that the attack's threads do not delay it):
- silent: 3,000 connections from 30 addresses that send nothing;
- slow-loris: 3,000 connections sending a request's headers one byte a second;
- heavy-flood: 24 clients posting the costliest legal sketch to render (one stroke of 20,000
  random points) to /api/suggest back to back;
- scene-flood: 24 clients posting the costliest legal sketch for scene detection (256 strokes
  of 78 random points) to /api/detect back to back;
- malformed: garbage, conflicting lengths, HTTP/2 and TLS preambles, huge URLs and headers,
  bad chunks, unknown methods, as fast as 8 clients can send them;
- oversized: 8 clients declaring 100 GB bodies and sending 1 MiB + 1 of JSON;
- ws-early-byte: 4 clients send a /api/live handshake and one byte ("X") in the same packet,
  before the server's 101 (once a fatal error in NIO);
- photo-bombs: once each, PNGs of 9,000,000×1, 20,000,000×2, 50,000,000×1, 10,000×1 and
  100,000×1 pixels (a few KB each), two cut-off PNGs that end with IEND, (with PIL) a
  progressive JPEG of 7,000×7,000 with 100,000 empty scans, then photos just within the limits
  (7,000×7,000 RGBA, 20,000×1,000, a JPEG of 7,000×7,000 with 40 scans); fails if the server's
  RSS grows by more than 1 GiB, it answers 500 or not at all, or it dies;
- idle-sockets: 4,200 live sockets (105 from each of 40 addresses) that answer pings, all closed
  at the end; fails if one address gets more than 16 (--live-per-client), all of them more than
  --max-live, a refusal is answered anything but 503 with Retry-After (or a close), or a new
  socket is not admitted once they are closed;
- early-answer: a client sends a 900 KB text/plain body to /api/suggest (answered 415 before the
  body is read) and then a valid request on the same connection (every other time sent at once
  behind the body) while another client sends valid requests; fails on any 400 after a 415;
- fairness: 24 connections from one address loop the heavy /api/suggest while another address
  asks a small sketch's suggestions every 0.5 s; fails if that client's median is over 2 s (an
  answer other than 200 counts as never served);
- users-flood, corrections-flood: POST /api/users from one address, and 711 KB corrections for
  one person, back to back (counts of 201/200, 429 quota_exceeded and 429 rate_limited, with or without Retry-After);
- labels: shortcuts labelled "a\\0b", "\\0a" and one grapheme of 800 KB, then the person's
  GET /api/shortcuts, /api/shortcuts/predict and /api/suggest, which must not answer 500;
- methods: HEAD, TRACE and CONNECT on /api/health (200, 501, 501).
Prints one line per phase (health: answered, max, p99; the server's RSS; what the attack got;
PASS or FAIL with why) and exits 1 if health ever took more than 100 ms or failed, if a phase's
own check failed, or if the server died (the phases after that are not run).
"""

import argparse
import json
import math
import multiprocessing
import os
import random
import resource
import selectors
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import zlib

HEALTH_LIMIT = 0.1  # seconds: /api/health must answer within 100 ms throughout (issue 34)


def rss_bytes(pid):
    """The server's resident set in bytes, or None when it is gone (or no pid was given)."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return int(out) * 1024 if out else None


def mib(value):
    return f"{value / (1 << 20):.0f} MiB" if value is not None else "?"


def rss_mib(pid):
    if not pid:
        return "?"
    value = rss_bytes(pid)
    return mib(value) if value is not None else "gone"


def alive(pid):
    if not pid:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:  # a zombie has not been reaped yet but is dead
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def health_probe(port, stop, samples):
    """Asks /api/health every 0.25 s from 127.0.0.250 until `stop` is set."""
    while not stop.is_set():
        start = time.monotonic()
        try:
            reply = exchange(port, b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "127.0.0.250", 5)
            ok = reply.startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        samples.append((time.monotonic() - start, ok))
        stop.wait(0.25)


def probe_process(port, stop, queue):
    samples = []
    health_probe(port, stop, samples)
    queue.put(samples)


class Probe:
    """The health probe in a process of its own, so that the attack's threads (and Python's lock)
    never delay it: what it measures is the server's time."""

    def __init__(self, port):
        context = multiprocessing.get_context("fork")
        self.stop, self.queue = context.Event(), context.Queue()
        self.process = context.Process(target=probe_process, args=(port, self.stop, self.queue), daemon=True)
        self.process.start()

    def samples(self):
        self.stop.set()
        try:
            samples = self.queue.get(timeout=30)
        except Exception:
            samples = []
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
        return samples


def connections(port, count, addresses, prefix="127.0.1"):
    socks = []
    for i in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"{prefix}.{1 + i % addresses}", 0))
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
        alive_socks = []
        for sock in socks:
            try:
                sock.send(request[position:position + 1])
                alive_socks.append(sock)
            except OSError:
                cut += 1
                sock.close()
        socks = alive_socks
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


def heavy_scene_body():
    """256 strokes of 78 random points: the costliest legal sketch for /api/detect, whose scene
    replay renders the growing object's strokes (about 1.3 s in release)."""
    rng = random.Random(2)
    def coordinates():
        return [round(rng.uniform(0, 1000), 1) for _ in range(78)]

    strokes = [[coordinates(), coordinates()] for _ in range(256)]
    return json.dumps({"strokes": strokes, "maxObjects": 20}).encode()


def cat_strokes(jitter=0.0, seed=0):
    """A small cat-like sketch: a round head, two pointed ears, eyes and whiskers (7 strokes)."""
    rng = random.Random(seed)

    def j(value):
        return round(value + rng.uniform(-jitter, jitter), 1)

    head_x = [j(100 + 60 * math.cos(2 * math.pi * k / 24)) for k in range(25)]
    head_y = [j(120 + 55 * math.sin(2 * math.pi * k / 24)) for k in range(25)]
    return [
        [head_x, head_y],
        [[j(55), j(62), j(85)], [j(85), j(30), j(68)]],
        [[j(115), j(138), j(145)], [j(68), j(30), j(85)]],
        [[j(78), j(82)], [j(105), j(110)]],
        [[j(118), j(122)], [j(105), j(110)]],
        [[j(40), j(85)], [j(125), j(130)]],
        [[j(115), j(160)], [j(130), j(125)]],
    ]


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


def body_text(answer, limit):
    """The start of an answer's body, as text."""
    return answer.split(b"\r\n\r\n", 1)[-1][:limit].decode(errors="replace")


def described(answer):
    """The answer's status, with its error code for a 503 or 429 ("503 busy", "503 timeout")."""
    status = status_of(answer)
    if status in ("503", "429"):
        try:
            code = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"]
            return f"{status} {code}"
        except (ValueError, KeyError, TypeError, IndexError):
            pass
    return status


def header_of(answer, name):
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    for line in head.split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def request_bytes(method, path, body=b"", content_type="application/json", token=None, close=True):
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\n"
    if body or method in ("POST", "PATCH", "PUT"):
        head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if close:
        head += "Connection: close\r\n"
    return (head + "\r\n").encode() + body


def post(port, path, body, source, timeout=30):
    return status_of(exchange(port, request_bytes("POST", path, body), source, timeout))


def call(port, method, path, source, body=b"", token=None, content_type="application/json", timeout=30):
    """One request on its own connection: (status, the whole answer)."""
    answer = exchange(port, request_bytes(method, path, body, content_type, token), source, timeout)
    return status_of(answer), answer


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


def count(answers, key, by=1):
    answers[key] = answers.get(key, 0) + by


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


# --- keep-alive HTTP/1.1 -------------------------------------------------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection that reads answers by their Content-Length (or chunks)."""

    def __init__(self, port, source, timeout=15):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
        self.buffer = b""

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes a thread still sending on it
        except OSError:
            pass
        self.sock.close()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionAbortedError("closed by the server")
        self.buffer += chunk

    def answer(self):
        """The next answer: (status, headers in lower case, body). Raises OSError when the server closed."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0][9:12] if lines[0].startswith("HTTP/1.") else "not HTTP"
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while b"\r\n" not in self.buffer:
                    self._fill()
                size_line, self.buffer = self.buffer.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buffer) < size + 2:
                    self._fill()
                body += self.buffer[:size]
                self.buffer = self.buffer[size + 2:]
                if size == 0:
                    break
        else:
            length = int(headers.get("content-length", "0"))
            while len(self.buffer) < length:
                self._fill()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, headers, body

    def extra(self, wait):
        """Whatever the server sends within `wait` seconds without being asked: statuses of extra answers."""
        self.sock.settimeout(wait)
        found = []
        try:
            while True:
                if b"\r\n\r\n" in self.buffer:
                    found.append(self.answer()[0])
                    continue
                self._fill()
        except (socket.timeout, TimeoutError):
            pass
        except OSError:
            pass
        finally:
            self.sock.settimeout(15)
        return found


# --- ws-early-byte -------------------------------------------------------------------------------

HANDSHAKE = (b"GET /api/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def read_head(sock, limit=16384):
    """Bytes until the end of the answer's head, or until the server closes."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def ws_early_byte(port, seconds, answers):
    def one(i):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"127.0.5.{1 + i}", 0))
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(HANDSHAKE + b"X")  # one packet: the byte arrives before the server's 101
            return status_of(read_head(sock))
        finally:
            sock.close()

    clients(4, seconds, one, answers)


# --- photo-bombs ---------------------------------------------------------------------------------


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_zeros(width, height, channels=1):
    """A PNG of `width`×`height` black pixels (8-bit grey or RGB), built row by row so that the
    decoded size never exists here: one IDAT of zlib-compressed filtered rows."""
    colour = {1: 0, 3: 2, 4: 6}[channels]
    compressor = zlib.compressobj(9)
    parts = []
    zeros = bytes(min(width * channels, 1 << 22))
    for _ in range(height):
        parts.append(compressor.compress(b"\x00"))
        left = width * channels
        while left > 0:
            step = min(left, len(zeros))
            parts.append(compressor.compress(zeros[:step]))
            left -= step
    parts.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", b"".join(parts)) + png_chunk(b"IEND", b"")


def png_cut(declared_whole):
    """A 512×512 RGB PNG of noise cut at half of its pixel data, ending with an IEND chunk: with
    `declared_whole` the IDAT chunk still declares its whole length (the file was cut, IEND
    appended), otherwise a shorter, well-formed IDAT holds a zlib stream that stops halfway."""
    rng = random.Random(7)
    width = height = 512
    rows = b"".join(b"\x00" + bytes(rng.getrandbits(8) for _ in range(width * 3)) for _ in range(height))
    data = zlib.compress(rows, 6)
    half = data[: len(data) // 2]
    header = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    if declared_whole:
        return header + struct.pack(">I", len(data)) + b"IDAT" + half + png_chunk(b"IEND", b"")
    return header + png_chunk(b"IDAT", half) + png_chunk(b"IEND", b"")


def jpeg_segments(data):
    """(marker, start, end) of each marker segment of a JPEG (entropy-coded data is skipped)."""
    out, i = [], 2
    while i < len(data) - 1:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0x00, 0xFF) or 0xD0 <= marker <= 0xD7:
            i += 1 if marker == 0xFF else 2
            continue
        if marker == 0xD9:
            out.append((marker, i, i + 2))
            break
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, i, i + 2 + length))
        i += 2 + length
    return out


def jpeg_scan_bomb(scans=100_000, side=7000):
    """A progressive JPEG that declares `side`×`side` pixels and ends with `scans` copies of its
    last scan's header and no data (each a pass over every block; a negative count -N: as many as
    make N scans in all); None without PIL."""
    try:
        from io import BytesIO

        from PIL import Image
    except ImportError:
        return None
    rng = random.Random(3)
    image = Image.new("RGB", (64, 64))
    image.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(64 * 64)])
    out = BytesIO()
    image.save(out, "JPEG", progressive=True, quality=90)
    data = bytearray(out.getvalue())
    segments = jpeg_segments(bytes(data))
    sof = next(start for marker, start, _ in segments if marker == 0xC2)
    data[sof + 5:sof + 9] = struct.pack(">HH", side, side)
    last_sos = [(start, end) for marker, start, end in segments if marker == 0xDA][-1]
    header = bytes(data[last_sos[0]:last_sos[1]])
    if scans < 0:
        scans = max(0, -scans - sum(1 for marker, _, _ in segments if marker == 0xDA))
    eoi = next(start for marker, start, _ in segments if marker == 0xD9)
    return bytes(data[:eoi]) + header * scans + b"\xff\xd9"


def photo_cases():
    """The photos of issue 34's findings (refused from their headers now), then photos just within
    the limits (50 megapixels, a side of 20,000, 20:1, 2e9 scans × pixels) that are decoded for real."""
    return [
        ("png 9000000x1", "image/png", lambda: png_zeros(9_000_000, 1)),
        ("png 20000000x2", "image/png", lambda: png_zeros(20_000_000, 2)),
        ("png 50000000x1", "image/png", lambda: png_zeros(50_000_000, 1)),
        ("png 10000x1", "image/png", lambda: png_zeros(10_000, 1, 3)),
        ("png 100000x1", "image/png", lambda: png_zeros(100_000, 1, 3)),
        ("png cut, IEND", "image/png", lambda: png_cut(True)),
        ("png half zlib, IEND", "image/png", lambda: png_cut(False)),
        ("jpeg scan bomb", "image/jpeg", jpeg_scan_bomb),
        ("png 7000x7000 rgba", "image/png", lambda: png_zeros(7000, 7000, 4)),
        ("png 20000x1000", "image/png", lambda: png_zeros(20_000, 1000, 3)),
        ("jpeg 7000x7000 40 scans", "image/jpeg", lambda: jpeg_scan_bomb(scans=-40, side=7000)),
    ]


def photo_bombs(port, pid, answers, timeout=40, limit=1 << 30):
    """Posts each photo once, watching the server's RSS (every 50 ms) while it answers."""
    start_rss = rss_bytes(pid)
    peak = [start_rss or 0]
    ok = True
    why = []
    for name, content_type, build in photo_cases():
        body = build()
        if body is None:
            answers[name] = "skipped: PIL is not importable (python3 -m pip install pillow)"
            print(f"  photo-bombs: {name} skipped, PIL is not importable", flush=True)
            continue
        done = threading.Event()

        def watch():
            while not done.wait(0.05):
                value = rss_bytes(pid)
                if value is not None:
                    peak[0] = max(peak[0], value)

        watcher = threading.Thread(target=watch)
        watcher.start()
        began = time.monotonic()
        try:
            status, answer = call(port, "POST", "/api/photo", "127.0.6.250", body, content_type=content_type, timeout=timeout)
        except OSError as error:
            status, answer = type(error).__name__, b""
        took = time.monotonic() - began
        done.set()
        watcher.join()
        after = rss_bytes(pid)
        code = ""
        if answer and b"\r\n\r\n" in answer:
            try:
                code = json.loads(answer.split(b"\r\n\r\n", 1)[1]).get("error", {}).get("code", "")
            except (ValueError, AttributeError):
                pass
        answers[name] = f"{status}{' ' + code if code else ''} in {took:.1f}s, {len(body) / 1024:.0f} KB, RSS after {mib(after)}"
        if pid and not alive(pid):
            ok = False
            why.append(f"the server died on {name}")
            break
        if status in ("500", "closed without answer") or status.endswith("Error"):
            ok = False
            why.append(f"{name}: {status}")
    if start_rss is not None:
        answers["RSS peak over start"] = mib(peak[0] - start_rss)
        if peak[0] - start_rss > limit:
            ok = False
            why.append(f"RSS grew by {mib(peak[0] - start_rss)}")
    return ok, "; ".join(why)


# --- idle-sockets --------------------------------------------------------------------------------


def ws_frame(opcode, payload=b""):
    """A masked client frame (a mask of zeros: the payload goes as it is)."""
    assert len(payload) < 126
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\x00\x00\x00\x00" + payload


def ws_frames(buffer):
    """Complete server frames at the start of `buffer`: ([(opcode, payload)], rest)."""
    frames = []
    while len(buffer) >= 2:
        opcode, length, at = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
        if length == 126:
            if len(buffer) < 4:
                break
            length, at = struct.unpack(">H", buffer[2:4])[0], 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length, at = struct.unpack(">Q", buffer[2:10])[0], 10
        if buffer[1] & 0x80:
            at += 4  # servers do not mask, but skip a mask if one came
        if len(buffer) < at + length:
            break
        frames.append((opcode, buffer[at:at + length]))
        buffer = buffer[at + length:]
    return frames, buffer


def idle_sockets(port, seconds, answers, addresses=40, each=105, per_client=16, max_live=1024):
    """Opens `addresses`×`each` live sockets from 127.0.6.x, keeps those that upgrade open for the
    phase answering pings, and closes every socket at the end."""
    selector = selectors.DefaultSelector()
    state = {}  # socket → [source, buffer, upgraded]
    admitted = {}
    end = time.monotonic() + seconds

    def settle(sock):
        source, buffer, upgraded = state[sock]
        if upgraded:
            frames, rest = ws_frames(buffer)
            state[sock][1] = rest
            for opcode, payload in frames:
                if opcode == 9:
                    count(answers, "pings answered")
                    try:
                        sock.sendall(ws_frame(0xA, payload[:125]))
                    except OSError:
                        pass
                elif opcode == 8:
                    count(answers, "closed by the server after 101")
                    drop(sock)
                    return
            return
        if b"\r\n\r\n" not in buffer:
            return
        status = status_of(buffer)
        if status == "101":
            state[sock][2] = True
            state[sock][1] = buffer.split(b"\r\n\r\n", 1)[1]
            admitted[source] = admitted.get(source, 0) + 1
            count(answers, "101")
            settle(sock)
        else:
            retry = header_of(buffer, "Retry-After")
            count(answers, f"{status} with Retry-After" if retry else status)
            drop(sock)

    def drop(sock):
        try:
            selector.unregister(sock)
        except (KeyError, ValueError):
            pass
        state.pop(sock, None)
        sock.close()

    def pump(wait):
        for key, _ in selector.select(wait):
            sock = key.fileobj
            if sock not in state:
                continue
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                if state[sock][2]:
                    count(answers, "closed by the server after 101")
                else:
                    count(answers, "closed without answer")
                drop(sock)
                continue
            state[sock][1] += chunk
            settle(sock)

    opened = failed = 0
    try:
        for i in range(addresses * each):
            if time.monotonic() > end:
                break
            source = f"127.0.6.{1 + i % addresses}"
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=3, source_address=(source, 0))
                sock.sendall(HANDSHAKE)
                sock.setblocking(False)
            except OSError:
                failed += 1
                continue
            opened += 1
            state[sock] = [source, b"", False]
            selector.register(sock, selectors.EVENT_READ)
            if i % 20 == 0:
                pump(0)
        while time.monotonic() < end:
            pump(0.2)
        waiting = sum(1 for value in state.values() if not value[2])
        if waiting:
            answers["no answer to the handshake"] = waiting
        answers["still open at the end"] = sum(1 for value in state.values() if value[2])
    finally:
        for sock in list(state):
            try:
                if state[sock][2]:
                    sock.setblocking(True)
                    sock.settimeout(0.5)
                    sock.sendall(ws_frame(0x8, struct.pack(">H", 1000)))
            except OSError:
                pass
            drop(sock)
        selector.close()
    answers["opened"] = opened
    if failed:
        answers["connect failed"] = failed
    # Every slot must be given back when its connection closes: one more socket now opens.
    again = "?"
    for _ in range(10):
        time.sleep(0.5)
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.6.1", 0))
            try:
                sock.sendall(HANDSHAKE)
                again = status_of(read_head(sock))
            finally:
                sock.close()
        except OSError as error:
            again = type(error).__name__
        if again == "101":
            break
    answers["after closing, a new socket"] = again
    most = max(admitted.values(), default=0)
    answers["most 101 for one address"] = most
    why = []
    wrong = {key: value for key, value in answers.items() if key[:1].isdigit() and key not in ("101", "503 with Retry-After")}
    if wrong:
        why.append(f"refusals answered {', '.join(f'{key} ({value})' for key, value in sorted(wrong.items()))}, not 503 with Retry-After")
    if most > per_client:
        why.append(f"one address got {most} live sockets, more than {per_client}")
    if again != "101":
        why.append(f"after every socket closed, a new one was answered {again}, not 101")
    if answers.get("101", 0) > max_live:
        why.append(f"{answers['101']} live sockets open, more than {max_live}")
    return not why, "; ".join(why)


# --- early-answer --------------------------------------------------------------------------------


def early_answer(port, seconds, answers):
    """Client A (127.0.8.1, 4 connections) sends a 900 KB text/plain body that is answered 415
    before it is read, then a valid request on the same connection; client B (127.0.8.2) sends
    valid requests. Any 400 after a 415 is the bug."""
    end = time.monotonic() + seconds
    lock = threading.Lock()
    bad_body = b"x" * 900_000
    good = json.dumps({"strokes": cat_strokes()}).encode()
    stray = []

    def note(key, by=1):
        with lock:
            count(answers, key, by)

    def client_a(i):
        conn = None
        turn = 0
        while time.monotonic() < end:
            turn += 1
            pipelined = turn % 2 == 0  # every other time the next request follows the body at once
            mode = " (pipelined)" if pipelined else ""
            try:
                if conn is None:
                    conn = Connection(port, "127.0.8.1")
                payload = request_bytes("POST", "/api/suggest", bad_body, "text/plain", close=False)
                following = request_bytes("POST", "/api/suggest", good, close=False)
                if pipelined:
                    payload += following
                error = []

                def send():
                    try:
                        conn.sock.sendall(payload)
                    except OSError as failure:
                        error.append(failure)

                sender = threading.Thread(target=send)
                sender.start()
                status, _, _ = conn.answer()
                sender.join(20)
                note(f"A text/plain: {status}")
                if error:
                    note(f"A{mode}: the server stopped reading the body (connection closed)")
                    conn.close()
                    conn = None
                    continue
                if not pipelined:
                    conn.sock.sendall(following)
                after, _, body = conn.answer()
                note(f"A after {status}{mode}: {after}")
                extra = conn.extra(0.1)
                for value in extra:
                    note(f"A unasked{mode}: {value}")
                if status == "415" and ("400" in [after] + extra):
                    with lock:
                        stray.append(body[:200].decode(errors="replace"))
            except OSError as failure:
                note(f"A{mode}: {type(failure).__name__}")
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()

    def client_b():
        conn = None
        while time.monotonic() < end:
            try:
                if conn is None:
                    conn = Connection(port, "127.0.8.2")
                conn.sock.sendall(request_bytes("POST", "/api/suggest", good, close=False))
                status, _, _ = conn.answer()
                note(f"B: {status}")
            except OSError as failure:
                note(f"B: {type(failure).__name__}")
                if conn is not None:
                    conn.close()
                conn = None
            time.sleep(0.1)
        if conn is not None:
            conn.close()

    threads = [threading.Thread(target=client_a, args=(i,)) for i in range(4)] + [threading.Thread(target=client_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if stray:
        answers["first stray 400"] = stray[0]
        return False, f"{len(stray)} stray 400s after a 415"
    if not any(key.startswith("A after 415") for key in answers):
        return False, "no 415 was followed by an answer"
    return True, ""


# --- fairness ------------------------------------------------------------------------------------


def fairness(port, seconds, answers, heavy):
    """24 connections from 127.0.7.1 loop the heavy /api/suggest; 127.0.7.2 asks a small
    sketch's suggestions every 0.5 s. A small request not answered 200 counts as never served."""
    end = time.monotonic() + seconds
    small = json.dumps({"strokes": cat_strokes()}).encode()
    latencies = []
    statuses = {}

    def measure():
        while time.monotonic() < end:
            began = time.monotonic()
            try:
                status = described(exchange(port, request_bytes("POST", "/api/suggest", small), "127.0.7.2", 30))
            except OSError as error:
                status = type(error).__name__
            took = time.monotonic() - began
            count(statuses, status)
            latencies.append(took if status == "200" else float("inf"))
            time.sleep(max(0.0, 0.5 - took))

    flood = {}
    measurer = threading.Thread(target=measure)
    measurer.start()
    clients(24, seconds, lambda i: described(exchange(port, request_bytes("POST", "/api/suggest", heavy), "127.0.7.1", 30)), flood)
    measurer.join()
    answers["heavy (127.0.7.1)"] = flood
    answers["small (127.0.7.2)"] = statuses
    if not latencies:
        return False, "the small sketch was never asked"
    median = statistics.median(latencies)
    served = [t for t in latencies if t != float("inf")]
    answers["small median"] = f"{median:.2f}s"
    answers["small max"] = f"{max(served):.2f}s" if served else "-"
    if median > 2.0:
        return False, f"the small sketch's median latency is {median:.2f}s, over 2 s" if served and median != float("inf") \
            else "the small sketch was mostly not answered 200"
    return True, ""


# --- users-flood, corrections-flood --------------------------------------------------------------


def new_user(port, source):
    status, answer = call(port, "POST", "/api/users", source)
    if status != "201":
        return None, status
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])["token"], status


def counted(status, answer):
    if status in ("429", "503"):
        return f"{status} with Retry-After" if header_of(answer, "Retry-After") else f"{status} without Retry-After"
    return status


def users_flood(port, seconds, answers):
    def one(i):
        status, answer = call(port, "POST", "/api/users", "127.0.9.1")
        return counted(status, answer)

    clients(4, seconds, one, answers)


def corrections_body():
    """A correction of 18,500 points written with full float precision: about 711 KB."""
    rng = random.Random(5)
    points = 18_500
    strokes = [[[rng.uniform(0, 1000) for _ in range(points)], [rng.uniform(0, 1000) for _ in range(points)]]]
    return json.dumps({"label": "cat", "strokes": strokes, "kind": "guess"}).encode()


def corrections_flood(port, seconds, answers):
    token, status = new_user(port, "127.0.9.2")
    if token is None:
        answers["POST /api/users"] = status
        return False, f"no user to flood with: POST /api/users answered {status}"
    body = corrections_body()
    answers["body"] = f"{len(body) / 1024:.0f} KB"

    def one(i):
        status, answer = call(port, "POST", "/api/corrections", "127.0.9.3", body, token=token)
        return counted(status, answer)

    clients(4, seconds, one, answers)
    return True, ""


# --- labels --------------------------------------------------------------------------------------


def labels(port, answers):
    source = "127.0.9.4"
    token, status = new_user(port, source)
    if token is None:
        answers["POST /api/users"] = status
        return False, f"no user: POST /api/users answered {status}"
    examples = [cat_strokes(4, seed) for seed in range(3)]
    bad = []
    cases = [("a\\0b", "a\u0000b"), ("\\0a", "\u0000a"), ("800 KB grapheme", "a" + "\u0301" * 400_000), ("cat", "cat")]
    for name, label in cases:
        body = json.dumps({"label": label, "examples": examples}, ensure_ascii=False).encode()
        got, answer = call(port, "POST", "/api/shortcuts", source, body, token=token)
        answers[f"teach {name}"] = got
        if got in ("500", "closed without answer"):
            bad.append(f"teach {name}: {got} {body_text(answer, 120)}")
        correction = json.dumps({"label": label, "strokes": examples[0]}, ensure_ascii=False).encode()
        got, answer = call(port, "POST", "/api/corrections", source, correction, token=token)
        answers[f"correct {name}"] = got
        if got in ("500", "closed without answer"):
            bad.append(f"correct {name}: {got}")
    sketch = json.dumps({"strokes": cat_strokes(2, 9)}).encode()
    for name, method, path, body in [("list", "GET", "/api/shortcuts", b""), ("predict", "POST", "/api/shortcuts/predict", sketch),
                                     ("suggest", "POST", "/api/suggest", sketch), ("forget \\0a", "DELETE", "/api/shortcuts/%00a", b""),
                                     ("list again", "GET", "/api/shortcuts", b"")]:
        got, answer = call(port, method, path, source, body, token=token)
        answers[name] = got
        if got not in ("200", "201", "404"):
            bad.append(f"{name}: {got} {body_text(answer, 160)}")
    return not bad, "; ".join(bad)


# --- methods -------------------------------------------------------------------------------------


def methods(port, answers):
    expected = {"HEAD": "200", "TRACE": "501", "CONNECT": "501"}
    bad = []
    for method, want in expected.items():
        payload = f"{method} /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
        try:
            answer = exchange(port, payload, "127.0.9.5", 10)
            got = status_of(answer)
            if method == "HEAD" and answer.split(b"\r\n\r\n", 1)[-1]:
                got += " with a body"
        except OSError as error:
            got = type(error).__name__
        answers[method] = got
        if got != want:
            bad.append(f"{method}: {got}, not {want}")
    return not bad, "; ".join(bad)


# --- the suite -----------------------------------------------------------------------------------

PHASES = ["silent", "slow-loris", "heavy-flood", "scene-flood", "malformed", "oversized", "ws-early-byte", "photo-bombs", "idle-sockets",
          "early-answer", "fairness", "users-flood", "corrections-flood", "labels", "methods"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of: {', '.join(PHASES)}")
    parser.add_argument("--max-live", type=int, default=1024, help="the server's most live sockets (a quarter of --max-connections)")
    parser.add_argument("--live-per-client", type=int, default=16)
    args = parser.parse_args()
    chosen = [name.strip() for name in args.phases.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in PHASES]
    if unknown:
        parser.error(f"unknown phases {', '.join(unknown)}; the phases are {', '.join(PHASES)}")
    port, seconds, pid = args.port, args.seconds, args.pid
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # thousands of sockets at once
    if soft != resource.RLIM_INFINITY and soft < 20000:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(20000, hard) if hard != resource.RLIM_INFINITY else 20000, hard))
    heavy = heavy_body()
    heavy_scene = heavy_scene_body()
    oversized = b'{"strokes": [[[0, 1], [0, 1]]], "pad": "' + b"x" * (1 << 20) + b'"}'
    attacks = {
        "silent": lambda answers: silent(port, seconds, answers),
        "slow-loris": lambda answers: slow_loris(port, seconds, answers),
        "heavy-flood": lambda answers: clients(24, seconds, lambda i: post(port, "/api/suggest", heavy, f"127.0.2.{1 + i}"), answers),
        "scene-flood": lambda answers: clients(
            24, seconds, lambda i: post(port, "/api/detect", heavy_scene, f"127.0.8.{1 + i}"), answers),
        "malformed": lambda answers: clients(8, seconds, lambda i: send_raw(port, random.choice(MALFORMED), f"127.0.3.{1 + i}"), answers),
        "oversized": lambda answers: clients(8, seconds, lambda i: send_raw(
            port, b"POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n"
            + oversized, f"127.0.4.{1 + i}"), answers),
        "ws-early-byte": lambda answers: ws_early_byte(port, seconds, answers),
        "photo-bombs": lambda answers: photo_bombs(port, pid, answers),
        "idle-sockets": lambda answers: idle_sockets(port, seconds, answers, per_client=args.live_per_client, max_live=args.max_live),
        "early-answer": lambda answers: early_answer(port, seconds, answers),
        "fairness": lambda answers: fairness(port, seconds, answers, heavy),
        "users-flood": lambda answers: users_flood(port, seconds, answers),
        "corrections-flood": lambda answers: corrections_flood(port, seconds, answers),
        "labels": lambda answers: labels(port, answers),
        "methods": lambda answers: methods(port, answers),
    }
    failed = False
    print(f"{'phase':<17} {'health answered':>15} {'max':>8} {'p99':>8}  server RSS  what the attack got", flush=True)
    for index, name in enumerate(chosen):
        answers = {}
        probe = Probe(port)
        began = time.monotonic()
        try:
            result = attacks[name](answers)
        except Exception as error:  # a broken phase is reported, and the suite goes on
            result = (False, f"the phase broke: {type(error).__name__}: {error}")
        samples = probe.samples()
        own_ok, why = result if isinstance(result, tuple) else (True, "")
        times = sorted(t for t, _ in samples)
        good = sum(ok for _, ok in samples)
        slowest = times[-1] if times else float("inf")
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else float("inf")
        reasons = []
        if good < len(samples):
            reasons.append(f"health failed {len(samples) - good} times")
        if slowest > HEALTH_LIMIT:
            reasons.append(f"health took {slowest * 1000:.0f} ms")
        if not samples:
            reasons.append("health was never asked")
        if not own_ok:
            reasons.append(why)
        dead = not alive(pid)
        if dead:
            reasons.append("the server died")
        ok = not reasons
        failed |= not ok
        print(f"{name:<17} {good:>7}/{len(samples):<7} {slowest * 1000:>6.0f}ms {p99 * 1000:>6.0f}ms  {rss_mib(pid):>10}  "
              f"{json.dumps(answers, sort_keys=True, ensure_ascii=False)}  {'PASS' if ok else 'FAIL: ' + '; '.join(reasons)}"
              f"  ({time.monotonic() - began:.0f}s)", flush=True)
        if dead:
            left = chosen[index + 1:]
            if left:
                print(f"not run, the server is gone: {', '.join(left)}", flush=True)
            break
        time.sleep(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
