#!/usr/bin/env bash
# Whole-job benchmark for docs/benchmarks.md (issue #20): `audiopipe convert` of a 10-minute float32
# mono raw file to PCM16 raw, against a minimal C program that streams the same file through
# libsoxr HQ in 64k-frame blocks (Benchmarks/tools/soxr-convert.c), for the four ratios of the
# suite. Whole processes, wall clock. ROUNDS rounds, each timing every ratio once with the two programs
# back to back in alternating order; reported per ratio: the median of the per-round ratios (peer ÷
# ours) with their interquartile range and min–max, and how many rounds over how long. Inputs
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
#   ROUNDS        rounds: timed runs of each program per ratio (default 9)
#   GAP           seconds to wait between rounds, to spread them over more of the machine's load (default 0)
#   BENCH_CACHE   where the inputs are generated once (default ${TMPDIR:-/tmp}/audiopipe-bench-convert)
#   OUT_ON        where the outputs are written, deleted at the end (default $BENCH_CACHE)
#   OUTPUTS       replace (default): each run overwrites the last round's output, as a re-run does;
#                 fresh: the outputs are removed before each timed run (untimed), as a corpus conversion
#                 writes new files. On ext4 replacing a file costs both programs a flush the file
#                 system starts itself (auto_da_alloc: ours in rename, the peer's at open with O_TRUNC
#                 and at close), 10-30 ms of a 60-90 ms job, the same for every ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

AUDIOPIPE=${AUDIOPIPE:-.build/release/audiopipe}
SECONDS_LONG=${SECONDS_LONG:-600}
ROUNDS=${ROUNDS:-9}
GAP=${GAP:-0}
OUTPUTS=${OUTPUTS:-replace}
BENCH_CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/audiopipe-bench-convert}
OUT_ON=${OUT_ON:-$BENCH_CACHE}

log() { printf '[bench-convert] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $AUDIOPIPE ]] || die "no binary at $AUDIOPIPE (swift build -c release, or set AUDIOPIPE)"
[[ $OUTPUTS == replace || $OUTPUTS == fresh ]] || die "OUTPUTS must be replace or fresh (got '$OUTPUTS')"
[[ $GAP =~ ^[0-9]+$ ]] || die "GAP must be a whole number of seconds (got '$GAP')"
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

# One run of "$@" (stdout and stderr discarded; a failure stops the script): "WALL CPU", the wall
# clock and the process's CPU time (user + system, from bash's `time`), in microseconds. CPU time
# leaves out the time the process waited for a core, the larger part of this machine's noise.
TIMEFORMAT='%3U %3S'
run() {
    local t0 t1 cpu
    t0=$(date +%s%N)
    cpu=$({ time "$@" >/dev/null 2>&1; } 2>&1) || die "failed: $*"
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000)) $(awk -v c="$cpu" 'BEGIN {split(c, a, " "); printf "%.0f", (a[1] + a[2]) * 1e6}')"
}

# Quantile q (0..1) of the numbers on stdin, linear between order statistics (q = 0.5: the median).
quantile() {
    sort -g | awk -v q="$1" '{a[NR] = $1} END {h = (NR - 1) * q; i = int(h); f = h - i
        printf "%.6f\n", (i + 1 < NR) ? a[i + 1] + f * (a[i + 2] - a[i + 1]) : a[NR]}'
}

label_of() {
    if [[ $1 == 44100 ]]; then echo "44.1k → $(($2 / 1000))k"; else echo "$(($1 / 1000))k → $(($2 / 1000))k"; fi
}

when=$(date -u '+%Y-%m-%d %H:%M UTC')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- Sources Benchmarks 2>/dev/null || commit+=" with uncommitted changes"

