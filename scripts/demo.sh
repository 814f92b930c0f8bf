#!/usr/bin/env bash
# The README's `make demo`: runs the main jobs on the bundled samples and says what it did.
# Usage: demo.sh PATH/TO/audiopipe OUTDIR
set -euo pipefail
bin=$1
out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "Inspect the bundled samples (like soxi + sox stats)" \
  "$bin" info samples/phone-capture-48k-f32-stereo.wav samples/music-style-44k1-stereo.flac

step "Phone capture (48 kHz float32 stereo) -> what a voice API wants (16 kHz mono PCM16)" \
  "$bin" convert samples/phone-capture-48k-f32-stereo.wav "$out/mic-16k.wav" --rate 16000 --channels 1

rm -rf "$out/samples-16k" "$out/samples-16k.jsonl"
step "A whole folder at once, on every core, with a results line per file (a corpus works the same way)" \
  "$bin" convert samples/ -o "$out/samples-16k" --rate 16000 --channels 1 --report "$out/samples-16k.jsonl"
step "Run again with --resume: what is already done (same input, same options, output there) is skipped" \
  "$bin" convert samples/ -o "$out/samples-16k" --rate 16000 --channels 1 --report "$out/samples-16k.jsonl" --resume

step "The same, byte for byte as the common iOS client code converts it (x32767, truncation)" \
  "$bin" convert samples/phone-capture-48k-f32-stereo.wav "$out/mic-16k-ios.wav" --rate 16000 --channels 1 --compat ios

step "44.1 kHz stereo FLAC -> 24 kHz mono raw PCM16 (OpenAI Realtime's input format)" \
  "$bin" convert samples/music-style-44k1-stereo.flac "$out/input-24k.raw" --rate 24000 --channels 1

step "Agent reply (24 kHz PCM16) -> 48 kHz float32 for a device" \
  "$bin" convert samples/agent-reply-24k-pcm16.wav "$out/agent-48k-f32.wav" --rate 48000 --encoding float32

step "The phone capture as the messages an OpenAI Realtime client sends (20 ms chunks)" \
  "$bin" frame samples/phone-capture-48k-f32-stereo.wav --profile openai-realtime --commit -o "$out/openai.jsonl"
head -c 160 "$out/openai.jsonl"; echo " …"

step "And back: the captured messages decoded into audio" \
  "$bin" deframe "$out/openai.jsonl" -o "$out/openai-client.wav" --direction client

step "A captured agent session (jitter, a stall, a TTS burst, a barge-in) as the user heard it through the jitter buffer" \
  "$bin" jitter play samples/agent-session.jsonl -o "$out/heard.wav"

step "Its arrival timeline in the jitter kit's trace format, replayed through the buffer into a playout log" \
  "$bin" deframe samples/agent-session.jsonl -o "$out/agent-received.wav" --trace "$out/arrivals.csv"
"$bin" jitter simulate "$out/arrivals.csv" -o "$out/playout.csv"
head -4 "$out/playout.csv"

step "Voice activity in the user's recording (Audacity labels, streaming decision timeline)" \
  "$bin" vad detect samples/mic-16k-pcm16-mono.wav

step "Barge-in: a microphone with the agent's echo. Without the far-end reference the echo counts as speech ..." \
  "$bin" vad detect samples/bargein-mic-16k.wav
step "... with it (--reference), the echo is ignored and the user over the agent (from 2.5 s) is found" \
  "$bin" vad detect samples/bargein-mic-16k.wav --reference samples/bargein-mic-16k.ref.wav

# Report directories are replaced whole only when they are reports (.audiopipe-report inside); this
# demo's own from a version before the marker are removed here, so a rerun after an update works.
for d in vad-report session session-sweep session-rooms; do
  if [ -d "$out/$d" ] && [ ! -e "$out/$d/.audiopipe-report" ]; then rm -rf "${out:?}/$d"; fi
done
step "Tune the VAD on labelled recordings (samples/vad: noise, clicks, a barge-in with its reference): the best setting within a voice agent's limits, checked on the files it was not chosen on, kept only if it beats the defaults (open $out/vad-report/index.html)" \
  "$bin" vad tune --audio samples/vad --report "$out/vad-report"

step "A whole barge-in conversation, simulated: the agent's three answers through the jitter buffer to the loudspeaker, its echo, the user talking over it — how fast the agent stops, how often for nothing (open $out/session/report.html)" \
  "$bin" session simulate --agent samples/scenario/agent-24k.wav --user samples/scenario/user-16k.wav -o "$out/session"
step "The trade-off as the echo gets louder: barge-in latency and talk-over against false barge-ins ($out/session-sweep/sweep.svg)" \
  "$bin" session simulate --agent samples/scenario/agent-24k.wav --user samples/scenario/user-16k.wav \
  --sweep echo_gain_db=-30,-20,-10,-5,0 -o "$out/session-sweep"
step "The same conversation in 20 random rooms (echo delay 0-300 ms, gain, loudspeaker, reverberation, noise, jitter): the worst rooms first ($out/session-rooms/rooms.svg)" \
  "$bin" session simulate --agent samples/scenario/agent-24k.wav --user samples/scenario/user-16k.wav \
  --rooms 20 --room-seed 1 -o "$out/session-rooms"

step "Check the converted capture" "$bin" info --json "$out/mic-16k.wav"

step "Measure the native resampler beside libsamplerate's best (SNR, leakage, ripple, latency, speed)" \
  "$bin" analyze resampler --from 48000 --to 16000 --resampler native-high
"$bin" analyze resampler --from 48000 --to 16000 --resampler src-best

step "The hot path on this machine with a client's settings: mic and speaker paths per chunk, their stages, the common client code beside them (plot: $out/bench-latency.svg)" \
  "$bin" bench --duration 4 --with-reference --plot "$out/bench-latency.svg" --budget 'mic.p99<1ms,speaker.p99<1ms'

printf '\nDemo outputs are in %s/.\n' "$out"
