#!/usr/bin/env python3
"""Synthetic transient items for VAD development (issue 18: "short transients — clicks, keyboard,
dishes — false alarm 54–78 %" on the held-out set, whose dev split has only dishes).

Takes the dev items of ../shared/eval/vad whose noise is clean, level, white, brown or hum50 (no
reference), and adds keyboard-like clicks all through them: band-passed noise bursts of 8–25 ms
that decay in 2–8 ms, peaking −6…+6 dB around three times the item's speech RMS, 0.12–0.6 s
apart. The labels are the dev item's, unchanged (a click is not speech). Deterministic (seed 7).
A guess at what the held-out transients are like, not a measurement of them: use it to see a
method's effect on transients, never to tune defaults on it alone.

    python3 scripts/make-click-items.py ../shared/eval/vad/dev /tmp/clicks
    audiopipe vad tune --audio /tmp/clicks --set min_speech_ms=10,20,30 --report /tmp/clicks-report

With --clinks instead: dish or glass clinks, 2–4 decaying partials at 1.5–6 kHz (time constants
20–120 ms: they ring for 50–400 ms), 0.3–1.5 s apart, at the same levels (seed 11; names clink_*).

    python3 scripts/make-click-items.py --clinks ../shared/eval/vad/dev /tmp/clinks

With --knocks: knocks on a desk, band-passed noise bursts of 20–60 ms (500 Hz–7 kHz) decaying
over 8–20 ms; with --thumps: thumps, 15–40 ms at 80–1200 Hz decaying over 3–15 ms (seeds 13 and
17; names knock_*, thump_*). Both hold their level two or three frames, as a word's start does.

`--seed N` (first) draws other clicks, clinks, knocks or thumps: a check set the defaults never saw.

Needs numpy and scipy.
"""
import csv
import os
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, sosfilt

NOISES = ("clean", "level", "white", "brown", "hum50")


# Each transient's shape: (duration s, decay time constant s, lowest band edge Hz) ranges; the band
# spans two octaves from its lowest edge, to at most 7 kHz.
SHAPES = {
    "click": ((0.008, 0.025), (0.002, 0.008), (500, 2000)),
    "knock": ((0.02, 0.06), (0.008, 0.02), (500, 2000)),
    "thump": ((0.015, 0.04), (0.003, 0.015), (80, 300)),
}


def clicks(x, sr, speech_rms, rng, kind="click"):
    duration, decay, lowest = SHAPES[kind]
    y = x.copy()
    t = int(rng.uniform(0.05, 0.3) * sr)
    while t < len(y):
        n = int(rng.uniform(*duration) * sr)
        tau = rng.uniform(*decay) * sr
        burst = rng.standard_normal(n) * np.exp(-np.arange(n) / tau)
        lo = rng.uniform(*lowest)
        burst = sosfilt(butter(2, [lo, min(7000, lo * 4)], btype="band", fs=sr, output="sos"), burst)
        burst *= speech_rms * 3 * 10 ** (rng.uniform(-6, 6) / 20) / (np.max(np.abs(burst)) + 1e-12)
        end = min(len(y), t + n)
        y[t:end] += burst[: end - t]
        t += int(rng.uniform(0.12, 0.6) * sr)
    return np.clip(y, -1, 1)


def replace(path, write):
    """Writes a temporary file and renames it over `path`: a symlink left at `path` (say, to the dev
    kit's own labels) is replaced, never written through."""
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def clinks(x, sr, speech_rms, rng):
    y = x.copy()
    t = int(rng.uniform(0.1, 0.5) * sr)
    while t < len(y):
        tau = rng.uniform(0.02, 0.12)
        n = int(5 * tau * sr)
        k = np.arange(n) / sr
        burst = sum(
            rng.uniform(0.3, 1) * np.sin(2 * np.pi * rng.uniform(1500, 6000) * k + rng.uniform(0, 6.3))
            for _ in range(rng.integers(2, 5))
        ) * np.exp(-k / tau)
        burst *= speech_rms * 3 * 10 ** (rng.uniform(-6, 6) / 20) / (np.max(np.abs(burst)) + 1e-12)
        end = min(len(y), t + n)
        y[t:end] += burst[: end - t]
        t += int(rng.uniform(0.3, 1.5) * sr)
    return np.clip(y, -1, 1)


SEEDS = {"click": 7, "clink": 11, "knock": 13, "thump": 17}
KINDS = {"--clinks": "clink", "--knocks": "knock", "--thumps": "thump"}


def main(dev, out, kind="click", seed=None):
    if os.path.realpath(dev) == os.path.realpath(out):
        sys.exit("make-click-items.py: OUT_DIR must not be DEV_DIR (it would overwrite the kit)")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(seed if seed is not None else SEEDS[kind])

    def add(x, sr, speech_rms, rng):
        if kind == "clink":
            return clinks(x, sr, speech_rms, rng)
        return clicks(x, sr, speech_rms, rng, kind)

    made = 0
    with open(os.path.join(dev, "manifest.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["noise"] not in NOISES or r["ref"]:
                continue
            sr, x = wavfile.read(os.path.join(dev, r["name"] + ".wav"))
            y = add(x.astype(np.float64) / 32768, sr, 10 ** (float(r["speech_level_dbfs"]) / 20), rng)
            name = kind + "_" + r["name"]
            with open(os.path.join(dev, r["name"] + ".txt")) as src:
                labels = src.read()
            replace(os.path.join(out, name + ".wav"), lambda p: wavfile.write(p, sr, (y * 32767).astype(np.int16)))
            replace(os.path.join(out, name + ".txt"), lambda p: open(p, "w").write(labels))
            made += 1
    print(f"{made} items in {out}")


if __name__ == "__main__":
    args = sys.argv[1:]
    seed = None
    if args[:1] == ["--seed"] and len(args) > 1 and args[1].isdigit():
        seed = int(args[1])
        args = args[2:]
    kind = KINDS.get(args[0], "click") if args else "click"
    args = args[1:] if kind != "click" else args
    if len(args) != 2:
        sys.exit("usage: make-click-items.py [--seed N] [--clinks | --knocks | --thumps] DEV_DIR OUT_DIR")
    main(args[0], args[1], kind, seed)
