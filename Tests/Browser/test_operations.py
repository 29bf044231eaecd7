"""Operating the server (issue 19): settings from a file and the environment, liveness apart from
readiness, JSON logs, and Prometheus metrics."""

import json
import os
import re
import socket
import subprocess
import time

from conftest import REPO, Server, _free_port, copy_library_index, ended_with_the_tests, sketchwise_binary


def test_settings_file_environment_readiness_and_json_logs(server, tmp_path):
    """A server set up only by a settings file and the environment (the command line names the
    file), whose /api/health answers while /api/ready says 503 starting, until the index is checked."""
    data = tmp_path / "data"
    data.mkdir()
    copy_library_index(server.data_dir, data)
    port = _free_port()
    settings = tmp_path / "sketchwise.conf"
    # As systemd's EnvironmentFile= reads it: comments with # or ;, values quoted or not.
    settings.write_text(f"# comment\n; comment\nSKETCHWISE_PORT=\"{port}\"\nSKETCHWISE_DATA_DIR='{data}'\nSKETCHWISE_LOG_FORMAT=text\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKETCHWISE_")}
    env["SKETCHWISE_LOG_FORMAT"] = "json"  # the environment wins over the file
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(ended_with_the_tests([sketchwise_binary(), "serve", "--config", settings]), cwd=tmp_path, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    srv = Server(proc, port, log_path, str(data))
    try:
        seen_starting = False
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, f"exited with {proc.returncode}:\n{srv.log_tail()}"
            try:
                status, _, body = srv.request("GET", "/api/health", timeout=5)
                ready_status, ready_headers, ready_body = srv.request("GET", "/api/ready", timeout=5)
            except OSError:
                time.sleep(0.05)
                continue
            assert status == 200, "liveness answers 200 from the start"
            health = json.loads(body)
            if ready_status == 503:
                seen_starting = True
                assert health["status"] == "starting"
                error = json.loads(ready_body)["error"]
                assert error["code"] == "starting" and "starting" in error["message"]
                assert ready_headers.get("retry-after") == "5"
                classify = srv.post_json("/api/classify", {"strokes": [[[0, 50], [0, 50]]]})
                assert classify[0] in (503, 200) and (classify[0] == 200 or classify[1]["error"]["code"] == "starting")
            elif ready_status == 200:
                assert json.loads(ready_body)["library"]["items"] > 1000
                assert srv.get("/api/health")[0] == 200 and json.loads(srv.get("/api/health")[2])["status"] == "ok"
                break
            assert time.monotonic() < deadline, srv.log_tail()
            time.sleep(0.05)
        assert seen_starting, "the server listened only once ready: no 503 starting was seen"
        lines = [line for line in log_path.read_text().splitlines() if line.strip()]
        entries = [json.loads(line) for line in lines]  # every line is a JSON object
        assert all({"time", "level", "label", "message"} <= set(e) for e in entries)
        assert any(e["message"].startswith("ready") for e in entries)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_bad_settings_are_refused_clearly(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKETCHWISE_")}
    missing = subprocess.run([str(sketchwise_binary()), "serve", "--config", str(tmp_path / "nope.conf")],
                             capture_output=True, text=True, env=env, timeout=60)
    assert missing.returncode != 0 and "nope.conf does not exist" in missing.stderr
    # A misspelt name, or a line that is not NAME=VALUE, would leave an option at its default.
    for line, said in (("SKETCHWISE_MAX_STROKE=10", "line 2: SKETCHWISE_MAX_STROKE is not a setting of serve"),
                       ("SKETCHWISE_PORT 9000", "line 2 is not SKETCHWISE_NAME=VALUE")):
        settings = tmp_path / "typo.conf"
        settings.write_text(f"# settings\n{line}\n")
        typo = subprocess.run([str(sketchwise_binary()), "serve", "--config", str(settings)], capture_output=True, text=True,
                              env=env, timeout=60)
        assert typo.returncode != 0 and said in typo.stderr, typo.stderr
    env["SKETCHWISE_NO_MODEL_STORE"] = "perhaps"
    flag = subprocess.run([str(sketchwise_binary()), "serve"], capture_output=True, text=True, env=env, timeout=60)
    assert flag.returncode != 0 and "SKETCHWISE_NO_MODEL_STORE must be true or false" in flag.stderr
    env.pop("SKETCHWISE_NO_MODEL_STORE")
    # A model name with no files: said at once, before the library index is built.
    unknown = subprocess.run([str(sketchwise_binary()), "serve", "--model", "bogus", "--data-dir", str(tmp_path / "data")],
                             capture_output=True, text=True, env=env, timeout=60)
    assert unknown.returncode != 0 and "--model bogus: no bogus.json in" in unknown.stderr, unknown.stderr
    assert "CancellationError" not in unknown.stderr and not (tmp_path / "data" / "library.sqlite").exists()
    # A failure after the server listens (a broken library index) is logged first, then it stops.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "library.sqlite").write_text("not a database")
    failed = subprocess.run([str(sketchwise_binary()), "serve", "--port", "0", "--data-dir", str(broken)],
                            capture_output=True, text=True, env=env, timeout=120)
    said = "start-up failed, stopping: " + str(broken / "library.sqlite") + " is not a usable library database"
    assert failed.returncode != 0 and said in failed.stderr, failed.stderr
    errors = [line for line in failed.stderr.splitlines() if " error " in line]
    assert said in errors[0], errors
    # A port another process listens on: said with the address, not as a bind(2) error.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run([str(sketchwise_binary()), "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
                              capture_output=True, text=True, env=env, timeout=120)
        # In a JSON log, why it stopped is a JSON entry too: every line stays parseable.
        as_json = subprocess.run([str(sketchwise_binary()), "serve", "--port", str(port), "--data-dir", str(tmp_path / "data"),
                                  "--log-format", "json"], capture_output=True, text=True, env=env, timeout=120)
    assert busy.returncode != 0 and f"cannot listen on 127.0.0.1:{port}: another process is listening there" in busy.stderr, busy.stderr
    entries = [json.loads(line) for line in (as_json.stdout + as_json.stderr).splitlines() if line.strip()]
    assert as_json.returncode != 0 and entries[-1]["level"] == "critical", entries[-1:]
    assert f"cannot listen on 127.0.0.1:{port}" in entries[-1]["message"], entries[-1]
    env["SKETCHWISE_PORT"] = "seventy"
    port = subprocess.run([str(sketchwise_binary()), "serve"], capture_output=True, text=True, env=env, timeout=60)
    assert port.returncode != 0 and "seventy" in port.stderr


def test_metrics_report_requests_inference_queue_library_models_and_memory(server, known_drawing):
    _, record, _ = known_drawing
    assert server.post_json("/api/classify", {"strokes": record["drawing"], "model": "raster"})[0] == 200
    assert server.get("/api/nope")[0] == 404
    status, headers, body = server.get("/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    text = body.decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)

    def value(pattern):
        found = [v for k, v in samples.items() if re.fullmatch(pattern, k)]
        assert found, f"no sample matches {pattern}"
        return sum(found)

    classified = r'http_server_requests_total\{http_route="/api/classify",http_request_method="POST",http_response_status_code="200"\}'
    assert value(classified) >= 1
    assert value(r'http_server_request_duration_seconds_count\{http_route="/api/classify",.*status_code="200"\}') >= 1
    assert value(r'http_server_request_duration_seconds_bucket\{http_route="/api/classify",.*le="\+Inf"\}') >= 1
    assert value(r'http_server_requests_total\{.*http_response_status_code="404"\}') >= 1
    assert value(r'sketchwise_inference_duration_seconds_count\{model="raster-cnn"\}') >= 1
    assert value(r"sketchwise_work_queue_waiting") >= 0
    assert value(r"sketchwise_library_items") > 1000
    bundled = json.loads((REPO / "Models" / "raster-cnn.json").read_text())["version"]
    assert value(r'sketchwise_model_info\{name="raster-cnn",version="' + re.escape(bundled) + r'",source="bundled"\}') == 1
    assert value(r"process_resident_memory_bytes") > 10e6
    assert value(r"sketchwise_ready") == 1
    assert "# TYPE http_server_request_duration_seconds histogram" in text
    # A second request of the same route, method and status counts on the same handles (once its
    # answer is written, which may be just after the client has read it).
    assert server.post_json("/api/classify", {"strokes": record["drawing"], "model": "raster"})[0] == 200
    deadline = time.monotonic() + 10
    while True:
        again = server.get("/metrics")[2].decode()
        counts = [float(line.rsplit(" ", 1)[1]) for line in again.splitlines() if re.fullmatch(classified, line.rsplit(" ", 1)[0])]
        if counts == [value(classified) + 1] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert counts == [value(classified) + 1]
