# reel — build, test, demo and benchmark entry points (GNU make, Debian 12).

SHELL := /bin/bash
.DEFAULT_GOAL := help

SWIFT      ?= swift
PYTHON     ?= python3
REEL       := .build/release/reel
DEMO       := examples/demo.json
DEMO_OUT   := out/demo.mp4

# Debian packages reel needs to build (headers and pkg-config) and to test and run its demo and benchmark
# (python3-venv: the OpenTimelineIO judge's and auto-editor's virtual environments; Debian's python3 cannot make one
# without it).
APT_BUILD_PACKAGES := libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev \
                      libavfilter-dev libebur128-dev pkg-config libfreetype-dev libpango1.0-dev libcairo2-dev \
                      libfontconfig-dev libsdl2-dev libass-dev librsvg2-dev
APT_RUN_PACKAGES := ffmpeg fonts-dejavu-core python3 python3-venv parallel xvfb xauth fonts-wqy-microhei \
                    chromium librsvg2-bin
APT_PACKAGES := $(APT_BUILD_PACKAGES) $(APT_RUN_PACKAGES)

# The packages of a list that dpkg does not report fully installed (a removed package keeps a
# "deinstall ... config-files" entry).
missing-of = $(strip $(shell for pkg in $(1); do \
               dpkg -s "$$pkg" 2>/dev/null | grep -qx 'Status: install ok installed' || echo "$$pkg"; done))
MISSING_BUILD_PACKAGES = $(call missing-of,$(APT_BUILD_PACKAGES))
MISSING_RUN_PACKAGES = $(call missing-of,$(APT_RUN_PACKAGES))

# apt-get needs root; go through sudo otherwise. APT_GET may name another apt-get (e.g. `chroot DIR apt-get`, to time
# a fresh machine's install: docs/testing.md).
APT_GET ?= apt-get
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: help deps swift-check deps-for-tests wait-for-run-packages debug build man install-man demo test test-unit test-e2e ci bench auto-editor play-bench clean otio-judge sanitize tsan asan fuzz
# Prerequisites such as `demo: deps build` must run in order, even under -j.
.NOTPARALLEL:

help:
	@echo "make deps    install the Debian packages reel needs (only if missing) and check for Swift"
	@echo "make build   swift build -c release (binary: $(REEL))"
	@echo "make man     generate the manual pages from the parser into $(MAN_DIR)/"
	@echo "make install-man  install them into $(PREFIX)/share/man/man1 (PREFIX=/usr/local)"
	@echo "make demo    generate the demo media and render $(DEMO) to $(DEMO_OUT)"
	@echo "make test    build the tests optimised and run every test target (packages installed while building)"
	@echo "make debug   swift build (debug), which CI compiles after the tests"
	@echo "make test-unit  only the unit targets: no process, no media, no ffmpeg CLI (seconds once built)"
	@echo "make test-e2e   only the end-to-end targets: real media, the ffmpeg CLI, the reel binary"
	@echo "make ci      what .ci/run does: make test, then make debug"
	@echo "make sanitize  the threaded subset under ThreadSanitizer, then every suite under AddressSanitizer"
	@echo "make fuzz    run each libFuzzer target for FUZZ_SECONDS (default $(FUZZ_SECONDS)) seconds"
	@echo "make bench   compare reel with the ffmpeg CLI (scripts/bench.py)"
	@echo "make auto-editor  install auto-editor 23.32.1 (PyPI) in $(AUTO_EDITOR_VENV) for the bench's reel cut comparison"
	@echo "make otio-judge  install OpenTimelineIO 0.18 (PyPI) in $(OTIO_VENV) for the export tests"
	@echo "make play-bench  play a 1080p30 dissolve for 60 s under Xvfb and print reel play --stats"
	@echo "make clean   remove build products, demo output and benchmark media"

deps: swift-check
	@missing="$(call missing-of,$(APT_PACKAGES))"; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing $$missing"; \
	  $(SUDO) $(APT_GET) update && \
	  $(SUDO) $(APT_GET) install $(APT_LOCK_WAIT) -y --no-install-recommends $$missing; \
	else \
	  echo "deps: all Debian packages present"; \
	fi

