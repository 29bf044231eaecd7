# The two commands of the README:
#   make run   — install what is needed, build (release) and run the main job: the server
#   make test  — install what is needed and run every test
.PHONY: run test fuzz deps deps-test build install deb format-check

deps:
	scripts/install-deps.sh

deps-test:
	scripts/install-deps.sh --test

build: deps
	swift build -c release --product sketchwise

# The web app and API on http://127.0.0.1:8080 (the library index is built on first start; the
# doodles are drawn once from ../shared/data when it is there: scripts/install-doodles.sh).
run: build
	scripts/install-doodles.sh .build/release/sketchwise
	.build/release/sketchwise serve --host 127.0.0.1 --port 8080 --data-dir out

# The binary and its resources under PREFIX (PREFIX/bin/sketchwise, PREFIX/share/sketchwise/…),
# statically linked to the Swift runtime: `sketchwise serve` then works from any folder.
PREFIX ?= /usr/local
install: deps
	PREFIX=$(PREFIX) scripts/install.sh

# out/deb/sketchwise_<version>_<arch>.deb: binary, resources, pictures, systemd unit, settings file.
deb: deps
	scripts/make-deb.sh

# The checks (swift-format, ruff for the Python, ESLint for the web app, the README's map of the
# targets against Package.swift), the Swift tests (the
# personal store's suite also against a throwaway PostgreSQL, scripts/postgres.sh), the training
# tests (PyTorch), then the server's API and browser tests against the debug binary
# (Debian's Python has Selenium; its index is kept in out/test-server; test_cluster.py runs
# scripts/cluster.sh: PostgreSQL, two replicas, nginx). The inputs that once crashed a parser are
# replayed by the Swift tests (FuzzRegressionTests); fuzzing itself is `make fuzz`, apart: its
# sanitised second build of the package took about 1,200 CPU-seconds of a CI run that must end
# within 30 minutes on two cores.
# The Python tests run on several processes (pytest-xdist, a test file to each): two for the
# training tests, three for the browser tests, whose single one left a core mostly idle while it
# waited on Chromium and the server (each worker has its own session server; conftest.py).
# The debug build of the tests compiles the targets with hot loops with -O (Package.swift,
# hotLoops): the Swift tests take about a minute instead of five, the test server's library
# index is built several times faster.
TEST_POSTGRES_DIR ?= /tmp/sketchwise-test-postgres
test: export SKETCHWISE_OPTIMIZE_DEBUG = 1
test: deps-test
	scripts/format-check.sh
	scripts/lint-python.sh
	scripts/lint-js.sh
	scripts/check-map.py
	scripts/check-arm64-kernels.sh
	swift build --build-tests
	scripts/install-doodles.sh .build/debug/sketchwise
	url=$$(scripts/postgres.sh start $(TEST_POSTGRES_DIR)) && SKETCHWISE_TEST_POSTGRES_URL=$$url swift test --skip-build
	scripts/postgres.sh stop $(TEST_POSTGRES_DIR)
	python3 -m pytest -q -n 2 --dist loadfile training/tests
	SKETCHWISE_TEST_DATA_DIR=out/test-server /usr/bin/python3 -m pytest -q -rs --durations=10 -n 3 --dist loadfile Tests/Browser

# Every fuzz target for FUZZ_SECONDS under libFuzzer and AddressSanitizer (scripts/fuzz.sh: the
# harness in Fuzz/, built into .build-fuzz; scripts/fuzz.sh all 600 for a real run).
FUZZ_SECONDS ?= 3
fuzz: deps-test
	scripts/fuzz.sh all $(FUZZ_SECONDS)

# The Swift code against .swift-format (swift format lint --strict; see the script).
format-check:
	scripts/format-check.sh
