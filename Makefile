# The two commands of the README:
#   make run   — install what is needed, build (release) and run the main job
#   make test  — install what is needed and run every test
.PHONY: run test deps deps-python build

deps:
	scripts/install-deps.sh

deps-python:
	scripts/install-deps.sh --python

build: deps
	swift build -c release --product sketchwise

run: build
	.build/release/sketchwise demo

test: deps-python
	swift build --build-tests
	swift test --skip-build
	python3 -m pytest -q training/tests
