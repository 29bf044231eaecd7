"""A soak of a running `sketchwise serve` (bench/soak.sh starts the server and calls this).

    python3 bench/soak.py --port PORT --pid PID [--seconds 600] [--connections 64] [--out out/soak]

For `--seconds`, wrk keeps `--connections` connections busy with a mix of requests: suggest and
classify with real Quick, Draw! drawings, invalid ones (malformed JSON, absurd coordinates, a
body that is not JSON, a wrong method), picture thumbnails and full-size pictures (rendered on the
worker threads), health and static files. Meanwhile 4 clients draw real drawings stroke by stroke
over /api/live, one session after another. The server's resident memory is sampled every 10 s.

Prints the answers by status, the unexpected ones (anything but 200 for a valid request and
400/405/415 for an invalid one, or a socket error), wrk's p50/p99, the live sessions and their
errors, and RSS over time; writes out/soak/rss.csv. Exits 1 on any unexpected answer, or if RSS
ends above 200 MiB or grew by more than 10 % over the second half of the run.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "Browser"))
from minimal_ws import WebSocket  # noqa: E402  (the project's small WebSocket client)

RAW = Path(os.environ.get("SKETCHWISE_SHARED_DATA", REPO.parent / "shared" / "data")) / "quickdraw" / "raw"


def drawings(count):
    out = []
    for path in sorted(RAW.glob("*.ndjson")):
        with open(path) as lines:
            for line in lines:
                out.append(json.loads(line)["drawing"])
                break
        if len(out) >= count:
            break
    return out


def picture_ids(port, sketches):
    ids = set()
    for strokes in sketches[:20]:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/suggest", data=json.dumps({"strokes": strokes}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            ids.update(s["id"] for s in json.load(answer)["suggestions"])
    return sorted(ids)


def lua_script(sketches, ids):
    """wrk's script: requests in a fixed mix, counted by kind, answers counted by status."""
    valid = [json.dumps({"strokes": s}) for s in sketches]
    invalid = ['{"strokes": [[[0, 1], [0', '{"strokes": [[[0, 1e300], [0, 1]]]}', '{"strokes": "cat"}',
               '{"strokes": [[[0, 1, 2], [0, 1]]]}', '[]']

    def quoted(items):
        return "{" + ",".join("[==[" + item + "]==]" for item in items) + "}"

    return f"""
valid = {quoted(valid)}
invalid = {quoted(invalid)}
ids = {quoted([urllib.request.quote(i, safe='') for i in ids])}
counter = 0
sent = {{}}
statuses = {{}}
threads = {{}}
function setup(thread) table.insert(threads, thread) end
local function count(kind) sent[kind] = (sent[kind] or 0) + 1 end
function request()
  counter = counter + 1
  local slot = counter % 20
  local json = {{["Content-Type"] = "application/json"}}
  if slot < 11 then count("suggest"); return wrk.format("POST", "/api/suggest", json, valid[counter % #valid + 1]) end
  if slot < 13 then count("classify"); return wrk.format("POST", "/api/classify", json, valid[counter % #valid + 1]) end
  if slot == 13 then count("invalid"); return wrk.format("POST", "/api/suggest", json, invalid[counter % #invalid + 1]) end
  if slot == 14 then count("invalid"); return wrk.format("POST", "/api/classify", {{["Content-Type"] = "text/plain"}}, "cat") end
  if slot == 15 then count("invalid"); return wrk.format("DELETE", "/api/health") end
  if slot == 16 then count("thumbnail"); return wrk.format("GET", "/api/library/" .. ids[counter % #ids + 1] .. "/thumbnail") end
  if slot == 17 then count("image"); return wrk.format("GET", "/api/library/" .. ids[counter % #ids + 1] .. "/image") end
  if slot == 18 then count("static"); return wrk.format("GET", "/app.js") end
  count("health"); return wrk.format("GET", "/api/health")
end
function response(status, headers, body) statuses[status] = (statuses[status] or 0) + 1 end
function done(summary, latency, requests)
  local total_sent, total_statuses = {{}}, {{}}
  for _, thread in ipairs(threads) do
    for k, v in pairs(thread:get("sent")) do total_sent[k] = (total_sent[k] or 0) + v end
    for k, v in pairs(thread:get("statuses")) do total_statuses[tostring(k)] = (total_statuses[tostring(k)] or 0) + v end
  end
  local parts = {{}}
  for k, v in pairs(total_sent) do table.insert(parts, string.format('"%s": %d', k, v)) end
  io.write("SENT {{" .. table.concat(parts, ", ") .. "}}\\n")
  parts = {{}}
  for k, v in pairs(total_statuses) do table.insert(parts, string.format('"%s": %d', k, v)) end
  io.write("STATUSES {{" .. table.concat(parts, ", ") .. "}}\\n")
  local e = summary.errors
  io.write(string.format("WRK {{\\"requests\\": %d, \\"seconds\\": %.1f, \\"p50_ms\\": %.2f, \\"p99_ms\\": %.2f, " ..
    "\\"connect\\": %d, \\"read\\": %d, \\"write\\": %d, \\"timeout\\": %d}}\\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect, e.read, e.write, e.timeout))
end
"""


