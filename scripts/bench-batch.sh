#!/usr/bin/env bash
# Batch benchmark for docs/benchmarks.md: `audiopipe convert` over many files against itself with
# one job, against GNU parallel running one `audiopipe convert` per file, and against sox per file;
# the audio hours per wall-clock second of a 2-hour file list; the peak RSS of a batch over 200 and
# over 2,000 files. All measured side by side in one run: ROUNDS rounds, the order alternated from
# round to round, medians reported. Markdown goes to stdout (paste into docs/benchmarks.md),
# progress to stderr.
#
#   scripts/bench-batch.sh                       # full size: 2,000 × 1 s files, 120 × 60 s files
#   BATCH_FILES=100 ROUNDS=1 LONG_FILES=4 scripts/bench-batch.sh     # a quick try
#
# Environment:
#   AUDIOPIPE     the binary (default .build/release/audiopipe; build it with `swift build -c release`)
#   BATCH_FILES   number of 1-second 48 kHz stereo files (default 2000)
#   ROUNDS        rounds of every timed run (default 3)
#   LONG_FILES    number of files of the long list (default 120) ...
#   LONG_SECONDS  ... each this long (default 60: 120 × 60 s = 2 h)
#   RSS_FILES     the smaller batch of the peak-RSS comparison (default 200)
#   BENCH_CACHE   where the corpora are generated once and reused
#                 (default ${TMPDIR:-/tmp}/audiopipe-bench-batch; ~0.4 GB + ~1.4 GB at full size)
#   OUT_ON        outputs go to a new directory under this one, deleted at the end (default
#                 $BENCH_CACHE; e.g. OUT_ON=/dev/shm takes the disk out of the measurement)
#   DEFER_RM      1 (default): an earlier run's output directory is moved aside before each run and
#                 all are deleted at the end; 0: deleted (rm -rf) before each run.
#   SETTLE        1 (default): on ext4 without a journal, wait until the outputs an earlier run of
#                 this script deleted are 6 min old; 0: don't.
#
# Why DEFER_RM and SETTLE: ext4 without a journal will not reuse an inode deleted less than 60 s
# ago (360 s while its inode-table block is dirty), and its allocator skips such inodes one by one
# while holding the directory's lock. Creating files soon after deleting thousands is then several
# times slower, and serial: it would charge one method for the previous method's cleanup, and make
# --jobs 2 look like --jobs 1.
set -euo pipefail
cd "$(dirname "$0")/.."

AUDIOPIPE=${AUDIOPIPE:-.build/release/audiopipe}
BATCH_FILES=${BATCH_FILES:-2000}
ROUNDS=${ROUNDS:-3}
LONG_FILES=${LONG_FILES:-120}
LONG_SECONDS=${LONG_SECONDS:-60}
RSS_FILES=${RSS_FILES:-200}
BENCH_CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/audiopipe-bench-batch}
OUT_ON=${OUT_ON:-$BENCH_CACHE}
DEFER_RM=${DEFER_RM:-1}
SETTLE=${SETTLE:-1}
VARIANTS=20           # distinct generated signals, copied round-robin into the corpora
PEER_JOBS=2           # GNU parallel -j of the per-file peers (the same as --jobs 2)
FMT=(-r 16000 -c 1)   # 48 kHz stereo -> 16 kHz mono; PCM16 WAV is the default output

