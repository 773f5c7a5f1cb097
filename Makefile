# Set-up and everyday commands. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
DOCTEST_PATHS := domain.py referee calibration vision cli

.PHONY: run test bench install browser cycles clean

run: $(STAMP)
	$(BIN)/pyramid-referee serve --demo

test: $(STAMP) browser
	$(BIN)/python -m pytest -q tests $(DOCTEST_PATHS)

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/python -m vision.compiled   # compile the numba kernels once; later processes load them
	touch $(STAMP)

# Browser tests drive Debian's Chromium through Playwright (Playwright's own browser
# download cannot reach its servers here); the marker-sheet tests rasterise the PDF with
# poppler's pdftoppm.
browser:
	@{ test -x $(CHROMIUM) && command -v pdftoppm >/dev/null; } || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -q && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium poppler-utils; }

# Blender's Cycles for bench/bench_cycles.py, a second independent renderer: its Python
# module pins its own numpy, so it gets a venv of its own (~1 GB; not needed by the tests).
cycles:
	test -x .venv-cycles/bin/python || $(PYTHON) -m venv .venv-cycles
	.venv-cycles/bin/pip install -q 'bpy==5.0.1'

clean:
	rm -rf $(VENV) .venv-cycles build *.egg-info
