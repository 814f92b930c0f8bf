# AudioPipeline — the two commands of the README's "Set up", plus a few helpers.
#   make demo   install system libraries if missing, build release, run the main job on samples/
#   make test   install system libraries if missing, run the test suite
#   make bench  run the benchmark suite (release); report in bench-out/benchmarks.md (FILTER=Target)
#   make bench-report  the whole suite, then rewrite the committed docs/benchmarks.md
#   make test-bench-report  unit tests of the report generator (CI)
#   make check-allocations  zero allocations per chunk on every hot-path stage (CI)
#   make check-kernels      the C vector kernels, native and AArch64 under qemu (CI)
#   make format-check       swift-format lint (.swift-format) and the layout rules (CI)
#   make check-memory       peak RSS of deframe, jitter play, convert, vad detect and session simulate on 60-minute inputs (CI)
#   make fuzz               libFuzzer on every parser for FUZZ_SECONDS each (fuzz-smoke: 20 s, CI)
#   make test-sanitizers    the tests under AddressSanitizer, the concurrent parts under ThreadSanitizer (CI)
#   make bench-batch        the batch benchmark (2,000 files, GNU parallel and sox per file as peers; Markdown)
#   make bench-convert      whole-file convert (10 min, 4 ratios) against a C program on libsoxr HQ (Markdown)
#   make bench-quality      the native resampler's quality beside libsoxr HQ's, same analyzer (Markdown)
#   make bench-agreement    audiopipe bench against the suite on the same configuration (Markdown; ±15 %)
#   make check-slurm        the Slurm array example on a throwaway one-node cluster, against one process (CI)
#   make dist               static release binary, man page, completions: dist/*.tar.gz and dist/*.deb
#   make install            those files under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make check-dist         make dist, then the .deb's binary run without the toolchain (CI)
#   make check-docs         every sh example of README.md and docs/guide/ runs on samples/, links checked (CI)
#   make test-check-docs    unit tests of scripts/check-docs.py (CI)
#   make vad-scores-venv    .venv-vad: pipecat, LiveKit's silero plugin, webrtcvad, ten-vad (pinned; scripts/vad-scores.py)
#   make check-vad-parity   vad detect --scores against the real pipecat and LiveKit VADs, ≥ 99 % of 10 ms frames (CI)
#   make docs               the DocC archives of the four libraries, warnings as errors; doc comment coverage (CI)

SHELL := /bin/bash
APT_PACKAGES := libsndfile1-dev libsamplerate0-dev libfftw3-dev pkg-config
# Tools the tests use: sox (cross-checks), chromium (renders the VAD plots), python3 with numpy
# (the evaluation kits' scorers).
APT_TEST_PACKAGES := sox chromium
PKGCONFIG_MODULES := sndfile samplerate fftw3f
DEMO_OUT := demo-out
SWIFT_BUILD_FLAGS ?=
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: deps bench-deps test-deps demo test build release bench bench-report test-bench-report check-allocations check-kernels format-check check-memory fuzz fuzz-smoke test-sanitizers check-slurm bench-batch bench-convert bench-quality bench-agreement dist install check-dist check-docs test-check-docs clean samples vad-scores-venv check-vad-parity check-echo-grids docs

# Install the system libraries when pkg-config cannot find them: as root with apt-get, else with
# sudo, else explain what to install.
deps:
	@bash scripts/install-deps.sh $(APT_PACKAGES) -- $(PKGCONFIG_MODULES)

test-deps: deps
	@bash scripts/install-deps.sh $(APT_TEST_PACKAGES) -- --commands sox chromium
	@bash scripts/install-deps.sh python3 python3-numpy -- --python numpy

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

release: deps
	swift build -c release --product audiopipe $(SWIFT_BUILD_FLAGS)

demo: release
	@bash scripts/demo.sh "$$(swift build -c release --show-bin-path)/audiopipe" $(DEMO_OUT)

test: test-deps
	swift test $(SWIFT_BUILD_FLAGS)

# The benchmark package also links libsoxr (the resampling peer).
bench-deps: deps
	@bash scripts/install-deps.sh libsoxr-dev -- soxr

# Runs the suite in release and writes a scratch report, bench-out/benchmarks.md (git-ignored; raw
# output beside it). FILTER=Resampling runs that target only (package-benchmark's --target; several:
# FILTER="Framing Jitter"); a FILTER that is not a target name is a regex on benchmark names
# (--filter), e.g. FILTER='Resample 1s.*'. REPORT=1 is make bench-report.
# The committed docs/benchmarks.md changes only with make bench-report: the whole suite, summary
# against Benchmarks/goals.json first. RAW=bench-out/raw.txt regenerates either report from a saved
# run's output without running anything.
bench: bench-deps
	@FILTER='$(FILTER)' RAW='$(RAW)' bash scripts/bench.sh $(if $(filter 1 yes true,$(REPORT)),--report)

bench-report: bench-deps
	@FILTER='$(FILTER)' RAW='$(RAW)' bash scripts/bench.sh --report

# The report generator against fabricated package-benchmark output (seconds; CI): a format change
# upstream must fail here, not produce an empty table.
test-bench-report:
	python3 -m unittest discover -s scripts -p 'test_bench_*.py'