# A warm-up run of each (and the page cache), then ROUNDS rounds; each round times every ratio once,
# ours and the peer back to back, the order alternating round by round. A round's ratio (peer ÷ ours)
# compares two runs a fraction of a second apart, so load that drifts over the minutes the whole
# benchmark takes moves both sides of a round alike, and the rounds are spread over those minutes.
# Reported per ratio: the median of the per-round ratios and their spread (quartiles, min–max).
declare -A ours peer ours_cpu peer_cpu
for r in "${ratios[@]}"; do
    read -r from to <<<"$r"
    f="$BENCH_CACHE/in-$from-$SECONDS_LONG.f32"
    "$AUDIOPIPE" convert "$f" "$work/ours-$from-$to.raw" --in-rate "$from" --in-channels 1 --in-encoding float32 \
        -r "$to" --no-progress >/dev/null 2>&1 || die "audiopipe convert failed on $f"
    "$work/soxr-convert" "$from" "$to" "$f" "$work/peer-$from-$to.raw" || die "the soxr peer failed on $f"
done
t_start=$(date +%s)
for ((i = 0; i < ROUNDS; i++)); do
    for r in "${ratios[@]}"; do
        read -r from to <<<"$r"
        f="$BENCH_CACHE/in-$from-$SECONDS_LONG.f32"
        ap=("$AUDIOPIPE" convert "$f" "$work/ours-$from-$to.raw" --in-rate "$from" --in-channels 1
            --in-encoding float32 -r "$to" --no-progress)
        sx=("$work/soxr-convert" "$from" "$to" "$f" "$work/peer-$from-$to.raw")
        if [[ $OUTPUTS == fresh ]]; then rm -f "$work/ours-$from-$to.raw" "$work/peer-$from-$to.raw"; fi
        if ((i % 2)); then
            read -r p pc <<<"$(run "${sx[@]}")"
            read -r o oc <<<"$(run "${ap[@]}")"
        else
            read -r o oc <<<"$(run "${ap[@]}")"
            read -r p pc <<<"$(run "${sx[@]}")"
        fi
        ours[$from-$to]+="$o "
        peer[$from-$to]+="$p "
        ours_cpu[$from-$to]+="$oc "
        peer_cpu[$from-$to]+="$pc "
    done
    log "round $((i + 1))/$ROUNDS done"
    if ((i + 1 < ROUNDS && GAP > 0)); then sleep "$GAP"; fi
done
span=$(($(date +%s) - t_start))
every=$(awk -v s="$span" -v n="$ROUNDS" 'BEGIN {printf "%.1f", (n > 1) ? s / (n - 1) : 0}')

