#!/usr/bin/env python3
"""Parity of `audiopipe vad detect --scores` with the frameworks it emulates (make check-vad-parity).

Usage: vad-parity.py --audiopipe BIN [--min-agreement 0.99] [--json OUT] RECORDING...

For each recording and each setting below, runs the real framework from PyPI (this script runs in
.venv-vad: make vad-scores-venv) and records the speech start and stop it reports; writes the
scores once per framework with scripts/vad-scores.py (pipecat's scores with its default
parameters); runs `audiopipe vad detect REC --scores SCORES --config SETTING.json --format json`;
and compares the two on 10 ms frames (a frame is speech when its centre lies inside a segment, as
the VAD kit's scorer counts).

- pipecat: SileroVADAnalyzer with VADParams(...), fed 20 ms chunks; an edge is what pipecat's VAD
  controller reports (the state it sees becomes SPEAKING: started; QUIET after speaking: stopped),
  at the end of the chunk that produced it.
- livekit: silero.VAD.load(...).stream(), fed 10 ms AudioFrames; START_OF_SPEECH and
  END_OF_SPEECH at their `timestamp`.

The residue, and why it is expected:
- pipecat resets silero's recurrent state every ~2 s of audio, when its VAD state is QUIET and 5
  windows in a row scored < 0.1, so the confidences themselves depend on the parameters. The
  check (≥ --min-agreement) uses the setting's own scores (what `vad-scores.py --pipecat-params
  SETTING` writes: the confidences of the real run); the agreement from the default run's scores
  (what a sweep sees) is printed beside it, with the windows whose confidence the moved resets
  changed: that is the residue of a sweep, measured, not hidden.
- livekit: none expected (no resets; the emulation adds durations in the same floating point).

Prints one line per recording and setting, then 'N passed, N failed' (a pair passes at
≥ --min-agreement of frames equal); exit 1 when any fails, 2 on a usage error.
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SETTINGS = {
    "pipecat": [
        {},  # the defaults
        {"confidence": 0.5, "start_secs": 0.1, "stop_secs": 0.4, "min_volume": 0.3},
        {"confidence": 0.8, "start_secs": 0.3, "stop_secs": 0.8, "min_volume": 0.45},
    ],
    "livekit": [
        {},
        {"activation_threshold": 0.35, "min_speech_duration": 0.1, "min_silence_duration": 0.3},
        {"activation_threshold": 0.7, "min_speech_duration": 0.2, "min_silence_duration": 1.2},
    ],
}


def load_scores_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("vad_scores", os.path.join(HERE, "vad-scores.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pipecat_segments(vs, pcm, rate, setting):
    """The real SileroVADAnalyzer; returns segments and the confidences it computed."""
    from pipecat.audio.vad.vad_analyzer import VADParams, VADState

    analyzer = vs.RecordingSileroAnalyzer(rate, VADParams(**setting))
    chunk = rate // 50
    reported = VADState.QUIET
    segments, start = [], None
    for i in range(0, len(pcm), chunk):
        piece = pcm[i : i + chunk]
        state = analyzer._run_analyzer(piece.tobytes())
        t = (i + len(piece)) / rate
        if state != reported and state in (VADState.SPEAKING, VADState.QUIET):
            if state == VADState.SPEAKING:
                start = t
            elif start is not None:
                segments.append((start, t))
                start = None
            reported = state
    duration = len(pcm) / rate
    if start is not None and duration > start:
        segments.append((start, duration))
    return segments, analyzer.confidences


async def livekit_run(pcm, rate, setting):
    from livekit import rtc
    from livekit.agents.vad import VADEventType
    from livekit.plugins import silero

    vad = silero.VAD.load(**setting)
    stream = vad.stream()
    step = rate // 100
    for i in range(0, len(pcm), step):
        piece = pcm[i : i + step]
        stream.push_frame(rtc.AudioFrame(piece.tobytes(), rate, 1, len(piece)))
    stream.end_input()
    segments, start = [], None
    async for event in stream:
        if event.type == VADEventType.START_OF_SPEECH:
            start = event.timestamp
        elif event.type == VADEventType.END_OF_SPEECH and start is not None:
            segments.append((start, event.timestamp))
            start = None
    await stream.aclose()
    duration = len(pcm) / rate
    if start is not None and duration > start:
        segments.append((start, duration))
    return segments


def frames(segments, duration):
    n = int(-(-round(duration * 1e9) // 10_000_000))  # ⌈duration / 10 ms⌉
    out = [False] * n
    for s, e in segments:
        import math

        a = max(0, math.ceil(s / 0.01 - 0.5))
        b = min(n, math.ceil(e / 0.01 - 0.5))
        for i in range(a, b):
            out[i] = True
    return out


def emulate(binary, wav, scores, framework, setting, tmp):
    config = os.path.join(tmp, "config.json")
    with open(config, "w") as f:
        json.dump({framework: setting}, f)
    r = subprocess.run(
        [binary, "vad", "detect", wav, "--scores", scores, "--config", config, "--format", "json"],
        capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"audiopipe vad detect {wav}: exit {r.returncode}: {r.stderr.strip()}")
    report = json.loads(r.stdout)
    return [(s["start"], s["end"]) for s in report["segments"]], report["duration"]


def write_labels(root, run, name, segments):
    os.makedirs(os.path.join(root, run), exist_ok=True)
    with open(os.path.join(root, run, name + ".txt"), "w") as f:
        for a, b in segments:
            f.write(f"{a:.6f}\t{b:.6f}\tspeech\n")


def analyzer_window(rate):
    return 512 if rate == 16000 else 256


def agreement(real, ours, duration):
    a, b = frames(real, duration), frames(ours, duration)
    return sum(1 for x, y in zip(a, b) if x == y) / max(1, len(a))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--audiopipe", required=True)
    p.add_argument("--frameworks", default="pipecat,livekit")
    p.add_argument("--min-agreement", type=float, default=0.99)
    p.add_argument("--json", help="write every pair's figures here")
    p.add_argument("--config", action="append", default=[],
                   help="a best.json of vad tune --emulate: check its setting too (instead of the built-in ones)")
    p.add_argument("--labels-out", help="write each run's segments as Audacity labels: DIR/FRAMEWORK-K[-emulated]/NAME.txt "
                   "(K: the setting's index; for ../shared/eval/vad/score.py)")
    p.add_argument("recordings", nargs="+")
    try:
        args = p.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    settings = SETTINGS
    if args.config:
        settings = {"pipecat": [{}], "livekit": [{}]}
        for path in args.config:
            with open(path) as f:
                config = json.load(f)
            for framework in settings:
                if framework in config:
                    settings[framework].append({k: v for k, v in config[framework].items() if not k.startswith("_")})
    vs = load_scores_module()
    vs.quiet_logs()
    started = time.monotonic()
    rows, passed, failed = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for wav in args.recordings:
            name = os.path.splitext(os.path.basename(wav))[0]
            pcm, rate = vs.read_pcm16(wav)
            for framework in args.frameworks.split(","):
                opts = argparse.Namespace(pipecat_params=None, chunk_ms=20)
                run = vs.silero_pipecat if framework == "pipecat" else vs.silero_livekit
                windows, _ = run(pcm, rate, opts)
                scores = os.path.join(tmp, f"{framework}-{name}.csv")
                vs.write_atomically(scores, windows)
                file_confidences = [c for _, c in windows]
                for k, setting in enumerate(settings[framework]):
                    label = json.dumps(setting, sort_keys=True) if setting else "defaults"
                    shifted = 0
                    predicted = None
                    own = scores
                    if framework == "pipecat":
                        real, confidences = pipecat_segments(vs, pcm, rate, setting)
                        shifted = sum(1 for a, b in zip(confidences, file_confidences) if abs(a - b) > 1e-6)
                        # The setting's own scores (what vad-scores.py --pipecat-params SETTING writes):
                        # the confidences of this very run.
                        own = os.path.join(tmp, f"{framework}-{name}-own.csv")
                        window = analyzer_window(rate)
                        vs.write_atomically(own, [((k + 1) * window / rate, c) for k, c in enumerate(confidences)])
                        guess, duration = emulate(args.audiopipe, wav, scores, framework, setting, tmp)
                        predicted = agreement(real, guess, duration)
                    else:
                        real = asyncio.run(livekit_run(pcm, rate, setting))
                    ours, duration = emulate(args.audiopipe, wav, own, framework, setting, tmp)
                    equal = agreement(real, ours, duration)
                    n = len(frames(real, duration))
                    if args.labels_out:
                        write_labels(args.labels_out, f"{framework}-{k}", name, real)
                        write_labels(args.labels_out, f"{framework}-{k}-emulated", name, ours)
                    ok = equal >= args.min_agreement
                    passed += ok
                    failed += not ok
                    extra = ""
                    if predicted is not None:
                        extra = (f"; from the default run's scores {predicted * 100:.2f} % "
                                 f"({shifted} windows scored apart by reset timing)")
                    print(
                        f"{'ok  ' if ok else 'FAIL'} {framework:8s} {name}: {equal * 100:.2f} % of {n} frames equal, "
                        f"{len(real)} vs {len(ours)} segments{extra}; {label}")
                    if not ok:
                        print(f"     real: {real}\n     ours: {ours}")
                    rows.append({
                        "framework": framework, "recording": name, "setting": setting, "agreement": equal,
                        "frames": n, "real_segments": real, "emulated_segments": ours,
                        "agreement_from_default_scores": predicted, "reset_shifted_windows": shifted})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    total = sum(r["frames"] for r in rows)
    pooled = sum(r["agreement"] * r["frames"] for r in rows) / max(1, total)
    print(f"pooled: {pooled * 100:.3f} % of {total} frames equal; {time.monotonic() - started:.1f} s")
    from_default = [r for r in rows if r["agreement_from_default_scores"] is not None]
    if from_default:
        frames_d = sum(r["frames"] for r in from_default)
        pooled_d = sum(r["agreement_from_default_scores"] * r["frames"] for r in from_default) / frames_d
        print(f"pipecat from the default run's scores (model resets moved): {pooled_d * 100:.3f} % of {frames_d} frames")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
