# mediapub — build, run and test on a fresh Debian machine with the Swift toolchain.
SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/debug/mediapub
# Where `make install` puts the release binary (bin/) and the docs (share/doc/mediapub/, its docs/ beside the README).
PREFIX ?= /usr/local

.PHONY: all deps test-deps build media run install unit test bench soak screenshot clean

all: build

deps:
	@bash scripts/install-deps.sh

test-deps:
	@bash scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

media: deps
	@bash scripts/make-media.sh presets/media

# The main job: a generated source published to an SRT listener and recorded to out/.
run: build media
	@mkdir -p out
	@echo "watch with:  ffplay 'srt://127.0.0.1:9000?mode=caller'   (or VLC: srt://127.0.0.1:9000)"
	$(BIN) --preset presets/demo.yaml

# A release build installed as $(PREFIX)/bin/mediapub (what deploy/ runs), with the docs.
install: deps
	$(SWIFT) build -c release
	install -D -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/mediapub" "$(DESTDIR)$(PREFIX)/bin/mediapub"
	install -D -m 0644 README.md "$(DESTDIR)$(PREFIX)/share/doc/mediapub/README.md"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/mediapub/docs"
	install -m 0644 docs/*.md "$(DESTDIR)$(PREFIX)/share/doc/mediapub/docs/"

# The unit tests alone (Tests/MediaPubUnitTests): pure values, no pipeline run, process,
# network or media; under a minute.
UNIT := '^MediaPubUnitTests\.'

unit: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --filter $(UNIT)

# Every test: the unit tests first, then the end-to-end ones (Tests/MediaPubTests).
test: test-deps build media
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing --filter $(UNIT)
	$(SWIFT) test --skip-build --disable-swift-testing --skip $(UNIT)

# mediapub side by side with ffmpeg and gst-launch at the same settings: wall, CPU, peak RSS,
# SSIM, first packet (release build; BENCH_SECONDS=5 BENCH_RUNS=1 for a quick check).
# Never part of make test.
bench: test-deps media
	@bash scripts/bench.sh

# A/V sync and timeline over 1 h of output (SOAK_DURATION=10m for less), never part of make test.
soak: test-deps
	@bash scripts/soak.sh

# docs/page.png, the README's picture of the operator's page, taken by the test browser (never by hand).
screenshot: test-deps build media
	@bash scripts/screenshot.sh

clean:
	rm -rf .build out presets/media
