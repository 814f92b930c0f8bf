#!/usr/bin/env bash
# Regenerates samples/vad/: three short labelled recordings for `audiopipe vad tune` (the guide
# docs/guide/tune-vad.md tunes on them), each 6 s of 16 kHz mono PCM16 with an Audacity label file
# NAME.txt beside it, and manifest.csv (name, condition) for the report's per-condition table:
#   pink-noise.wav     two requests in pink noise, 5 dB SNR (speech active level against noise RMS)
#   keyboard.wav       two requests with keyboard-like clicks all through (clicks are not speech)
#   bargein.wav        the agent's echo (50 ms late, a small loudspeaker's band-pass, 10 dB down)
#                      and the user talking over it from 2.7 s; bargein.ref.wav is what the client
#                      played (the far-end reference, same timeline); only the user is labelled.
# Labels come from the clean speech before anything is mixed in, as the VAD kit's labels do: per
# utterance, 10 ms frames within 40 dB of its loudest frame, gaps under 150 ms bridged, runs under
# 30 ms dropped, 20 ms added at the end of each run.
# Needs espeak-ng, sox and python3 with numpy. Deterministic apart from the versions of
# espeak-ng and sox (the noise and the clicks come from fixed seeds).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p vad

speak() {  # speak VOICE SPEED TEXT OUT: 16 kHz mono PCM16
  espeak-ng -v "$1" -s "$2" -w "$tmp/raw.wav" "$3"
  sox "$tmp/raw.wav" -r 16000 -c 1 -b 16 -e signed-integer "$4" rate -v gain -3
}

speak en-gb 165 "Can you move my appointment to Friday?" "$tmp/u1.wav"
speak en-gb 165 "Actually, make it Monday morning." "$tmp/u2.wav"
speak en-us 170 "Please read me the last message again." "$tmp/u3.wav"
speak en-us 170 "And then delete it." "$tmp/u4.wav"
speak en-gb 175 "Stop, that is the wrong account." "$tmp/u5.wav"
speak en-us+f3 165 "Your balance is two hundred and twelve dollars, and your next payment of forty dollars is due on the third of March." "$tmp/agent.wav"
# The echo: 50 ms late, through a small loudspeaker (band-pass 300 Hz to 5 kHz), 10 dB down.
sox "$tmp/agent.wav" "$tmp/agent-at.wav" pad 0.2 trim 0 6
sox "$tmp/agent-at.wav" "$tmp/echo.wav" pad 0.05 trim 0 6 sinc 300-5000 vol -10 dB

TMP=$tmp python3 - <<'PY'
import os, wave
import numpy as np

tmp = os.environ["TMP"]
RATE, LENGTH = 16000, 6 * 16000


def read(name):
    with wave.open(os.path.join(tmp, name)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768


def fit(x):  # exactly LENGTH samples
    return np.concatenate([x, np.zeros(max(0, LENGTH - len(x)))])[:LENGTH]


def write(path, x):
    pcm = np.clip(np.round(x * 32768), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def frames_db(x):  # 10 ms frame energies, dB
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    return 10 * np.log10(e + 1e-20)


def labels(x, at):
    """Speech runs of one clean utterance placed at `at` seconds, in seconds."""
    db = frames_db(x)
    on = db >= db.max() - 40
    runs, start = [], None
    for i, v in enumerate(list(on) + [False]):
        if v and start is None:
            start = i
        if not v and start is not None:
            runs.append([start, i])
            start = None
    bridged = []
    for r in runs:  # gaps under 150 ms bridged
        if bridged and r[0] - bridged[-1][1] < 15:
            bridged[-1][1] = r[1]
        else:
            bridged.append(r)
    kept = [r for r in bridged if r[1] - r[0] >= 3]  # runs under 30 ms dropped
    return [(at + a * 0.01, at + b * 0.01 + 0.02) for a, b in kept]


def place(parts):
    """The clean user track and its labels: (file, start seconds) each."""
    track, segs = np.zeros(LENGTH), []
    for name, at in parts:
        x = read(name)
        i = int(round(at * RATE))
        track[i : i + len(x)] += x[: LENGTH - i]
        segs += labels(x[: LENGTH - i], at)
    return track, segs


def active_level(x):  # power mean of the frames within 40 dB of the loudest
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    return e[e >= e.max() * 1e-4].mean()


def pink(n, rng):  # 1/f power spectrum, unit RMS
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec))
    f[0] = 1
    y = np.fft.irfft(spec / np.sqrt(f), n)
    return y / np.sqrt((y**2).mean())


def clicks(n, level, rng):  # keyboard-like: decaying noise bursts, 8-25 ms, 0.12-0.6 s apart
    y = np.zeros(n)
    t = int(0.15 * RATE)
    while t < n:
        m = int(rng.uniform(0.008, 0.025) * RATE)
        burst = rng.standard_normal(m) * np.exp(-np.arange(m) / (rng.uniform(0.002, 0.008) * RATE))
        burst = np.diff(burst, prepend=0.0)  # tilt it up: a click is bright
        burst *= level * 10 ** (rng.uniform(-6, 6) / 20) / np.abs(burst).max()
        end = min(n, t + m)
        y[t:end] += burst[: end - t]
        t += int(rng.uniform(0.12, 0.6) * RATE)
    return y


def save(name, mic, segs):
    write(f"vad/{name}.wav", mic)
    with open(f"vad/{name}.txt", "w") as f:
        for a, b in segs:
            f.write(f"{a:.6f}\t{b:.6f}\tspeech\n")


floor = 10 ** (-70 / 20) * pink(LENGTH, np.random.default_rng(1))  # a quiet room, -70 dBFS

user, segs = place([("u1.wav", 0.6), ("u2.wav", 3.6)])
noise = pink(LENGTH, np.random.default_rng(2)) * np.sqrt(active_level(user) / 10 ** (5 / 10))
save("pink-noise", user + noise, segs)

user, segs = place([("u3.wav", 0.5), ("u4.wav", 3.9)])
save("keyboard", user + floor + clicks(LENGTH, 3 * np.sqrt(active_level(user)), np.random.default_rng(3)), segs)

user, segs = place([("u5.wav", 2.7)])
write("vad/bargein.ref.wav", fit(read("agent-at.wav")))
save("bargein", user + fit(read("echo.wav")) + floor, segs)

with open("vad/manifest.csv", "w") as f:
    f.write("name,condition\npink-noise,pink 5 dB\nkeyboard,clicks\nbargein,echo with reference\n")
PY
ls -l vad
