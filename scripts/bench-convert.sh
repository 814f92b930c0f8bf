#!/usr/bin/env bash
# Whole-job benchmark for docs/benchmarks.md (issue #20): `audiopipe convert` of a 10-minute float32
# mono raw file to PCM16 raw, against a minimal C program that streams the same file through
# libsoxr HQ in 64k-frame blocks (Benchmarks/tools/soxr-convert.c), for the four ratios of the
# suite. Whole processes, wall clock, the two alternated run by run, medians of ROUNDS runs. Inputs
# are generated once (sox) and read from the page cache; outputs go to OUT_ON. The Markdown section
# goes to stdout (paste it into docs/benchmarks.md after the batch section, from its marker on),
# progress to stderr.
#
#   scripts/bench-convert.sh                    # full size: 600 s files, 9 rounds
#   SECONDS_LONG=60 ROUNDS=3 scripts/bench-convert.sh   # a quick try
#
# Environment:
#   AUDIOPIPE     the binary (default .build/release/audiopipe)
#   SECONDS_LONG  seconds of audio per input file (default 600)
#   ROUNDS        timed runs of each program per ratio (default 9)
#   BENCH_CACHE   where the inputs are generated once (default ${TMPDIR:-/tmp}/audiopipe-bench-convert)
#   OUT_ON        where the outputs are written, deleted at the end (default $BENCH_CACHE)
set -euo pipefail
cd "$(dirname "$0")/.."

AUDIOPIPE=${AUDIOPIPE:-.build/release/audiopipe}
SECONDS_LONG=${SECONDS_LONG:-600}
ROUNDS=${ROUNDS:-9}
BENCH_CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/audiopipe-bench-convert}
OUT_ON=${OUT_ON:-$BENCH_CACHE}

log() { printf '[bench-convert] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $AUDIOPIPE ]] || die "no binary at $AUDIOPIPE (swift build -c release, or set AUDIOPIPE)"
for v in SECONDS_LONG ROUNDS; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
command -v sox >/dev/null || die "sox is needed to generate the inputs (apt-get install sox)"
cc=$(command -v cc || command -v gcc || command -v clang) || die "no C compiler"

mkdir -p "$BENCH_CACHE" "$OUT_ON"
work=$(mktemp -d "$OUT_ON/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$cc" -O2 -Wall -Wextra -Werror Benchmarks/tools/soxr-convert.c -lsoxr -o "$work/soxr-convert" \
    || die "cannot build the libsoxr peer (libsoxr-dev: make bench-deps installs it)"

ratios=("48000 16000" "16000 24000" "24000 48000" "44100 16000")
for r in "${ratios[@]}"; do
    read -r from _ <<<"$r"
    f="$BENCH_CACHE/in-$from-$SECONDS_LONG.f32"
    if [[ ! -s $f ]]; then
        log "generating $f ($SECONDS_LONG s of pink noise and a sweep, float32 mono)"
        sox -n -r "$from" -c 1 -e floating-point -b 32 -t raw "$f.part" \
            synth "$SECONDS_LONG" pinknoise vol 0.25 synth "$SECONDS_LONG" sine mix 100-$((from * 2 / 5)) vol 0.5
        mv "$f.part" "$f"
    fi
done

# Wall-clock seconds of one run of "$@" (stdout and stderr discarded; a failure stops the script).
wall() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || die "failed: $*"
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

when=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- Sources Benchmarks 2>/dev/null || commit+=" with uncommitted changes"
rows=()
for r in "${ratios[@]}"; do
    read -r from to <<<"$r"
    f="$BENCH_CACHE/in-$from-$SECONDS_LONG.f32"
    ours=() peer=()
    ap=("$AUDIOPIPE" convert "$f" "$work/ours.raw" --in-rate "$from" --in-channels 1 --in-encoding float32
        -r "$to" --no-progress)
    sx=("$work/soxr-convert" "$from" "$to" "$f" "$work/peer.raw")
    "${ap[@]}" >/dev/null 2>&1 || die "audiopipe convert failed on $f"  # warm-up (and page cache)
    "${sx[@]}" || die "the soxr peer failed on $f"
    for ((i = 0; i < ROUNDS; i++)); do
        if ((i % 2)); then
            peer+=("$(wall "${sx[@]}")")
            ours+=("$(wall "${ap[@]}")")
        else
            ours+=("$(wall "${ap[@]}")")
            peer+=("$(wall "${sx[@]}")")
        fi
    done
    # Both wrote the whole file: PCM16 mono, the length the ratio gives (soxr may differ by a frame).
    frames_in=$(($(stat -c %s "$f") / 4))
    want=$(((frames_in * to + from - 1) / from))
    got=$(($(stat -c %s "$work/ours.raw") / 2))
    got_peer=$(($(stat -c %s "$work/peer.raw") / 2))
    ((got == want)) || die "$from -> $to: audiopipe wrote $got frames, expected $want"
    ((got_peer >= want - 2 && got_peer <= want + 2)) || die "$from -> $to: the peer wrote $got_peer frames, expected ~$want"
    o=$(printf '%s\n' "${ours[@]}" | median)
    p=$(printf '%s\n' "${peer[@]}" | median)
    ratio=$(awk -v o="$o" -v p="$p" 'BEGIN {printf "%.2f", p / o}')
    label="$((from / 1000))k → $((to / 1000))k"
    [[ $from == 44100 ]] && label="44.1k → $((to / 1000))k"
    log "$label: audiopipe ${o} µs, soxr peer ${p} µs (median of $ROUNDS): ${ratio}×"
    rows+=("$(printf '| `audiopipe convert` %s | %s s float32 mono raw → PCM16 raw | %.3f s | %.3f s | %s× the soxr peer |' \
        "$label" "$SECONDS_LONG" "$(awk -v x="$o" 'BEGIN {print x / 1e6}')" "$(awk -v x="$p" 'BEGIN {print x / 1e6}')" "$ratio")")
done

cat <<EOF
<!-- bench-convert -->
## Whole-file conversion against libsoxr HQ (\`make bench-convert\`), $when

\`scripts/bench-convert.sh\` (commit $commit): \`audiopipe convert IN.f32 OUT.raw --in-rate R --in-channels 1
--in-encoding float32 -r R2\` against \`Benchmarks/tools/soxr-convert.c\`, a minimal C program that streams the same
file through libsoxr HQ in 64k-frame blocks and lets soxr write PCM16 without dither. Whole processes (start-up,
reading, resampling, conversion, writing), inputs in the page cache, the two alternated, median wall clock of
$ROUNDS runs each. Ratio = the peer's median ÷ ours (above 1: \`audiopipe\` faster). \`convert\` runs the native
resampler's throughput mode (same output as streaming; outputs held back in blocks where the ratio has many phases).

| job | input | audiopipe (median) | soxr peer (median) | ratio |
|---|---|---:|---:|---|
EOF
printf '%s\n' "${rows[@]}"
