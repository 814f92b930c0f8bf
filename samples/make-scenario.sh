#!/usr/bin/env bash
# Regenerates samples/scenario/: a short two-party barge-in conversation for `audiopipe session
# simulate` (make demo runs it). The agent (espeak-ng en-us+f3, 24 kHz as voice APIs send it) gives
# three responses separated by pauses; the user (en-gb, 16 kHz, a clean close-talk track) talks
# over the first and the third and answers in the agent's pause after the second:
#   agent  0.5-11.2 s response 1     13.0-17.8 s response 2     21.0-26.4 s response 3
#   user   3.0 s "wait, ..."          18.2 s (in the agent's pause)  23.0 s "no thanks, ..."
# Needs espeak-ng and sox. Deterministic apart from their versions.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=scenario

speak() {  # speak VOICE SPEED TEXT OUT RATE
  espeak-ng -v "$1" -s "$2" -w "$tmp/raw.wav" "$3"
  sox "$tmp/raw.wav" -r "$5" -c 1 -b 16 -e signed-integer "$4" rate -v gain -3
}

# place RATE LENGTH OUT (AT FILE)...: the files mixed at their start times into LENGTH seconds.
place() {
  local rate=$1 length=$2 dest=$3
  shift 3
  sox -n -r "$rate" -c 1 -b 16 "$tmp/base.wav" trim 0 "$length"
  local inputs=("$tmp/base.wav")
  while [ $# -gt 0 ]; do
    sox "$2" "$tmp/at$1.wav" pad "$1" 0
    inputs+=("$tmp/at$1.wav")
    shift 2
  done
  sox -m "${inputs[@]}" -b 16 "$dest" trim 0 "$length"
}

speak en-us+f3 165 "Sure, I can help with that. Your flight leaves at nine fifteen from gate twelve, and boarding starts thirty minutes before departure. Would you like me to add a checked bag?" "$tmp/a1.wav" 24000
speak en-us+f3 165 "Of course. I moved you to an aisle seat in row eight, near the front of the plane." "$tmp/a2.wav" 24000
speak en-us+f3 165 "Great. Is there anything else I can do for you today, like a hotel or a rental car?" "$tmp/a3.wav" 24000
speak en-gb 170 "Wait, can I change my seat first?" "$tmp/u1.wav" 16000
speak en-gb 170 "Thanks, that is better." "$tmp/u2.wav" 16000
speak en-gb 170 "No thanks, that is all." "$tmp/u3.wav" 16000

place 24000 28 "$out/agent-24k.wav" 0.5 "$tmp/a1.wav" 13.0 "$tmp/a2.wav" 21.0 "$tmp/a3.wav"
place 16000 28 "$out/user-16k.wav" 3.0 "$tmp/u1.wav" 18.2 "$tmp/u2.wav" 23.0 "$tmp/u3.wav"
soxi -D "$tmp/a1.wav" "$tmp/a2.wav" "$tmp/a3.wav" "$tmp/u1.wav" "$tmp/u2.wav" "$tmp/u3.wav"
ls -l "$out"
