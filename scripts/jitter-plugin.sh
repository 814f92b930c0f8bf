#!/usr/bin/env bash
# The jitter kit's plug-in interface: PROG {trace} {flush} {out} {tick}.
#   python3 score.py run --split dev --tick 10 --cmd 'scripts/jitter-plugin.sh {trace} {flush} {out} {tick}' ...
# Uses the release build (make release); AUDIOPIPE overrides the binary.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AUDIOPIPE:-$here/.build/release/audiopipe}"
[ $# -eq 4 ] || { echo "usage: $0 TRACE FLUSH OUT TICK_MS" >&2; exit 64; }
exec "$bin" jitter simulate "$1" --flush "$2" -o "$3" --tick-ms "$4"