swift-check:
	@if ! command -v $(SWIFT) >/dev/null 2>&1; then \
	  echo "deps: '$(SWIFT)' is not on PATH. reel needs Swift 6.x, which is not packaged" >&2; \
	  echo "      for Debian: install a Swift 6 toolchain from https://www.swift.org/install/linux/" >&2; \
	  echo "      (or swiftly) and put its usr/bin on PATH." >&2; \
	  exit 1; \
	fi
	@$(SWIFT) --version 2>/dev/null | grep -q 'Swift version 6\.' || { \
	  echo "deps: $$($(SWIFT) --version 2>&1 | head -n 1)" >&2; \
	  echo "deps: reel needs Swift 6.x (swift-tools-version 6.0)." >&2; \
	  exit 1; }

# `make deps` for the tests' build: the packages the build needs install first; the ones only the tests need
# (ffmpeg, chromium, Xvfb, fonts, python3-venv, GNU parallel) install in the background while the tests' build
# compiles (`wait-for-run-packages` waits for them before anything uses them). `apt-get update` and sudo's password
# prompt stay in the foreground; a failed install stops `make test` with the end of apt's log.
APT_LOG := .build/apt-install.log
# A second apt (another make, the background install of an interrupted one) waits for the first's lock. setsid keeps
# Ctrl-C from stopping dpkg half-way in the background install.
APT_LOCK_WAIT := -o DPkg::Lock::Timeout=600
deps-for-tests: swift-check
	@build="$(MISSING_BUILD_PACKAGES)"; run="$(MISSING_RUN_PACKAGES)"; \
	rm -f $(APT_LOG).pid $(APT_LOG).status; \
	if [ -z "$$build$$run" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	$(SUDO) $(APT_GET) update || exit 1; \
	if [ -n "$$build" ]; then echo "deps: installing $$build"; \
	  $(SUDO) $(APT_GET) install $(APT_LOCK_WAIT) -y --no-install-recommends $$build || exit 1; fi; \
	if [ -n "$$run" ]; then echo "deps: installing $$run in the background while the tests build (log: $(APT_LOG))"; \
	  mkdir -p .build; \
	  { setsid $(SUDO) env DEBIAN_FRONTEND=noninteractive $(APT_GET) install $(APT_LOCK_WAIT) -y \
	      --no-install-recommends $$run < /dev/null > $(APT_LOG) 2>&1; echo $$? > $(APT_LOG).status; } & \
	  echo $$! > $(APT_LOG).pid; fi

# Waits for the background install `deps-for-tests` started, if any.
wait-for-run-packages:
	@if [ -f $(APT_LOG).pid ]; then \
	  while kill -0 $$(cat $(APT_LOG).pid) 2>/dev/null; do sleep 1; done; rm -f $(APT_LOG).pid; \
	  if [ "$$(cat $(APT_LOG).status 2>/dev/null)" != 0 ]; then \
	    echo "deps: apt-get install failed; the end of $(APT_LOG):" >&2; tail -n 25 $(APT_LOG) >&2; exit 1; fi; \
	  echo "deps: packages installed"; fi

build:
	$(SWIFT) build -c release --product reel

# Manual pages come from the argument parser itself (swift-argument-parser's generate-manual plugin), so they
# always match --help. The date is the last commit's, so the pages are reproducible.
MAN_DIR  := man
PREFIX   ?= /usr/local
MAN_OUT  := .build/plugins/GenerateManual/outputs/reel

man:
	$(SWIFT) package plugin generate-manual --multi-page --date "$$(git log -1 --format=%cs 2>/dev/null || date +%F)"
	mkdir -p $(MAN_DIR)
	rm -f $(MAN_DIR)/*.1
	cp $(MAN_OUT)/*.1 $(MAN_DIR)/
	@echo "man: wrote $$(ls $(MAN_DIR) | tr '\n' ' ')(try: man -l $(MAN_DIR)/reel.render.1)"

install-man: man
	install -d "$(DESTDIR)$(PREFIX)/share/man/man1"
	install -m 644 $(MAN_DIR)/*.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"

demo: deps build
	bash scripts/make-demo-media.sh
	mkdir -p $(dir $(DEMO_OUT))
	$(REEL) render $(DEMO) --force
	@echo "demo: wrote $(DEMO_OUT)"

# Tests run optimised (pixel loops and long timelines stay fast) with @testable imports enabled, so the
# manifest needs no unsafeFlags and ReelKit stays usable as a versioned dependency. They build in a
# folder of their own, so `make build` and `make test` do not rebuild each other's products.
TEST_FLAGS := -c release -Xswiftc -enable-testing --scratch-path .build/testing

# The test targets, by kind (docs/testing.md). TestLayoutTests (Tests/ReelRenderUnitTests) checks that these lists
# match Package.swift, so a new target cannot be left out of either.
UNIT_TARGETS := ReelTimeTests ReelModelTests ReelInterchangeTests ReelMediaUnitTests ReelRenderUnitTests
E2E_TARGETS := ReelMediaEndToEndTests ReelRenderEndToEndTests ReelCLITests
# `swift test --filter` matches test ids such as ReelTimeTests.RationalTests/reduces().
target-filter = ^($(subst $(eval) ,|,$(strip $(1))))\.

# The release configuration, once: the tests' build in .build/testing is `-c release` with -enable-testing, which
# changes only which symbols are exported, so it compiles every line `make build` ships (docs/testing.md, "What make
# test builds"); the debug configuration is CI's second step (`make debug`). Then every test target runs.
test: deps-for-tests
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	@$(MAKE) --no-print-directory wait-for-run-packages
	-@$(MAKE) --no-print-directory otio-judge
	$(SWIFT) test $(TEST_FLAGS) --skip-build

# The debug configuration (what a package depending on ReelKit builds, `#if DEBUG` code included). CI compiles it
# after the tests (.ci/run); `make test` leaves it out to stay within its time (docs/testing.md).
debug: deps
	$(SWIFT) build

# SwiftPM links every test target into one test binary, so both kinds build together; only the run is filtered.
test-unit: deps
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build --filter '$(call target-filter,$(UNIT_TARGETS))'

test-e2e: deps
	-@$(MAKE) --no-print-directory otio-judge
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) test $(TEST_FLAGS) --skip-build --filter '$(call target-filter,$(E2E_TARGETS))'

# What CI runs (.ci/run): the README's test command, then the debug build.
ci: test debug

# Sanitizers (docs/testing.md): the suites built optimised with ThreadSanitizer or AddressSanitizer (LeakSanitizer
# included), each in a scratch folder of its own. Too slow for every `make test`; run it before changing threads or
# buffers. TSan runs the suites that start threads (compositor, core, player item, encoders, smart render, chunks
# and join, titles and transitions through the core); ASan runs everything. Suppressions, each with its reason:
# scripts/sanitizers/.
SANITIZE_FLAGS = -c release -Xswiftc -enable-testing --sanitize=$(1) --scratch-path .build/$(1)
TSAN_FILTER := ReelRender(Unit|EndToEnd)Tests\.(Compositor|RenderCore|PlayerItem|SmartRender|ChunkRender|TitleRender|Transition)|ReelMediaEndToEndTests\.EncodeTests
TSAN_OPTIONS_ALL := halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/sanitizers/tsan.supp
ASAN_OPTIONS_ALL := detect_leaks=1 halt_on_error=1 strict_string_checks=1
LSAN_OPTIONS_ALL := suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp print_suppressions=0

sanitize: tsan asan

tsan: deps
	$(SWIFT) build -j 1 $(call SANITIZE_FLAGS,thread) --build-tests
	TSAN_OPTIONS="$(TSAN_OPTIONS_ALL)" REEL_SANITIZER=thread \
	  $(SWIFT) test $(call SANITIZE_FLAGS,thread) --skip-build --filter '$(TSAN_FILTER)'

asan: deps
	$(SWIFT) build -j 1 $(call SANITIZE_FLAGS,address) --build-tests
	ASAN_OPTIONS="$(ASAN_OPTIONS_ALL)" LSAN_OPTIONS="$(LSAN_OPTIONS_ALL)" REEL_SANITIZER=address \
	  $(SWIFT) test $(call SANITIZE_FLAGS,address) --skip-build

# libFuzzer targets (Tests/Fuzz/Harness) for the JSON parser, the project lint (read + compile + validate, no media
# opened), the CMX 3600 importer and the OTIO importer, built with -sanitize=fuzzer,address. Each runs
# FUZZ_SECONDS seconds with a 1 s hang limit and leak detection; failing inputs land in .build/fuzz/artifacts/.
FUZZ_SECONDS ?= 60
# FUZZ_RUNS=N also stops each target after N executions (empty: time alone decides).
FUZZ_RUNS ?=
FUZZ_TARGETS ?= json project cmx otio srt vtt ass transcript
# The harness has a `main` of its own that calls LLVMFuzzerRunDriver (SwiftPM renames every executable's main, so
# libFuzzer's cannot be used): coverage as -sanitize=fuzzer gives it, and libFuzzer without its main.
FUZZER_RUNTIME = $(shell $(SWIFT) -print-target-info 2>/dev/null | $(PYTHON) -c 'import json,sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')/clang/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a
fuzz:
	$(SWIFT) build -j 1 -c release --scratch-path .build/fuzz --product reel-fuzz \
	  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
	  -Xswiftc -DFUZZING -Xlinker $(FUZZER_RUNTIME) -Xlinker -lstdc++
	FUZZ_RUNS=$(FUZZ_RUNS) bash scripts/fuzz.sh .build/fuzz/release/reel-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# OpenTimelineIO's own Python reader judges `reel export-otio` in the tests (Tests/ReelCLITests/InterchangeCLITests.swift).
# It lives in a virtual environment of its own; without network the tests that need it skip with a reason.
OTIO_VENV := .build/otio-venv
otio-judge:
	@if $(OTIO_VENV)/bin/python -c 'import opentimelineio' 2>/dev/null; then \
	  echo "otio-judge: OpenTimelineIO present in $(OTIO_VENV)"; \
	else \
	  $(PYTHON) -m venv $(OTIO_VENV) && \
	  $(OTIO_VENV)/bin/pip install --quiet 'opentimelineio==0.18.*' || \
	  { echo "otio-judge: could not install OpenTimelineIO; its tests will skip" >&2; exit 1; }; \
	fi

bench: deps build
	-@$(MAKE) --no-print-directory auto-editor
	$(PYTHON) scripts/bench.py --reel $(REEL)

# auto-editor from PyPI, for the bench's informational comparison of `reel cut` (issue 36): the last release that is a
# Python package (later ones download a binary). Its PyAV 10 builds against Debian's FFmpeg 5.1 (libavdevice-dev,
# Cython < 3) and needs numpy < 2. Without it the bench says so and skips the comparison.
AUTO_EDITOR_VENV := .bench/auto-editor
auto-editor:
	@if [ -x $(AUTO_EDITOR_VENV)/bin/auto-editor ]; then \
	  echo "auto-editor: present in $(AUTO_EDITOR_VENV)"; \
	else \
	  dpkg -s libavdevice-dev 2>/dev/null | grep -qx 'Status: install ok installed' || \
	    { $(SUDO) $(APT_GET) update && $(SUDO) $(APT_GET) install -y --no-install-recommends libavdevice-dev; } && \
	  $(PYTHON) -m venv $(AUTO_EDITOR_VENV) && \
	  printf 'cython<3\nnumpy<2\n' > $(AUTO_EDITOR_VENV)/constraints.txt && \
	  PIP_CONSTRAINT=$(CURDIR)/$(AUTO_EDITOR_VENV)/constraints.txt \
	    $(AUTO_EDITOR_VENV)/bin/pip install --quiet 'auto-editor==23.32.1' 'numpy<2' || \
	  { rm -rf $(AUTO_EDITOR_VENV); echo "auto-editor: could not install it; the bench skips the comparison" >&2; exit 1; }; \
	fi

play-bench: deps build
	bash scripts/play-bench.sh $(REEL)

clean:
	rm -rf .build out .bench examples/media $(MAN_DIR)
