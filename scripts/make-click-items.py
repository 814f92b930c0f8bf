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

Needs numpy and scipy.
"""
import csv
import os
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, sosfilt

NOISES = ("clean", "level", "white", "brown", "hum50")


def clicks(x, sr, speech_rms, rng):
    y = x.copy()
    t = int(rng.uniform(0.05, 0.3) * sr)
    while t < len(y):
        n = int(rng.uniform(0.008, 0.025) * sr)
        tau = rng.uniform(0.002, 0.008) * sr
        burst = rng.standard_normal(n) * np.exp(-np.arange(n) / tau)
        lo = rng.uniform(500, 2000)
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


def main(dev, out):
    if os.path.realpath(dev) == os.path.realpath(out):
        sys.exit("make-click-items.py: OUT_DIR must not be DEV_DIR (it would overwrite the kit)")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    made = 0
    with open(os.path.join(dev, "manifest.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["noise"] not in NOISES or r["ref"]:
                continue
            sr, x = wavfile.read(os.path.join(dev, r["name"] + ".wav"))
            y = clicks(x.astype(np.float64) / 32768, sr, 10 ** (float(r["speech_level_dbfs"]) / 20), rng)
            name = "click_" + r["name"]
            with open(os.path.join(dev, r["name"] + ".txt")) as src:
                labels = src.read()
            replace(os.path.join(out, name + ".wav"), lambda p: wavfile.write(p, sr, (y * 32767).astype(np.int16)))
            replace(os.path.join(out, name + ".txt"), lambda p: open(p, "w").write(labels))
            made += 1
    print(f"{made} items in {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make-click-items.py DEV_DIR OUT_DIR")
    main(sys.argv[1], sys.argv[2])
