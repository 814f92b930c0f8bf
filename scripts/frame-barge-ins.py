#!/usr/bin/env python3
"""Barge-in figures read off `audiopipe vad detect --frames`, with the far-end reference or without
it: for the one comparison `scripts/session-eval.py` cannot make. The session simulator always
gives the detector the reference it has; this asks what a client gains by giving it at all —
behind an echo canceller, say (docs/design/vad-experiments.md, "With or without the reference
behind a canceller").

    scripts/frame-barge-ins.py AUDIOPIPE [--no-reference] ITEM_DIR...

Items are the barge-in items of `scripts/make-bargein-items.py` or the VAD kit (NAME.wav, the
played NAME.ref.wav, the user's Audacity labels NAME.txt), 16-bit PCM mono. Per 10 ms frame the
agent plays where the reference's RMS is over −60 dBFS. Counted, pooled over the items:
- a false barge-in: a speech onset outside every label (from 0.1 s before it to its end) while the
  agent played in the last 0.3 s; per minute of agent-only playout (frames the agent plays outside
  every label);
- per label that starts while the agent played: its latency (the first speech frame from 0.1 s
  before it to its end, less its start, at least 0), or missed.
An approximation of the session's figures (no barge-in policy, no jitter buffer): on items 5001 with
the reference it read 0.41, 2.05 and 5.74 false barge-ins a minute (raw, WebRTC moderate, speexdsp)
where `scripts/session-eval.py` read 0.00, 2.68 and 4.53. Compare its two modes with each other.
Exit 1 on a missing item file or a failing `audiopipe`.
"""
import argparse
import array
import csv
import math
import pathlib
import subprocess
import sys
import tempfile
import wave

ACTIVE_DBFS = -60.0
RECENT_FRAMES = 30
LEAD_S = 0.1


def active_frames(path):
    """Per 10 ms frame of a 16-bit mono WAV: whether its RMS is over ACTIVE_DBFS."""
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            sys.exit(f"frame-barge-ins: {path}: needs 16-bit PCM mono")
        rate = w.getframerate()
        data = array.array("h", w.readframes(w.getnframes()))
    hop = rate // 100
    limit = 32768 * 10 ** (ACTIVE_DBFS / 20)
    flags = []
    for start in range(0, len(data) - hop + 1, hop):
        power = sum(v * v for v in data[start:start + hop]) / hop
        flags.append(math.sqrt(power) > limit)
    return flags


def labels(path):
    """(start, end) pairs of an Audacity label file, s."""
    pairs = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            fields = line.split("\t")
            try:
                pairs.append((float(fields[0]), float(fields[1])))
            except (IndexError, ValueError):
                sys.exit(f"frame-barge-ins: {path}:{number}: not a label line (start<TAB>end<TAB>text)")
    return pairs


def speech_frames(binary, item, reference, tmp):
    """The detector's speech flag per frame, and each frame's time."""
    frames = pathlib.Path(tmp) / "frames.csv"
    command = [binary, "vad", "detect", str(item), "--frames", str(frames), "-q", "-o", "/dev/null"]
    if reference:
        command += ["--reference", str(item.with_suffix(".ref.wav"))]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"frame-barge-ins: {item}: audiopipe exited {run.returncode}: {run.stderr.strip()}")
    with open(frames, newline="") as f:
        rows = list(csv.DictReader(f))
    return [row["speech"] == "1" for row in rows], [float(row["time_s"]) for row in rows]


def score(binary, item, reference, totals, tmp):
    playing = active_frames(item.with_suffix(".ref.wav"))
    spans = labels(item.with_suffix(".txt"))
    speech, times = speech_frames(binary, item, reference, tmp)

    def inside(t, lead):
        return any(a - lead <= t <= b for a, b in spans)

    def recently_playing(i):
        return any(playing[max(0, i - RECENT_FRAMES):min(i + 1, len(playing))])

    for i, t in enumerate(times):
        if i < len(playing) and playing[i] and not inside(t, 0):
            totals["agent_only_s"] += 0.01
        onset = speech[i] and (i == 0 or not speech[i - 1])
        if onset and not inside(t, LEAD_S) and recently_playing(i):
            totals["false"] += 1
    for a, b in spans:
        first = int(a * 100)
        if not recently_playing(first):
            continue
        totals["onsets"] += 1
        heard = [times[i] for i in range(len(times)) if speech[i] and a - LEAD_S <= times[i] <= b]
        if heard:
            totals["latencies"].append(max(0.0, heard[0] - a) * 1000)
        else:
            totals["missed"] += 1


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p * len(s)) - 1))] if s else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audiopipe")
    parser.add_argument("--no-reference", action="store_true", help="run the detector without the reference")
    parser.add_argument("items", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    totals = {"false": 0, "agent_only_s": 0.0, "onsets": 0, "missed": 0, "latencies": []}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in args.items:
            if not folder.is_dir():
                sys.exit(f"frame-barge-ins: {folder}: no such folder")
            items = sorted(p.with_name(p.name[:-len(".ref.wav")] + ".wav") for p in folder.glob("*.ref.wav"))
            if not items:
                sys.exit(f"frame-barge-ins: {folder}: no NAME.wav with NAME.ref.wav")
            for item in items:
                for needed in (item, item.with_suffix(".txt")):
                    if not needed.exists():
                        sys.exit(f"frame-barge-ins: {needed}: no such file")
                score(args.audiopipe, item, not args.no_reference, totals, tmp)
    minutes = totals["agent_only_s"] / 60
    rate = totals["false"] / minutes if minutes > 0 else float("nan")
    onsets = totals["onsets"]
    missed = 100 * totals["missed"] / onsets if onsets else float("nan")
    lat = totals["latencies"]
    mode = "without the reference" if args.no_reference else "with the reference"
    print(f"{mode}: {onsets} user onsets while the agent played, latency p50 {percentile(lat, 0.5):.0f} ms, "
          f"p90 {percentile(lat, 0.9):.0f} ms, missed {missed:.1f} %; false barge-ins {totals['false']} "
          f"in {minutes:.2f} min of agent-only playout ({rate:.2f} per min)")


if __name__ == "__main__":
    main()
