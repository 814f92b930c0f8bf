#!/usr/bin/env bash
# Regenerates the bundled samples from text, with espeak-ng (speech) and sox (rates, channels,
# noise, encodings). Deterministic apart from the versions of those two tools. Needs the Debian
# packages espeak-ng and sox. Run from anywhere: writes beside this script.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

speak() {  # speak VOICE SPEED TEXT OUT
  espeak-ng -v "$1" -s "$2" -w "$4" "$3"
}

# 1. A phone capture: 48 kHz float32 stereo, the user speaking with a little room noise and a
#    slightly different level per microphone (as a phone's two mics would give).
speak en-us 165 "Hi, can you book a table for two at seven tonight?" "$tmp/user.wav"
sox "$tmp/user.wav" -r 48000 "$tmp/user48.wav" rate -v gain -3
len=$(soxi -D "$tmp/user48.wav")
sox -n -r 48000 -c 1 "$tmp/noise.wav" synth "$len" pinknoise vol 0.004
sox -m "$tmp/user48.wav" "$tmp/noise.wav" "$tmp/left.wav"
sox "$tmp/left.wav" "$tmp/right.wav" gain -2 delay 0.0004
sox -M "$tmp/left.wav" "$tmp/right.wav" -e floating-point -b 32 phone-capture-48k-f32-stereo.wav trim 0 "$len"

# 2. What a voice API wants from the mic: 16 kHz mono 16-bit PCM.
speak en-gb 160 "Please cancel my order from yesterday." "$tmp/cancel.wav"
sox "$tmp/cancel.wav" -r 16000 -c 1 -b 16 -e signed-integer mic-16k-pcm16-mono.wav rate -v gain -1

# 3. An agent's reply as a voice API sends it back: 24 kHz mono 16-bit PCM.
speak en-us+f3 170 "Sure. I booked a table for two at seven. Anything else?" "$tmp/agent.wav"
sox "$tmp/agent.wav" -r 24000 -c 1 -b 16 -e signed-integer agent-reply-24k-pcm16.wav rate -v gain -1

# 4. A 44.1 kHz stereo FLAC, the other common starting point.
sox -M "$tmp/agent.wav" "$tmp/cancel.wav" -r 44100 -b 16 music-style-44k1-stereo.flac rate -v gain -2 trim 0 2.5

ls -l *.wav *.flac