# The C vector kernels (Sources/CVectorKernels) against plain references, natively and for AArch64
# under qemu (the NEON code no Swift test reaches on x86). Needs a cross compiler and qemu-user.
check-kernels:
	@bash scripts/install-deps.sh qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross -- --commands qemu-aarch64 aarch64-linux-gnu-gcc
	@bash scripts/check-kernels.sh

# Deterministic: every AudioPipeline stage must allocate nothing per chunk (run by .ci/run).
check-allocations: bench-deps
	@bash scripts/check-allocations.sh

# Formatting (.swift-format, with the swift-format that ships with the toolchain) and the layering
# and size rules of the README's Layout section (scripts/check-layout.py). Read-only.
format-check:
	swift format lint --strict --recursive Package.swift Sources Tests Benchmarks/Benchmarks Benchmarks/Sources Benchmarks/Tools Benchmarks/Package.swift Fuzz/Sources Fuzz/Package.swift
	python3 scripts/check-layout.py

# Hour-long inputs in bounded memory: generates a 60-minute capture (JSON Lines and HAR) and 60
# minutes of audio in a scratch folder (removed after; CHECK_MEMORY_CACHE=DIR keeps the inputs there
# for the next run), and checks each job's peak RSS (≤ 150 MB).
check-memory: release test-deps
	python3 scripts/check-memory.py "$$(swift build -c release --show-bin-path)/audiopipe" $(CHECK_MEMORY_CACHE)

# libFuzzer targets (Fuzz/): the JSON parser, the scanner against it, base64 (both kernels), the
# captured-session readers, traces, labels and profile templates. A crash fails and is kept.
FUZZ_SECONDS ?= 300
fuzz: deps
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

fuzz-smoke: deps
	@bash scripts/fuzz.sh 20

# The whole suite under AddressSanitizer (leak reports off: argument-parser keeps globals until
# exit), then the concurrent parts (the VAD sweep on every core) under ThreadSanitizer.
test-sanitizers: test-deps
	ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path .build-asan
	swift test --sanitize=thread --scratch-path .build-tsan --filter "VADJobs|VADTuneCommand|BatchRuns|BatchFromSwift"

# The batch benchmark (whole processes, not the suite): prints the Markdown that docs/benchmarks.md
# keeps at its end (make bench and make bench-report carry it over). A few minutes; corpora cached under /tmp.
bench-batch: release
	AUDIOPIPE=.build/release/audiopipe bash scripts/bench-batch.sh

# Whole-file conversion against a C program streaming through libsoxr HQ (issue #20): prints the
# Markdown section docs/benchmarks.md keeps after the batch one. The binary is built as `make dist`
# builds the one users install (Swift runtime linked statically), in its own scratch directory.
bench-convert: bench-deps
	@bash scripts/install-deps.sh sox -- --commands sox
	@swift build -c release --product audiopipe --static-swift-stdlib --scratch-path .build-static >&2
	@AUDIOPIPE=.build-static/release/audiopipe bash scripts/bench-convert.sh

# The resampler quality table beside libsoxr HQ (Benchmarks/Tools/ResamplerQuality), Markdown.
bench-quality: bench-deps
	@cd Benchmarks && swift run -c release ResamplerQuality

# `audiopipe bench` against the suite's Paths target on the same configuration, alternating, in one
# session: prints the Markdown section docs/benchmarks.md keeps at its end; exit 1 beyond ±15 %.
bench-agreement: release bench-deps
	python3 scripts/bench-agreement.py "$$(swift build -c release --show-bin-path)/audiopipe" Benchmarks

# Batch mode on a real Slurm: a throwaway one-node cluster (its own munged, slurmctld and slurmd in
# a temporary directory; slurm-wlm, munge and sox installed if missing) runs
# examples/slurm/convert-corpus.sbatch as a 4-task array on 300 files; the outputs must be those of
# one process, byte for byte, and the merged reports list every file once.
check-slurm: release
	AUDIOPIPE=.build/release/audiopipe bash scripts/check-slurm.sh

# Installable where there is no Swift: from a clean export of HEAD (`git archive`, the commit
# stamped into it), a release audiopipe with the Swift runtime linked statically and stripped, its
# man page (swift-argument-parser's generate-manual plugin), bash/zsh/fish completions; packed as
# dist/audiopipe-VERSION-linux-ARCH.tar.gz and dist/audiopipe_VERSION_ARCH.deb (dpkg-deb).
dist: deps
	@bash scripts/dist.sh

# The same files under $(DESTDIR)$(PREFIX); runs make dist first if dist/ is missing or stale.
install:
	@bash scripts/install.sh "$(PREFIX)" "$(DESTDIR)"

# make dist, then the .deb unpacked: no Swift library in ldd, runs (--version, info, convert on
# samples/) with the toolchain out of reach; man page, completions, tarball and make install
# checked against it. A few minutes (the static release build).
check-dist:
	@bash scripts/check-dist.sh

