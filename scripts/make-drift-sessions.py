#!/usr/bin/env python3
"""Long barge-in sessions whose echo delay drifts: the loudspeaker's and the microphone's clocks
apart by a few hundred parts per million (a Bluetooth or USB loudspeaker beside a built-in
microphone), so that the echo arrives later and later over the session. For checking that the
barge-in detector's delay estimate follows a drifting echo (docs/design/vad-experiments.md).

The items of a `make-bargein-items.py --stems` set are put back to back — their references as the
agent's track, their users' clean speech (the stems) as the user's, their labels shifted — and one
echo path drawn per `--rooms` seed (`make-bargein-items.py`'s `echo_path`) is stretched by
1 + PPM·10⁻⁶ (FFT resampling), then mixed at each `--ratios` echo-to-user ratio (dB) over a pink
floor at −65 dBFS. Writes OUT/NNN_driftPPM_roomSEED_rRATIO.{wav,ref.wav,txt}:

    python3 scripts/make-bargein-items.py --seed 5001 --count 20 --stems /tmp/items
    python3 scripts/make-drift-sessions.py /tmp/items /tmp/drift300 --ppm 300
    scripts/session-eval.py .build/release/audiopipe /tmp/drift300

Needs numpy and scipy. Exit 1 on a set without stems; 2 on bad arguments.
"""
import argparse
import importlib.util
import pathlib
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample

HERE = pathlib.Path(__file__).resolve().parent
SPEC = importlib.util.spec_from_file_location("make_bargein_items", HERE / "make-bargein-items.py")
ITEMS = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ITEMS)


def session(src):
    """The set's references, users' speech and labels (s), back to back."""
    refs, users, labels, t = [], [], [], 0.0
    for reference in sorted(src.glob("*.ref.wav")):
        name = reference.name[: -len(".ref.wav")]
        stem = src / "stems" / f"{name}.user.wav"
        if not stem.exists():
            sys.exit(f"make-drift-sessions: {stem}: not found (make the set with --stems)")
        _, ref = wavfile.read(reference)
        _, user = wavfile.read(stem)
        refs.append(ref / 32768.0)
        users.append(user[: len(ref)] / 32768.0)
        for line in open(src / f"{name}.txt"):
            start, end = line.split("\t")[:2]
            labels.append((float(start) + t, float(end) + t))
        t += len(ref) / ITEMS.SR
    if not refs:
        sys.exit(f"make-drift-sessions: {src}: no NAME.ref.wav")
    return np.concatenate(refs), np.concatenate(users), labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--ppm", type=float, required=True, help="clock offset, parts per million (0: no drift)")
    ap.add_argument("--rooms", default="7,8", help="seeds of the echo paths, comma-separated")
    ap.add_argument("--ratios", default="0,-10", help="echo-to-user ratios, dB, comma-separated")
    a = ap.parse_args()
    if not 0 <= a.ppm <= 10_000:
        ap.error("--ppm must be in [0, 10000]")
    rooms = [int(s) for s in a.rooms.split(",")]
    ratios = [float(r) for r in a.ratios.split(",")]
    ref, user, labels = session(pathlib.Path(a.src))
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for room in rooms:
        rng = np.random.default_rng(room)
        echo, path = ITEMS.echo_path(ref, rng)
        if a.ppm:
            echo = resample(echo, int(round(len(echo) * (1 + a.ppm * 1e-6))))[: len(ref)]
        noise = ITEMS.pink(len(ref), rng) * 10 ** (-65 / 20)
        for ratio in ratios:
            n += 1
            mic = user + ITEMS.scale_to(echo, ITEMS.active_level(user) + ratio) + noise
            gain = min(1.0, 0.99 / np.max(np.abs(mic)))
            base = out / f"{n:03d}_drift{a.ppm:g}_room{room}_r{ratio:g}"
            wavfile.write(f"{base}.wav", ITEMS.SR, ITEMS.pcm16(mic * gain))
            wavfile.write(f"{base}.ref.wav", ITEMS.SR, ITEMS.pcm16(ref * gain))
            with open(f"{base}.txt", "w") as f:
                for start, end in labels:
                    f.write(f"{start:.6f}\t{end:.6f}\tspeech\n")
            drift = a.ppm * 1e-6 * len(ref) / ITEMS.SR * 1000
            print(f"{base.name}: {len(ref) / ITEMS.SR / 60:.1f} min, delay {path['delay_ms']:.0f} ms "
                  f"drifting {drift:.0f} ms")


if __name__ == "__main__":
    main()
