#!/usr/bin/env python3
"""Would a small learned model on the detector's own band features separate speech better? Issue 18's
question, measured with the halves protocol: every directory's items are sorted by name and split
by parity (even = tuning half, odd = check half, as the README's tables); the models are fitted on
the tuning halves of all the directories given, and the mean per-item frame AUC is reported on every
half, against the best single feature (`vad-frame-auc.py`'s "bands max 6").

Features per 10 ms frame, causal, from the same approximation of the detector's four one-pole
bands as `vad-frame-auc.py` (80 Hz high-pass, splits at 300, 1000, 3000 Hz; floors as the 20th
percentile of the last 5 s): each band's excess over its floor and that excess's maximum over the
last 6 frames; the band score (mean of the two largest excesses), its maximum over 6 frames, its
mean and standard deviation over the last 30 frames (how steady, how modulated); the spectral shape
(each band's level less the loudest band's); the largest excess less the score (one band alone).

Models: a logistic regression on the standardised features (cost: 17 multiply-adds a frame) and,
as a ceiling a small model could approach, gradient-boosted trees: 200 of depth 4, and 100 of
depth 3 regularised (at least 400 frames a leaf, L2 1.0). Items are weighted equally (each item's
frames sum to one).

    python3 scripts/vad-learned-ceiling.py DEV_DIR REAL_DIR [--only tier=core applies to REAL_DIR]

Needs numpy, scipy and scikit-learn. Items with a far-end reference are skipped (their score is
against the echo model), as are items whose labels are all speech or none.
"""
import glob
import importlib.util
import os
import sys

import numpy as np
from scipy.io import wavfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("frame_auc", os.path.join(here, "vad-frame-auc.py"))
fa = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fa)

HOP_S = fa.HOP_S


def trailing_mean(v, frames):
    """Mean of the last `frames` values (the first value repeats before the start)."""
    padded = np.concatenate([np.full(frames - 1, v[0]), v])
    c = np.concatenate([[0.0], np.cumsum(padded)])
    return (c[frames:] - c[:-frames]) / frames


def features(x, rate):
    levels = fa.band_levels(x, rate)
    excess = np.clip(levels - fa.running_percentile(levels, int(5 / HOP_S), 20), -10, 60)
    ordered = np.sort(excess, axis=1)
    score = (ordered[:, -1] + ordered[:, -2]) / 2
    smooth = fa.running_max(score, 6)
    mean30 = trailing_mean(score, 30)
    std30 = np.sqrt(np.maximum(trailing_mean(score**2, 30) - mean30**2, 0))
    recent = np.stack([fa.running_max(excess[:, i], 6) for i in range(4)], axis=1)
    shape = levels - levels.max(axis=1, keepdims=True)
    table = np.column_stack([excess, recent, score, smooth, mean30, std30, shape, ordered[:, -1] - score])
    return table, smooth


def halves(d, only):
    """(tuning, check) lists of (name, features, best single feature, labels) for directory d."""
    keep = fa.selected(d, only)
    names = []
    for wav in sorted(glob.glob(os.path.join(d, "*.wav"))):
        name = os.path.basename(wav)[:-4]
        if name.endswith(".ref") or os.path.exists(os.path.join(d, name + ".ref.wav")):
            continue
        if os.path.exists(os.path.join(d, name + ".txt")) and (keep is None or name in keep):
            names.append(name)
    out = ([], [])
    for k, name in enumerate(names):
        rate, x = wavfile.read(os.path.join(d, name + ".wav"))
        x = x.astype(float) / (32768 if x.dtype == np.int16 else 1)
        if x.ndim > 1:
            x = x.mean(axis=1)
        table, single = features(x, rate)
        speech = np.zeros(len(table), bool)
        for start, end in fa.labels(os.path.join(d, name + ".txt")):
            speech[int(start / HOP_S + 0.5) : int(end / HOP_S + 0.5)] = True
        if speech.all() or not speech.any():
            continue
        out[k % 2].append((name, table, single, speech))
    return out


def main(args):
    only = None
    if "--only" in args:
        i = args.index("--only")
        only, args = args[i + 1], args[:i] + args[i + 2 :]
    if len(args) < 1:
        sys.exit(__doc__)
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    # --only applies to the last directory (the natural recordings).
    sets = {d: halves(d, only if d == args[-1] else None) for d in args}
    train = [item for tune, _ in sets.values() for item in tune]
    x = np.concatenate([t for _, t, _, _ in train])
    y = np.concatenate([s for _, _, _, s in train])
    w = np.concatenate([np.full(len(s), 1 / len(s)) for _, _, _, s in train]) * len(train)
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    linear = LogisticRegression(max_iter=3000).fit((x - mu) / sd, y, sample_weight=w)
    trees = HistGradientBoostingClassifier(max_iter=200, max_depth=4, random_state=0).fit(x, y, sample_weight=w)
    small = HistGradientBoostingClassifier(
        max_iter=100, max_depth=3, min_samples_leaf=400, l2_regularization=1.0, random_state=0
    ).fit(x, y, sample_weight=w)
    print(f"fitted on {len(train)} tuning-half items, {len(y)} frames; mean per-item frame AUC:")
    print(f"{'set, half':44s} {'items':>5s} {'bands max 6':>12s} {'logistic':>9s} {'trees':>7s} {'small trees':>12s}")
    for d, (tune, check) in sets.items():
        for half, items in (("tuning", tune), ("check", check)):
            rows = []
            for _, table, single, speech in items:
                p = linear.decision_function((table - mu) / sd)
                q = trees.predict_proba(table)[:, 1]
                r = small.predict_proba(table)[:, 1]
                rows.append([fa.auc(v[speech], v[~speech]) for v in (single, p, q, r)])
            m = np.mean(rows, axis=0)
            name = d.rstrip("/") + ", " + half
            print(f"{name:44s} {len(rows):5d} {m[0]:12.3f} {m[1]:9.3f} {m[2]:7.3f} {m[3]:12.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