# The docs run (scripts/check-docs.py): every sh block of README.md and docs/guide/*.md, page by
# page in a fresh temporary directory holding a copy of samples/, with this build's audiopipe first
# on PATH; relative links and #anchors checked too. KEEP=1 keeps the sandboxes. About a minute.
check-docs: release
	python3 scripts/check-docs.py --bin-dir "$$(swift build -c release --show-bin-path)"

test-check-docs:
	python3 -m unittest discover -s scripts -p 'test_check_docs.py'

# The VADs people ship, for scripts/vad-scores.py and the parity check: a virtual environment
# .venv-vad (git-ignored; VENV=DIR elsewhere) with the pinned packages of
# scripts/vad-frameworks/requirements.txt (every dependency pinned by constraints.txt), and
# libc++1, which ten-vad's library needs. Re-run when the requirements change (a stamp file).
VENV ?= .venv-vad
vad-scores-venv: $(VENV)/.installed

$(VENV)/.installed: scripts/vad-frameworks/requirements.txt scripts/vad-frameworks/constraints.txt
	@bash scripts/install-deps.sh libc++1 -- --library libc++.so.1
	@bash scripts/install-deps.sh python3-venv -- --python venv
	python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r scripts/vad-frameworks/requirements.txt \
		-c scripts/vad-frameworks/constraints.txt
	@touch $@

# The emulation against the frameworks themselves (scripts/vad-parity.py): pipecat's
# SileroVADAnalyzer and LiveKit's silero plugin, installed from PyPI in .venv-vad, on the sample
# recordings (and two real ones of the VAD kit when ../shared/eval/vad is there), three settings
# each; every pair must agree on ≥ 99 % of 10 ms frames. About 15 s once the venv exists.
VAD_PARITY_RECORDINGS ?= samples/vad/bargein.wav samples/vad/keyboard.wav samples/vad/pink-noise.wav \
	$(wildcard ../shared/eval/vad/real/ami_EN2001a_0-30s.wav ../shared/eval/vad/real/mfa_cold_corpus3.wav)
check-vad-parity: release vad-scores-venv
	$(VENV)/bin/python scripts/vad-parity.py --audiopipe "$$(swift build -c release --show-bin-path)/audiopipe" \
		$(VAD_PARITY_RECORDINGS)
# Issue 30's echo grids (scripts/echo-grids.py: echo delays 0–300 ms × gains −20…+6 dB, a silent
# user and one talking over the agent from 3.0 s): with the sample scenario's agent no cell may fail;
# with the sample reply (samples/agent-reply-24k-pcm16.wav) no silent cell and at most 5 talking
# ones (the user 15-25 dB under an echo that arrives with his first word; 35 until the onset guard
# waited for the echo, 2026-12-03); with the VAD kit's dev agent track, when ../shared/eval/vad is
# there, none (3 slow talking cells until 2026-12-02: docs/design/vad-experiments.md). About 50 s.
ECHO_GRID_KIT ?= ../shared/eval/vad
check-echo-grids: release
	python3 scripts/echo-grids.py "$$(swift build -c release --show-bin-path)/audiopipe" \
		--agent samples/scenario/agent-24k.wav --max-silent 0 --max-talking 0
	python3 scripts/echo-grids.py "$$(swift build -c release --show-bin-path)/audiopipe" \
		--agent samples/agent-reply-24k-pcm16.wav --max-silent 0 --max-talking 5
	@if [ -f $(ECHO_GRID_KIT)/dev/039_tts_bargein_6.ref.wav ]; then \
		python3 scripts/echo-grids.py "$$(swift build -c release --show-bin-path)/audiopipe" \
			--kit $(ECHO_GRID_KIT) --max-silent 0 --max-talking 0; \
	else echo "check-echo-grids: $(ECHO_GRID_KIT) not there: the kit's dev agent track skipped"; fi
# API documentation (DocC): one archive per library under $(DOCS_SCRATCH)/plugins/Swift-DocC/outputs/,
# with warnings (unresolved links, undocumented parameters, bad Topics) as errors; then every public
# symbol has a doc comment (scripts/check-doc-coverage.py: docc does not fail on a missing one).
# AUDIOPIPELINE_DOCS=1 adds swift-docc-plugin to the package (Package.swift): only here, so apps
# depending on us and make dist never resolve it. To read one:
# `python3 -m http.server -d .build/plugins/Swift-DocC/outputs/AudioPipelineCore.doccarchive`, then
# open /documentation/audiopipelinecore.
DOCS_TARGETS := AudioPipelineCore AudioPipelineAdapters AudioPipelineWorkflows AudioPipelineBench
DOCS_SCRATCH ?= .build
docs: deps
	AUDIOPIPELINE_DOCS=1 swift package --scratch-path $(DOCS_SCRATCH) generate-documentation \
		$(addprefix --target ,$(DOCS_TARGETS)) --warnings-as-errors --analyze
	python3 scripts/check-doc-coverage.py --scratch-path $(DOCS_SCRATCH)

samples:
	samples/make-samples.sh
	samples/make-scenario.sh
	samples/make-vad-samples.sh

clean:
	rm -rf .build .build-asan .build-tsan dist $(DEMO_OUT) Benchmarks/.build Fuzz/.build