rows=()
for r in "${ratios[@]}"; do
    read -r from to <<<"$r"
    # Both wrote the whole file: PCM16 mono, the length the ratio gives (soxr may differ by a frame).
    f="$BENCH_CACHE/in-$from-$SECONDS_LONG.f32"
    frames_in=$(($(stat -c %s "$f") / 4))
    want=$(((frames_in * to + from - 1) / from))
    got=$(($(stat -c %s "$work/ours-$from-$to.raw") / 2))
    got_peer=$(($(stat -c %s "$work/peer-$from-$to.raw") / 2))
    ((got == want)) || die "$from -> $to: audiopipe wrote $got frames, expected $want"
    ((got_peer >= want - 2 && got_peer <= want + 2)) || die "$from -> $to: the peer wrote $got_peer frames, expected ~$want"
    read -r -a os <<<"${ours[$from-$to]}"
    read -r -a ps <<<"${peer[$from-$to]}"
    read -r -a ocs <<<"${ours_cpu[$from-$to]}"
    read -r -a pcs <<<"${peer_cpu[$from-$to]}"
    per_round=()
    per_round_cpu=()
    for ((i = 0; i < ROUNDS; i++)); do
        per_round+=("$(awk -v o="${os[i]}" -v p="${ps[i]}" 'BEGIN {print p / o}')")
        per_round_cpu+=("$(awk -v o="${ocs[i]}" -v p="${pcs[i]}" 'BEGIN {print (o > 0) ? p / o : 0}')")
    done
    cmed=$(printf '%s\n' "${per_round_cpu[@]}" | quantile 0.5)
    cq1=$(printf '%s\n' "${per_round_cpu[@]}" | quantile 0.25)
    cq3=$(printf '%s\n' "${per_round_cpu[@]}" | quantile 0.75)
    oc=$(printf '%s\n' "${ocs[@]}" | quantile 0.5)
    pc=$(printf '%s\n' "${pcs[@]}" | quantile 0.5)
    med=$(printf '%s\n' "${per_round[@]}" | quantile 0.5)
    q1=$(printf '%s\n' "${per_round[@]}" | quantile 0.25)
    q3=$(printf '%s\n' "${per_round[@]}" | quantile 0.75)
    lo=$(printf '%s\n' "${per_round[@]}" | quantile 0)
    hi=$(printf '%s\n' "${per_round[@]}" | quantile 1)
    o=$(printf '%s\n' "${os[@]}" | quantile 0.5)
    p=$(printf '%s\n' "${ps[@]}" | quantile 0.5)
    label=$(label_of "$from" "$to")
    log "$(awk -v l="$label" -v o="$o" -v p="$p" -v m="$med" -v q1="$q1" -v q3="$q3" -v lo="$lo" -v hi="$hi" \
        'BEGIN {printf "%s: audiopipe %.0f µs, soxr peer %.0f µs; ratio %.2f× (IQR %.2f–%.2f, range %.2f–%.2f)", l, o, p, m, q1, q3, lo, hi}')$(
        awk -v m="$cmed" -v q1="$cq1" -v q3="$cq3" 'BEGIN {printf "; CPU time %.2f× (IQR %.2f–%.2f)", m, q1, q3}')"
    rows+=("$(awk -v l="$label" -v s="$SECONDS_LONG" -v o="$o" -v p="$p" -v m="$med" -v q1="$q1" -v q3="$q3" \
        -v lo="$lo" -v hi="$hi" 'BEGIN {printf "| `audiopipe convert` %s | %s s float32 mono → PCM16 | %.3f s | %.3f s |", l, s, o / 1e6, p / 1e6
        printf " %.2f× | %.2f–%.2f× | %.2f–%.2f× |", m, q1, q3, lo, hi}') $(awk -v oc="$oc" -v pc="$pc" -v m="$cmed" \
        -v q1="$cq1" -v q3="$cq3" 'BEGIN {printf "%.1f / %.1f ms: %.2f× (IQR %.2f–%.2f×) |", oc / 1e3, pc / 1e3, m, q1, q3}')")
done

cat <<EOF
<!-- bench-convert -->
## Whole-file conversion against libsoxr HQ (\`make bench-convert\`), $when

\`scripts/bench-convert.sh\` (commit $commit): \`audiopipe convert IN.f32 OUT.raw --in-rate R --in-channels 1
--in-encoding float32 -r R2\` against \`Benchmarks/tools/soxr-convert.c\`, a minimal C program that streams the same
file through libsoxr HQ in 64k-frame blocks and lets soxr write PCM16 without dither. Whole processes (start-up,
reading, resampling, conversion, writing), inputs in the page cache; outputs: $OUTPUTS (replace: each run
overwrites the last round's file, which on ext4 costs both programs a flush the file system starts itself; fresh:
removed before each timed run, as when a corpus is converted into new files). $ROUNDS rounds over $span s (one every
$every s); each round runs every ratio once, the two programs back to back, in alternating order. Ratio = the
peer's time ÷ ours within one round (above 1: \`audiopipe\` faster); the table gives the median of the $ROUNDS
per-round ratios, their interquartile range and their min–max: the spread is this machine's noise, and a change
smaller than it is not shown by the run. Times are medians. The last column is the same for CPU time (user +
system, bash's \`time\`: the medians of ours and the peer's, then the median and IQR of the per-round ratios), which
leaves out the time a process waits for a core and is steadier on a shared machine; the wall-clock ratio is the
figure of record. \`convert\` runs the native resampler's file path: throughput mode (same output as streaming),
and at 48k → 16k and 44.1k → 16k the half-band cascade (its own design; its quality in the bench-quality section).

| job | input | audiopipe | soxr peer | ratio (median of rounds) | IQR | min–max | CPU time: ours / peer, ratio |
|---|---|---:|---:|---:|---:|---:|---|
EOF
printf '%s\n' "${rows[@]}"
