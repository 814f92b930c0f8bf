#!/usr/bin/env python3
"""Generates VAD items in which a noise switches on and stays: a fan, a hum, an exercise bike.

Usage: make-noise-step-items.py --seed S [--count N] [--kit ../shared/eval/vad] OUT

Per item (about 20 s at 16 kHz): a user's 3-5 utterances (espeak-ng, or with --kit the kit's real
read speech, trimmed as make-bargein-items.py trims it) with pauses of 1-3 s, over a pink floor at
-70..-60 dBFS; at a random time between 3 and 14 s — in a pause or under a word — a noise switches
on over 20-300 ms and stays to the end: white, pink or brown noise, a mains hum (50 or 60 Hz and
its harmonics over pink noise), a fan (brown noise low-passed, with its blade tone), or the kit's
exercise bike (`sources/speech_commands_noise`, looped). Its level lies `snr` dB under the user's
active level (20, 10 or 5 dB; the item name says it). OUT gets NAME.wav, NAME.txt (the kit's
labels of the user's speech) and manifest.csv (noise = step_KIND, snr, the step's time): the kit's
`score.py` scores it, by condition.

What it measures: how long a noise that switches on holds speech where nobody talks (false alarm
after the step, false triggers per minute), and whether the user's words after the step are still
found (recall). Not a barge-in item: there is no far-end reference.
"""

import argparse
import importlib.util
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, sosfilt

# The barge-in generator's speech, levels and labels (one definition of how the kit labels speech).
_spec = importlib.util.spec_from_file_location("bargein", pathlib.Path(__file__).with_name("make-bargein-items.py"))
bargein = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bargein)
SR = bargein.SR
KINDS = ["white", "pink", "brown", "hum", "fan", "bike"]
SNRS = [20, 10, 5]


def brown(n, rng):
    b = np.cumsum(rng.standard_normal(n))
    b = sosfilt(butter(2, 20, "highpass", fs=SR, output="sos"), b)
    return b / np.sqrt(np.mean(b ** 2))


def bike(kit, n):
    p = pathlib.Path(kit) / "sources" / "speech_commands_noise" / "exercise_bike_0-40s.flac"
    with tempfile.NamedTemporaryFile(suffix=".wav") as f:
        subprocess.run(["sox", str(p), "-r", str(SR), "-c", "1", "-b", "16", f.name], check=True)
        _, x = wavfile.read(f.name)
    x = x.astype(np.float64) / 32768
    return np.tile(x, n // len(x) + 1)[:n]


def noise(kind, n, rng, kit):
    t = np.arange(n) / SR
    if kind == "white":
        return rng.standard_normal(n)
    if kind == "pink":
        return bargein.pink(n, rng)
    if kind == "brown":
        return brown(n, rng)
    if kind == "hum":
        f0 = 50 if rng.random() < 0.5 else 60
        tone = sum(np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) / k for k in range(1, 6))
        return tone / np.sqrt(np.mean(tone ** 2)) + 0.3 * bargein.pink(n, rng)
    if kind == "fan":
        air = sosfilt(butter(2, rng.uniform(600, 1500), "lowpass", fs=SR, output="sos"), brown(n, rng))
        blade = np.sin(2 * np.pi * rng.uniform(80, 200) * t)
        return air / np.sqrt(np.mean(air ** 2)) + 0.4 * blade
    if kit is None:
        raise SystemExit("make-noise-step-items.py: the bike noise needs --kit (the kit's sources/)")
    return bike(kit, n)


def make_item(index, rng, real, kit, kinds):
    kind = kinds[index % len(kinds)]
    snr = SNRS[(index // len(kinds)) % len(SNRS)]
    use_real = bool(real) and rng.random() < 0.5
    voice = bargein.USER_VOICES[rng.integers(len(bargein.USER_VOICES))]
    parts, placed = [np.zeros(int(rng.uniform(1.0, 2.0) * SR))], []
    pos = len(parts[0])
    for _ in range(int(rng.integers(3, 6))):
        if use_real:
            _, x, floor = real[rng.integers(len(real))]
            x = x[: int(rng.uniform(0.8, 3.0) * SR)]
        else:
            x = bargein.speak(bargein.sentence(rng, int(rng.integers(3, 8))), voice, rng)[: int(3.0 * SR)]
            floor = -np.inf
        placed.append((pos, len(x), floor))
        parts.append(x)
        gap = np.zeros(int(rng.uniform(1.0, 3.0) * SR))
        parts.append(gap)
        pos += len(x) + len(gap)
    user = np.concatenate(parts)
    level = rng.uniform(-32, -22)
    gain_db = level - bargein.active_level(user)
    user = bargein.scale_to(user, level)
    n = len(user)
    step = rng.uniform(3.0, min(14.0, n / SR - 3.0))
    ramp = rng.uniform(0.02, 0.3)
    env = np.clip((np.arange(n) / SR - step) / ramp, 0, 1)
    x = noise(kind, n, rng, kit)
    x = x / np.sqrt(np.mean(x ** 2)) * 10 ** ((level - snr) / 20)
    floor = rng.uniform(-70, -60)
    mic = user + env * x + bargein.pink(n, rng) * 10 ** (floor / 20)
    peak = np.max(np.abs(mic))
    if peak > 0.99:
        mic, user = mic * 0.99 / peak, user * 0.99 / peak
        gain_db += 20 * np.log10(0.99 / peak)
    segs = bargein.labels(user, [(s, k) for s, k, _ in placed], [f + gain_db for _, _, f in placed])
    return {"mic": mic, "labels": segs, "kind": kind, "snr": snr, "step": step, "ramp": ramp, "level": level,
            "source": "real" if use_real else "tts", "floor": floor}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=18)
    ap.add_argument("--kit", help="the VAD kit (../shared/eval/vad): its real read speech and the bike noise")
    ap.add_argument("out")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    real = bargein.real_utterances(a.kit)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    kinds = KINDS if a.kit else KINDS[:-1]
    rows = []
    for i in range(a.count):
        item = make_item(i, rng, real, a.kit, kinds)
        name = f"{i + 1:03d}_s{a.seed}_step_{item['kind']}_{item['snr']}"
        wavfile.write(out / f"{name}.wav", SR, bargein.pcm16(item["mic"]))
        with open(out / f"{name}.txt", "w") as f:
            for s, e in item["labels"]:
                f.write(f"{s:.6f}\t{e:.6f}\tspeech\n")
        rows.append({"name": name, "source": item["source"], "noise": f"step_{item['kind']}", "snr": item["snr"],
                     "speech_level_dbfs": f"{item['level']:.1f}", "step_s": f"{item['step']:.2f}",
                     "ramp_ms": f"{item['ramp'] * 1000:.0f}", "floor_dbfs": f"{item['floor']:.1f}",
                     "duration_s": f"{len(item['mic']) / SR:.2f}", "seed": a.seed})
        print(name, f"step at {item['step']:.2f} s", file=sys.stderr)
    bargein.write_manifest(out, rows)


if __name__ == "__main__":
    main()
