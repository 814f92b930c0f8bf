#!/usr/bin/env python3
"""How well band energies tell double talk from echo alone, per way of cutting the bands: the study
behind the steep bands of the VAD's reference path (docs/design/vad-experiments.md, "Steep bands for
the reference path").

Per barge-in item (NAME.wav the microphone, NAME.ref.wav what was played, NAME.txt the user's speech
as Audacity labels, as scripts/make-bargein-items.py writes them), in 10 ms frames:
- the echo delay: the lag (0-500 ms) where the frame-to-frame changes of the broadband level of the
  microphone and the reference correlate best;
- per band, the expected echo as the VAD's echo model has it: the reference's level over the
  direct path (the lag and the frame either side) or its reverberant tail (older frames, 60 dB per
  450 ms less), whichever is louder, plus a gain per band: the median of microphone minus that over
  the echo-only frames of the item's first half (the reference playing, no user within 0.3 s);
- per frame the excess of the microphone over noise floor (the band's 10th percentile) + expected
  echo, and the score the VAD takes: the mean of the two largest band excesses.
Then, pooled over the items: the share of double-talk frames (user labelled, reference playing)
scoring above the 99.5th percentile of the echo-only frames of the second halves (frames the gains
did not learn from), and the AUC between the two.

    scripts/vad-band-study.py DIR [DIR ...]

Cuts compared: the VAD's one-pole splits (80 Hz high-pass, three one-pole low-passes), and
Butterworth high- and low-passes of order 2 and 4 at the same splits (300, 1000, 3000 Hz), in
4 bands and in 8 (splits 150, 300, 600, 1000, 1800, 3000, 5000 Hz). Needs numpy and scipy.
"""
import pathlib
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, lfilter, sosfilt

SPLITS = {4: [300, 1000, 3000], 8: [150, 300, 600, 1000, 1800, 3000, 5000]}


def read(path):
    rate, x = wavfile.read(path)
    return rate, x.astype(np.float64) / 32768


def frames(bands, hop):
    t = bands.shape[0] // hop
    return (bands[: t * hop].reshape(t, hop, -1) ** 2).mean(1) + 1e-14


def one_pole(x, rate, splits):
    r = np.exp(-2 * np.pi * 80 / rate)
    rest = lfilter([r, -r], [1, -r], x)
    out = []
    for fc in splits:
        a = 1 - np.exp(-2 * np.pi * fc / rate)
        low = lfilter([a], [1, -(1 - a)], rest)
        out.append(low)
        rest = rest - low
    out.append(rest)
    return np.stack(out, 1)


def butterworth(x, rate, splits, order):
    edges = [80] + list(splits) + [None]
    out = []
    for i in range(len(edges) - 1):
        y = sosfilt(butter(2 if i == 0 else order, edges[i], "highpass", fs=rate, output="sos"), x)
        if edges[i + 1] is not None:
            y = sosfilt(butter(order, edges[i + 1], "lowpass", fs=rate, output="sos"), y)
        out.append(y)
    return np.stack(out, 1)


def delay(mic, ref):
    m = np.diff(10 * np.log10(mic.sum(1)))
    r = np.diff(10 * np.log10(ref.sum(1)))
    m = np.clip(m, -20, 20)
    r = np.clip(r, -20, 20)
    scores = [np.dot(m[d:], r[: len(r) - d]) for d in range(0, 51)]
    return int(np.argmax(scores))


def expected(ref_db, d, decay=60 * 10 / 450):
    t, k = ref_db.shape
    direct = np.full((t, k), -140.0)
    tail = np.full((t, k), -140.0)
    for lag in (d - 1, d, d + 1):
        if lag >= 0:
            direct[lag:] = np.maximum(direct[lag:], ref_db[: t - lag])
    for lag in range(d + 2, d + 46):
        if lag < t:
            tail[lag:] = np.maximum(tail[lag:], ref_db[: t - lag] - decay * (lag - d + 1))
    return direct, np.maximum(direct, tail)


def scores(item, cut, count):
    rate, mic = read(item)
    _, ref = read(item.with_name(item.name[:-4] + ".ref.wav"))
    hop = rate // 100
    def bands(x):
        if cut == "one-pole":
            return frames(one_pole(x, rate, SPLITS[count]), hop)
        return frames(butterworth(x, rate, SPLITS[count], int(cut[-1])), hop)
    m, r = bands(mic), bands(ref)
    d = delay(m, r)
    m_db, r_db = 10 * np.log10(m), 10 * np.log10(r)
    direct, x = expected(r_db, d)
    t = len(m_db)
    times = np.arange(t) * 0.01 + 0.005
    labels = [tuple(map(float, l.split()[:2])) for l in open(item.with_suffix(".txt")) if l.strip()]
    user = np.zeros(t, bool)
    near = np.zeros(t, bool)
    for a, b in labels:
        user |= (times >= a) & (times <= b)
        near |= (times >= a - 0.3) & (times <= b + 0.3)
    playing = direct.max(1) > -55
    echo = playing & ~near
    first = np.arange(t) < t // 2
    gain = np.median((m_db - x)[echo & first], 0)
    floor = np.percentile(m_db, 10, 0)
    excess = m_db - 10 * np.log10(10 ** (floor / 10) + 10 ** ((x + gain) / 10))
    score = np.sort(excess, 1)[:, -2:].mean(1)
    return score[echo & ~first], score[user & playing]


def auc(neg, pos):
    v = np.concatenate([neg, pos])
    ranks = v.argsort().argsort() + 1
    return (ranks[len(neg):].sum() - len(pos) * (len(pos) + 1) / 2) / (len(neg) * len(pos))


def main():
    items = sorted(p for d in sys.argv[1:] for p in pathlib.Path(d).glob("*.wav") if not p.name.endswith(".ref.wav"))
    items = [p for p in items if p.with_name(p.name[:-4] + ".ref.wav").exists()]
    if not items:
        sys.exit("no items with a NAME.ref.wav in " + " ".join(sys.argv[1:]))
    print(f"{len(items)} items")
    print("| cut | bands | double-talk frames over 99.5 % of echo-only | AUC |")
    print("|---|---:|---:|---:|")
    for cut in ("one-pole", "butterworth-2", "butterworth-4"):
        for count in (4, 8):
            neg, pos = [], []
            for item in items:
                e, u = scores(item, cut, count)
                neg.append(e)
                pos.append(u)
            neg = np.concatenate(neg)
            pos = np.concatenate(pos)
            share = np.mean(pos > np.percentile(neg, 99.5))
            print(f"| {cut} | {count} | {share:.2f} | {auc(neg, pos):.3f} |")


if __name__ == "__main__":
    main()
