#!/usr/bin/env python3
"""How well frame features separate labelled speech from the rest: the mean per-item AUC of each
feature against the labels, over a directory of NAME.wav + NAME.txt (Audacity labels, the VAD
kit's layout). Skipped: items whose labels are all speech or none, and items with a far-end
reference NAME.ref.wav (the detector scores those against the echo model, not the floor).
`--only COLUMN=VALUE` keeps the items whose manifest.csv row has that value (`--only tier=core`).

The question it answers (issue 18): would a richer front end than the detector's four one-pole
bands tell speech from noise better? Features, each per 10 ms frame, causal:

- bands: the detector's band score, approximated — the four one-pole bands of VADBandAnalyzer
  (80 Hz high-pass, splits at 300, 1000, 3000 Hz), excess of each over its 20th percentile of the
  last 5 s, mean of the two largest; and the same score's maximum over the last 6 frames;
- fft: a 512-point FFT (32 ms Hann window ending with the frame), per-bin SNR over a per-bin 20th
  percentile floor, 100–4000 Hz: the mean SNR, and the long-term spectral divergence over 6
  frames (Ramírez et al. 2004: per bin the maximum of the last 6 frames, over the floor);
- voicing: normalised autocorrelation peak at 62–400 Hz lags of the 80–1000 Hz band (32 ms), its
  maximum over the last 10 frames, and that added to the smoothed band score (weights 5, 10, 20).

An offline study, not the detector: the percentiles are updated every 5 frames for speed.

    python3 scripts/vad-frame-auc.py ../shared/eval/vad/dev
    python3 scripts/vad-frame-auc.py --only tier=core ../shared/eval/vad/real

Needs numpy and scipy.
"""
import csv
import glob
import os
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, lfilter, sosfilt

HOP_S = 0.01


def labels(path):
    out = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2:
                out.append((float(fields[0]), float(fields[1])))
    return out


def auc(pos, neg):
    values = np.concatenate([pos, neg])
    ranks = values.argsort(kind="stable").argsort() + 1
    return (ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def running_percentile(x, window, q, step=5):
    """Causal percentile over the last `window` rows of x (frames × dims), every `step` frames."""
    out = np.empty_like(x)
    for k in range(0, x.shape[0], step):
        out[k : k + step] = np.percentile(x[max(0, k - window) : k + 1], q, axis=0)
    return out


def running_max(v, frames):
    """Maximum of the last `frames` values (the first value repeats before the start)."""
    shifted = [np.concatenate([np.full(k, v[0]), v[: len(v) - k]]) for k in range(frames)]
    return np.maximum.reduce(shifted)


def band_levels(x, rate):
    """The four one-pole bands' levels per 10 ms frame, dB (frames × 4)."""
    r = np.exp(-2 * np.pi * 80 / rate)
    h = lfilter([r, -r], [1, -r], x)

    def low_pass(v, hz):
        a = 1 - np.exp(-2 * np.pi * hz / rate)
        return lfilter([a], [1, -(1 - a)], v)

    s0 = low_pass(h, 300)
    r1 = h - s0
    s1 = low_pass(r1, 1000)
    r2 = r1 - s1
    s2 = low_pass(r2, 3000)
    hop = int(rate * HOP_S)
    n = len(x) // hop
    return np.array(
        [10 * np.log10(np.mean(y[: n * hop].reshape(n, hop) ** 2, axis=1) + 1e-14) for y in (s0, s1, s2, r2 - s2)]
    ).T


def band_score(x, rate, floor_frames):
    bands = band_levels(x, rate)
    excess = bands - running_percentile(bands, floor_frames, 20)
    excess.sort(axis=1)
    return (excess[:, -1] + excess[:, -2]) / 2


def windows(x, rate, size):
    hop = int(rate * HOP_S)
    n = len(x) // hop
    padded = np.concatenate([np.zeros(size - hop), x])
    return np.lib.stride_tricks.sliding_window_view(padded, size)[::hop][:n]


def fft_features(x, rate, floor_frames, size=512):
    power = np.abs(np.fft.rfft(windows(x, rate, size) * np.hanning(size), axis=1)) ** 2 + 1e-12
    freqs = np.fft.rfftfreq(size, 1 / rate)
    level = 10 * np.log10(power[:, (freqs >= 100) & (freqs <= 4000)])
    floor = running_percentile(level, floor_frames, 20)
    recent = np.maximum.reduce([np.concatenate([level[:1].repeat(k, 0), level[: len(level) - k]]) for k in range(6)])
    return {
        "fft mean SNR": np.maximum(level - floor, 0).mean(axis=1),
        "fft LTSD 6": 10 * np.log10(np.mean(10 ** ((recent - floor) / 10), axis=1)),
    }


def voicing(x, rate, size=512):
    y = sosfilt(butter(4, [80, 1000], btype="band", fs=rate, output="sos"), x)
    frames = windows(y, rate, size)
    spectrum = np.fft.rfft(frames, 2 * size, axis=1)
    ac = np.fft.irfft(np.abs(spectrum) ** 2, axis=1)[:, :size] / (size - np.arange(size))
    lo, hi = int(rate / 400), int(rate / 62)
    return np.max(ac[:, lo:hi], axis=1) / (ac[:, 0] + 1e-12)


def features(x, rate):
    floor_frames = int(5 / HOP_S)
    score = band_score(x, rate, floor_frames)
    n = len(score)
    smooth = running_max(score, 6)
    voiced = voicing(x, rate)[:n]
    voiced_recent = running_max(voiced, 10)
    out = {"bands": score, "bands max 6": smooth}
    out.update({k: v[:n] for k, v in fft_features(x, rate, floor_frames).items()})
    out["voicing"] = voiced
    out["voicing max 10"] = voiced_recent
    for w in (5, 10, 20):
        out[f"bands max 6 + {w}·voicing max 10"] = smooth + w * voiced_recent
    return out


def selected(d, only):
    """Names kept by `--only COLUMN=VALUE` (None: every item)."""
    if only is None:
        return None
    column, value = only.split("=", 1)
    with open(os.path.join(d, "manifest.csv"), newline="") as f:
        return {row["name"] for row in csv.DictReader(f) if row.get(column) == value}


def main(args):
    only = None
    if len(args) >= 2 and args[0] == "--only":
        only, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    for d in args:
        aucs = {}
        keep = selected(d, only)
        for wav in sorted(glob.glob(os.path.join(d, "*.wav"))):
            name = os.path.basename(wav)[:-4]
            label_path = os.path.join(d, name + ".txt")
            if name.endswith(".ref") or not os.path.exists(label_path):
                continue
            if os.path.exists(os.path.join(d, name + ".ref.wav")) or (keep is not None and name not in keep):
                continue
            rate, x = wavfile.read(wav)
            x = x.astype(float) / (32768 if x.dtype == np.int16 else 1)
            if x.ndim > 1:
                x = x.mean(axis=1)
            feats = features(x, rate)
            n = len(feats["bands"])
            speech = np.zeros(n, bool)
            for start, end in labels(label_path):
                speech[int(start / HOP_S + 0.5) : int(end / HOP_S + 0.5)] = True
            if speech.all() or not speech.any():
                continue
            for key, v in feats.items():
                aucs.setdefault(key, []).append(auc(v[speech], v[~speech]))
        items = len(next(iter(aucs.values()), []))
        print(f"{d}: mean per-item AUC over {items} items")
        for key, values in aucs.items():
            print(f"  {key:36s} {np.mean(values):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