def live_sessions(port, sketches, stop, tally, lock):
    """Draws sketches stroke by stroke over /api/live until `stop`; counts sessions and errors."""
    rng = random.Random(threading.get_ident())
    while not stop.is_set():
        strokes = rng.choice(sketches)
        try:
            with WebSocket("127.0.0.1", port, "/api/live", timeout=30) as conn:
                for seq, stroke in enumerate(strokes, 1):
                    conn.send_json({"type": "stroke", "seq": seq, "stroke": stroke})
                answer = conn.recv_until(lambda m: m.get("seq") == len(strokes), timeout=30)[-1]
                key = "ok" if answer.get("type") == "result" and answer.get("guesses") else f"bad answer {answer.get('type')}"
        except Exception as error:  # noqa: BLE001  any failure is counted, not raised
            key = f"error {type(error).__name__}"
        with lock:
            tally[key] = tally.get(key, 0) + 1


def rss_kib(pid):
    out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return int(out) if out else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--out", default=str(REPO / "out" / "soak"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    sketches = [s for s in drawings(300) if sum(len(x[0]) for x in s) < 2000]
    ids = picture_ids(args.port, sketches)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(lua_script(sketches, ids))
    print(f"soak: {args.seconds}s, {args.connections} connections, {len(sketches)} drawings, {len(ids)} pictures, 4 live clients",
          flush=True)

    stop, lock, live = threading.Event(), threading.Lock(), {}
    clients = [threading.Thread(target=live_sessions, args=(args.port, sketches, stop, live, lock)) for _ in range(4)]
    for client in clients:
        client.start()
    wrk = subprocess.Popen(["wrk", "-t2", f"-c{args.connections}", f"-d{args.seconds}s", "--latency", "-s", script.name,
                            f"http://127.0.0.1:{args.port}"], stdout=subprocess.PIPE, text=True)
    samples = []
    start = time.monotonic()
    while wrk.poll() is None:
        samples.append((time.monotonic() - start, rss_kib(args.pid)))
        time.sleep(10)
    report = wrk.stdout.read()
    stop.set()
    for client in clients:
        client.join()
    samples.append((time.monotonic() - start, rss_kib(args.pid)))
    os.unlink(script.name)

    lines = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in report.splitlines()
             if line.split(" ", 1)[0] in ("SENT", "STATUSES", "WRK")}
    sent, statuses, summary = lines["SENT"], lines["STATUSES"], lines["WRK"]
    expected_invalid = {"400", "405", "415"}
    unexpected = {status: n for status, n in statuses.items() if status != "200" and status not in expected_invalid}
    invalid_answers = sum(statuses.get(s, 0) for s in expected_invalid)
    socket_errors = summary["connect"] + summary["read"] + summary["write"] + summary["timeout"]
    with open(out / "rss.csv", "w") as csv:
        csv.write("seconds,rss_mib\n")
        csv.writelines(f"{t:.0f},{kib / 1024:.1f}\n" for t, kib in samples if kib)
    rss = [kib / 1024 for _, kib in samples if kib]
    half = rss[len(rss) // 2:]
    growth = (half[-1] - half[0]) / half[0] if half and half[0] else 0

    print(f"requests: {summary['requests']} in {summary['seconds']:.0f}s ({summary['requests'] / summary['seconds']:.0f}/s), "
          f"p50 {summary['p50_ms']:.2f} ms, p99 {summary['p99_ms']:.2f} ms")
    print(f"sent by kind: {json.dumps(sent, sort_keys=True)}")
    print(f"answers by status: {json.dumps(statuses, sort_keys=True)}")
    print(f"invalid requests sent {sent.get('invalid', 0)}, answered 400/405/415: {invalid_answers}")
    print(f"unexpected answers: {unexpected or 'none'}; socket errors: {socket_errors}")
    print(f"live sessions: {json.dumps(live, sort_keys=True)}")
    print("RSS (MiB) every 10 s: " + " ".join(f"{r:.0f}" for r in rss))
    print(f"RSS: start {rss[0]:.0f}, max {max(rss):.0f}, end {rss[-1]:.0f} MiB; second half {growth * 100:+.1f} %  (out/soak/rss.csv)")
    live_errors = sum(n for key, n in live.items() if key != "ok")
    ok = not unexpected and socket_errors == 0 and live_errors == 0 and rss[-1] < 200 and growth < 0.10
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
