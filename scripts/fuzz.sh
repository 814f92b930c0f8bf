#!/usr/bin/env bash
# `make fuzz` (FUZZ_SECONDS per target, default 300) and `make fuzz-smoke` (20 s each, CI): builds
# Fuzz/ with -sanitize=fuzzer,address (every Swift target, the library included), replays the saved
# regression inputs (Fuzz/Regressions/TARGET/*), then fuzzes each target from its seeds
# (Fuzz/Seeds/TARGET) in a scratch corpus. A crash fails the run; its input is kept in
# Fuzz/Crashes/TARGET/ — add it to Fuzz/Regressions/TARGET/ with the fix.
# Usage: fuzz.sh SECONDS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
seconds=${1:-300}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzJSON FuzzScanner FuzzBase64 FuzzCapture FuzzTrace FuzzLabels FuzzTemplate)
flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)
swift build "${flags[@]}" 2>&1 | grep -E "error|Compiling|Build" | tail -3
bin=$(swift build "${flags[@]}" --show-bin-path)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/audiopipe-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch  # the targets' own temporary files go with the scratch corpus
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
failed=0
for t in "${targets[@]}"; do
  mkdir -p "Crashes/$t" "$scratch/$t"
  cp Seeds/"$t"/* "$scratch/$t/" 2>/dev/null || true
  if compgen -G "Regressions/$t/*" > /dev/null; then
    if ! "$bin/$t" Regressions/"$t"/* > "$scratch/$t.regressions.log" 2>&1; then
      echo "fuzz: $t fails a saved regression input:"; tail -20 "$scratch/$t.regressions.log"; failed=1; continue
    fi
  fi
  if "$bin/$t" "$scratch/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="Crashes/$t/" -print_final_stats=1 > "$scratch/$t.log" 2>&1; then
    runs=$(grep -E "stat::number_of_executed_units" "$scratch/$t.log" | awk '{print $2}')
    echo "fuzz: $t clean for ${seconds} s (${runs:-?} inputs)"
  else
    echo "fuzz: $t FOUND A CRASH (input kept in Fuzz/Crashes/$t/):"; grep -E "ERROR|Fatal|fuzz check|SUMMARY|artifact" "$scratch/$t.log" | head -10
    failed=1
  fi
done
exit $failed
