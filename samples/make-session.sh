#!/usr/bin/env bash
# Derived samples for the jitter buffer and the echo-aware VAD, built from the bundled ones with
# sox and python3 (deterministic; run from the repository root or here):
#   agent-session.jsonl   what a client received: the agent reply as OpenAI Realtime messages
#                         (20 ms chunks) with network jitter, a 250 ms stall, then the reply again
#                         as a TTS burst interrupted by the user (speech_started); HAR-style JSON
#                         Lines with arrival times, as `deframe`/`jitter play` read them.
#   bargein-mic-16k.wav   a microphone during barge-in: the agent's echo (60 ms late, through a
#                         small loudspeaker's band-pass, 6 dB down) and the user talking over it.
#   bargein-mic-16k.ref.wav  what the client was playing (the far-end reference), same timeline.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

python3 - <<'PY'
import base64, json, random, wave
random.seed(7)
w = wave.open("agent-reply-24k-pcm16.wav"); pcm = w.readframes(w.getnframes()); w.close()
chunk = 960  # 20 ms of 24 kHz PCM16
chunks = [pcm[i:i + chunk] for i in range(0, len(pcm), chunk)]
lines, t = [], 1700000000.0
def receive(at, msg):
    lines.append(json.dumps({"type": "receive", "time": round(at, 4), "opcode": 1, "data": json.dumps(msg, separators=(",", ":"))}, separators=(",", ":")))
# Response 1: real-time paced with jitter (sd 15 ms) and one 250 ms stall in the middle.
for k, c in enumerate(chunks):
    at = t + 0.3 + k * 0.02 + abs(random.gauss(0, 0.015)) + (0.25 if 80 <= k < 93 else 0) - (0.02 * (k - 80) if 80 <= k < 93 else 0)
    receive(at, {"type": "response.output_audio.delta", "response_id": "resp_1", "item_id": "item_1", "delta": base64.b64encode(c).decode()})
receive(t + 0.3 + len(chunks) * 0.02 + 0.1, {"type": "response.done", "response": {"id": "resp_1"}})
# Response 2: the whole reply in a 300 ms burst; the user barges in 1.5 s after it starts playing.
t2 = t + 6.0
for k, c in enumerate(chunks):
    receive(t2 + k * 0.3 / len(chunks), {"type": "response.output_audio.delta", "response_id": "resp_2", "item_id": "item_2", "delta": base64.b64encode(c).decode()})
receive(t2 + 1.6, {"type": "input_audio_buffer.speech_started", "audio_start_ms": 7500, "item_id": "item_3"})
lines.sort(key=lambda l: json.loads(l)["time"])
open("agent-session.jsonl", "w").write("\n".join(lines) + "\n")
PY

# Barge-in: 6 s; the agent talks from 0.2 s, the user from 2.5 s.
sox agent-reply-24k-pcm16.wav -r 16000 "$tmp/agent.wav" pad 0.2 1.75 trim 0 6
sox mic-16k-pcm16-mono.wav "$tmp/user.wav" pad 2.5 1.05 trim 0 6
sox "$tmp/agent.wav" "$tmp/echo.wav" pad 0.06 trim 0 6 sinc 450-5000 vol 0.5
sox -m "$tmp/echo.wav" "$tmp/user.wav" bargein-mic-16k.wav
cp "$tmp/agent.wav" bargein-mic-16k.ref.wav
echo "wrote agent-session.jsonl, bargein-mic-16k.wav, bargein-mic-16k.ref.wav"