log() { printf '[bench-batch] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $AUDIOPIPE ]] || die "no binary at $AUDIOPIPE (swift build -c release, or set AUDIOPIPE)"
AP=$(realpath "$AUDIOPIPE")
for v in BATCH_FILES ROUNDS LONG_FILES LONG_SECONDS RSS_FILES; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
# GNU parallel builds a shell command line from its arguments: keep the paths it sees plain.
for p in "$AP" "$BENCH_CACHE" "$OUT_ON"; do
    [[ $p =~ ^[A-Za-z0-9_./+-]+$ ]] || die "path with spaces or shell characters: '$p'"
done

# --- tools -------------------------------------------------------------------------------------
missing=()
command -v sox >/dev/null || missing+=(sox)
command -v parallel >/dev/null || missing+=(parallel)
[[ -x /usr/bin/time ]] || missing+=(time)
if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    SUDO=; [[ $(id -u) -eq 0 ]] || SUDO=sudo
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >&2
fi
PARALLEL=(parallel --will-cite --halt "now,fail=1" -j"$PEER_JOBS")

# --- corpora (generated once, reused) ---------------------------------------------------------
# VARIANTS distinct signals (pink noise plus a different tone in each channel), made by sox once,
# then copied round-robin: one sox process per file would take minutes for 2,000 files.
make_corpus() { # DIR COUNT SECONDS
    local dir=$1 count=$2 secs=$3 seeds=$BENCH_CACHE/seeds-${3}s i
    [[ -f $dir/.complete ]] && return 0
    if [[ ! -f $seeds/.complete ]]; then
        log "generating $VARIANTS distinct ${secs} s 48 kHz stereo signals in $seeds"
        rm -rf "$seeds" && mkdir -p "$seeds"
        for ((i = 0; i < VARIANTS; i++)); do
            sox -V1 -n -r 48000 -c 2 -b 16 "$seeds/$i.wav" synth "$secs" pinknoise \
                synth "$secs" sine mix $((220 + 37 * i)) sine mix $((330 + 53 * i)) gain -8
        done
        touch "$seeds/.complete"
    fi
    log "making $count × ${secs} s files in $dir"
    rm -rf "$dir" && mkdir -p "$dir"
    for ((i = 0; i < count; i++)); do
        cp "$seeds/$((i % VARIANTS)).wav" "$dir/$(printf 'f%05d.wav' "$i")"
    done
    touch "$dir/.complete"
}
list_of() { # DIR -> the list file (absolute paths, sorted)
    local list=$1.list
    [[ -f $list ]] || find "$(realpath "$1")" -name '*.wav' | sort >"$list"
    printf '%s\n' "$list"
}

mkdir -p "$BENCH_CACHE"
SHORT=$BENCH_CACHE/short-${BATCH_FILES}x1s
SMALL=$BENCH_CACHE/short-${RSS_FILES}x1s
LONG=$BENCH_CACHE/long-${LONG_FILES}x${LONG_SECONDS}s
make_corpus "$SHORT" "$BATCH_FILES" 1
make_corpus "$SMALL" "$RSS_FILES" 1
make_corpus "$LONG" "$LONG_FILES" "$LONG_SECONDS"
SHORT_LIST=$(list_of "$SHORT")
LONG_LIST=$(list_of "$LONG")
LONG_AUDIO_S=$((LONG_FILES * LONG_SECONDS))

# --- outputs ---------------------------------------------------------------------------------
mkdir -p "$OUT_ON"
FS_TYPE=$(df -PT "$OUT_ON" | awk 'NR == 2 { print $2 }')
FS_DEV=$(basename "$(df -P "$OUT_ON" | awk 'NR == 2 { print $1 }')")
NO_JOURNAL=0
if [[ $FS_TYPE == ext4 && -d /proc/fs/ext4/$FS_DEV && ! -e /proc/fs/jbd2/$FS_DEV-8 ]]; then NO_JOURNAL=1; fi
STAMP=$BENCH_CACHE/.outputs-deleted  # "epoch files" of the last cleanup
if [[ $NO_JOURNAL == 1 && $SETTLE == 1 && -f $STAMP ]]; then
    read -r when count <"$STAMP" || true
    wait_s=$((when + 360 - $(date +%s)))
    if ((${count:-0} >= 1000 && wait_s > 0)); then
        log "$FS_TYPE without a journal: waiting ${wait_s} s, until the $count files deleted by the last run are 6 min old (SETTLE=0: don't)"
        sleep "$wait_s"
    fi
fi
OUT_ROOT=$(mktemp -d "$(realpath "$OUT_ON")/bench-out.XXXXXX")
cleanup() {
    local count
    count=$(find "$OUT_ROOT" -type f | wc -l)
    rm -rf "$OUT_ROOT"
    sync
    echo "$(date +%s) $count" >"$STAMP"
}
trap cleanup EXIT
OUT=$OUT_ROOT/run
TRASH=$OUT_ROOT/.trash
mkdir -p "$TRASH"
fresh_out() { # outside the timed region: no output directory left, nothing dirty in the page cache
    if [[ -e $OUT ]]; then
        if [[ $DEFER_RM == 1 ]]; then mv "$OUT" "$TRASH/$(date +%s%N)"; else rm -rf "$OUT"; fi
    fi
    mkdir -p "$OUT"
    sync
}

# Builds with --input-list alone; older ones wanted a path as well (an empty directory does).
LIST_ARGS=(--input-list)
probe=$OUT_ROOT/probe && mkdir -p "$probe/empty"
head -1 "$SHORT_LIST" >"$probe/one.list"
if ! "$AP" convert --input-list "$probe/one.list" -o "$probe/o" "${FMT[@]}" -q 2>"$probe/err"; then
    grep -q "Missing expected argument" "$probe/err" || { cat "$probe/err" >&2; die "--input-list failed"; }
    log "this audiopipe needs a path besides --input-list: adding an empty directory"
    LIST_ARGS=("$probe/empty" --input-list)
fi

# --- the measured commands --------------------------------------------------------------------
check_json() { # FILE EXPECTED_FILES: the batch's --json summary says all done, none failed
    local ok failed
    ok=$(grep -o '"ok" *: *[0-9]*' "$1" | grep -o '[0-9]*$')
    failed=$(grep -o '"failed" *: *[0-9]*' "$1" | grep -o '[0-9]*$')
    [[ $ok == "$2" && $failed == 0 ]] || { cat "$1" >&2; die "batch: ok=$ok failed=$failed, expected ok=$2"; }
}
batch_dir() { "$AP" convert "$1" --recursive -o "$OUT" "${FMT[@]}" --jobs "$2" -q --json >"$OUT_ROOT/summary.json"; }
batch_list() { "$AP" convert "${LIST_ARGS[@]}" "$1" -o "$OUT" "${FMT[@]}" --jobs "$2" -q --json >"$OUT_ROOT/summary.json"; }
par_audiopipe() { "${PARALLEL[@]}" "$AP" convert "{}" "$OUT/{/}" "${FMT[@]}" -q :::: "$1"; }
# sox: its default rate effect (-h, high quality: 95% band, linear phase) and, as it always does
# when reducing precision to 16 bits, TPDF dither. -V1: errors only (no "dither clipped" notes).
par_sox() { "${PARALLEL[@]}" sox -V1 "{}" "${FMT[@]}" -b 16 "$OUT/{/}" :::: "$1"; }
par_true() { "${PARALLEL[@]}" true "{}" "$OUT/{/}" :::: "$1"; }

declare -A TIMES CPUS  # method -> "s1 s2 ..." (wall clock; user + system of the children)
now() { date +%s.%N; }
child_cpu() { # the CPU seconds (user + system) of this shell's finished children, from `times`
    awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] } print s }' "$1"
}
timed() { # METHOD EXPECTED_FILES COMMAND... (a function of this script or a program)
    local method=$1 expect=$2 t0 t1 n wall cpu
    shift 2
    fresh_out
    times >"$OUT_ROOT/times0"  # a builtin, in this shell: no fork, no subshell
    t0=$(now)
    "$@"
    t1=$(now)
    times >"$OUT_ROOT/times1"
    n=$(find "$OUT" -name '*.wav' | wc -l)
    [[ $n == "$expect" ]] || die "$method wrote $n files, expected $expect"
    if [[ $1 == batch_* ]]; then check_json "$OUT_ROOT/summary.json" "$expect"; fi
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    cpu=$(awk -v a="$(child_cpu "$OUT_ROOT/times0")" -v b="$(child_cpu "$OUT_ROOT/times1")" 'BEGIN { printf "%.3f", b - a }')
    TIMES[$method]+="$wall "
    CPUS[$method]+="$cpu "
    log "  $method: $wall s wall, $cpu s CPU"
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
peak_rss_kb() { # COMMAND... -> max resident set size, KiB
    fresh_out
    /usr/bin/time -f %M -o "$OUT_ROOT/rss" "$@"
    tail -1 "$OUT_ROOT/rss"
}

# --- warm-up (untimed): page cache, binaries, and the correctness check -----------------------
log "warm-up: reading the corpora, one untimed run of each tool"
cat "$SHORT"/*.wav "$SMALL"/*.wav "$LONG"/*.wav >/dev/null
fresh_out
batch_dir "$SHORT" 2
check_json "$OUT_ROOT/summary.json" "$BATCH_FILES"
pick=$(sed -n "$(((BATCH_FILES + 1) / 2))p" "$SHORT_LIST")
"$AP" convert "$pick" "$OUT_ROOT/single.wav" "${FMT[@]}" -q
cmp "$OUT/$(basename "$pick")" "$OUT_ROOT/single.wav" ||
    die "batch output of $(basename "$pick") differs from the single-file output"
CHECK_SHORT="batch output of \`$(basename "$pick")\` = single-file \`audiopipe convert\` output (cmp: identical)"
fresh_out
batch_list "$LONG_LIST" 2
check_json "$OUT_ROOT/summary.json" "$LONG_FILES"
pick=$(head -1 "$LONG_LIST")
"$AP" convert "$pick" "$OUT_ROOT/single.wav" "${FMT[@]}" -q
cmp "$OUT/$(basename "$pick")" "$OUT_ROOT/single.wav" ||
    die "--input-list output of $(basename "$pick") differs from the single-file output"
CHECK_LONG="--input-list output of \`$(basename "$pick")\` (${LONG_SECONDS} s) = single-file output (cmp: identical)"
fresh_out
head -20 "$SHORT_LIST" >"$OUT_ROOT/warm.list"
par_audiopipe "$OUT_ROOT/warm.list"
par_sox "$OUT_ROOT/warm.list"

# --- timed rounds ------------------------------------------------------------------------------
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
    log "round $r of $ROUNDS"
    if ((r % 2)); then order=(j1 j2 pap psox ptrue long); else order=(j2 j1 psox pap long ptrue); fi
    for m in "${order[@]}"; do
        case $m in
        j1) timed j1 "$BATCH_FILES" batch_dir "$SHORT" 1 ;;
        j2) timed j2 "$BATCH_FILES" batch_dir "$SHORT" 2 ;;
        pap) timed pap "$BATCH_FILES" par_audiopipe "$SHORT_LIST" ;;
        psox) timed psox "$BATCH_FILES" par_sox "$SHORT_LIST" ;;
        ptrue) timed ptrue 0 par_true "$SHORT_LIST" ;;
        long) timed long "$LONG_FILES" batch_list "$LONG_LIST" 2 ;;
        esac
    done
done

log "peak RSS"
RSS_SMALL=$(peak_rss_kb "$AP" convert "$SMALL" --recursive -o "$OUT" "${FMT[@]}" --jobs 2 -q)
RSS_BIG=$(peak_rss_kb "$AP" convert "$SHORT" --recursive -o "$OUT" "${FMT[@]}" --jobs 2 -q)
RSS_LONG=$(peak_rss_kb "$AP" convert "${LIST_ARGS[@]}" "$LONG_LIST" -o "$OUT" "${FMT[@]}" --jobs 2 -q)
T_RUN=$(($(date +%s) - T_START))
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ----------------------------------------------------------------------------------
med() { median <<<"${TIMES[$1]}"; }
medcpu() { median <<<"${CPUS[$1]}"; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", n / t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { print (x >= t) ? "met" : "NOT met" }'; }
per_round() { # A B -> A's time ÷ B's time, round by round
    paste <(tr ' ' '\n' <<<"${TIMES[$1]% }") <(tr ' ' '\n' <<<"${TIMES[$2]% }") |
        awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), $1 / $2 }'
}
rounds() { printf '%s' "${TIMES[$1]% }" | tr ' ' '\n' | awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), $1 }'; }

J1=$(med j1) J2=$(med j2) PAP=$(med pap) PSOX=$(med psox) PTRUE=$(med ptrue) LONGT=$(med long)
R_J2=$(ratio "$J1" "$J2")
R_PAP=$(ratio "$PAP" "$J2")
R_PSOX=$(ratio "$PSOX" "$J2")
HOURS_PER_S=$(awk -v a="$LONG_AUDIO_S" -v t="$LONGT" 'BEGIN { printf "%.2f", a / 3600 / t }')
RTF=$(awk -v a="$LONG_AUDIO_S" -v t="$LONGT" 'BEGIN { printf "%.0f", a / t }')
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
FS=$FS_TYPE; [[ $NO_JOURNAL == 1 ]] && FS="$FS without a journal"
LONG_HOURS=$(awk -v a="$LONG_AUDIO_S" 'BEGIN { printf "%.2g", a / 3600 }')

cat <<EOF
## Batch conversion (\`scripts/bench-batch.sh\`)

Machine: $(nproc) cores (nproc), ${CPU:-unknown CPU}; $(uname -sr); $(date -u '+%Y-%m-%d %H:%M UTC'). \
$("$AP" --version 2>/dev/null || echo "audiopipe ?") (\`$AUDIOPIPE\`), $(sox --version 2>&1 | sed 's/^sox: *//'), \
GNU parallel $(parallel --version | head -1 | awk '{ print $3 }'). Load average before / after the timed runs: $LOAD_START / $LOAD_END.

${BATCH_FILES} one-second 48 kHz stereo PCM16 WAV files → 16 kHz mono PCM16 WAV (\`-r 16000 -c 1\`; \
audiopipe's default resampler native-high, no dither; sox's default rate effect, \`-h\` high quality, with its automatic TPDF dither). \
Wall clock, median of ${ROUNDS} round(s), the order of the methods alternated between rounds \
(ratios: of the medians, and round by round); page cache warm \
(one untimed pass first); each output directory absent before its run and nothing dirty in the page cache \
(\`sync\`); outputs on ${FS} (\`$OUT_ON\`). CPU s: user + system of the processes run, \
GNU parallel's own included. The timed rounds took ${T_RUN} s.

| method | files | median s | files/s | ratio | rounds (s) | CPU s (median) |
|---|---:|---:|---:|---|---|---:|
| \`audiopipe convert DIR --recursive -o OUT -r 16000 -c 1 --jobs 1\` | ${BATCH_FILES} | ${J1} | $(rate "$BATCH_FILES" "$J1") | 1.00× (baseline of --jobs 2) | $(rounds j1) | $(medcpu j1) |
| \`audiopipe convert DIR --recursive -o OUT -r 16000 -c 1 --jobs 2\` | ${BATCH_FILES} | ${J2} | $(rate "$BATCH_FILES" "$J2") | ${R_J2}× --jobs 1 (per round: $(per_round j1 j2); target ≥ 1.8×: $(verdict "$R_J2" 1.8)) | $(rounds j2) | $(medcpu j2) |
| \`parallel -j${PEER_JOBS} audiopipe convert {} OUT/{/} -r 16000 -c 1 -q\` | ${BATCH_FILES} | ${PAP} | $(rate "$BATCH_FILES" "$PAP") | batch --jobs 2 is ${R_PAP}× faster (per round: $(per_round pap j2); target ≥ 10×: $(verdict "$R_PAP" 10)) | $(rounds pap) | $(medcpu pap) |
| \`parallel -j${PEER_JOBS} sox {} -r 16000 -c 1 -b 16 OUT/{/}\` | ${BATCH_FILES} | ${PSOX} | $(rate "$BATCH_FILES" "$PSOX") | batch --jobs 2 is ${R_PSOX}× faster (per round: $(per_round psox j2); target ≥ 10×: $(verdict "$R_PSOX" 10)) | $(rounds psox) | $(medcpu psox) |
| \`parallel -j${PEER_JOBS} true {} OUT/{/}\` (launch cost only, for reference) | ${BATCH_FILES} | ${PTRUE} | $(rate "$BATCH_FILES" "$PTRUE") | — | $(rounds ptrue) | $(medcpu ptrue) |
| \`audiopipe convert --input-list LIST -o OUT -r 16000 -c 1 --jobs 2\`, ${LONG_FILES} × ${LONG_SECONDS} s = ${LONG_HOURS} h | ${LONG_FILES} | ${LONGT} | $(awk -v n="$LONG_FILES" -v t="$LONGT" 'BEGIN { printf "%.1f", n / t }') | **${HOURS_PER_S} audio hours per wall-clock second** (${RTF}× real time) | $(rounds long) | $(medcpu long) |

Peak RSS (\`/usr/bin/time -f %M\`) of \`audiopipe convert … --jobs 2\` (target ≤ 100 MB, independent of the number of files):

- ${RSS_FILES} × 1 s files: $(mb "$RSS_SMALL") MiB
- ${BATCH_FILES} × 1 s files: $(mb "$RSS_BIG") MiB
- ${LONG_FILES} × ${LONG_SECONDS} s files (--input-list): $(mb "$RSS_LONG") MiB

Correctness: ${CHECK_SHORT}; ${CHECK_LONG}.
EOF
