#!/usr/bin/env python3
"""Issue 30's two echo grids: the barge-in detector against its own agent's echo at fixed echo
delays and gains (`audiopipe session simulate --sweep echo_delay_ms=…`, one run per gain).

- Silent grid: the dev kit's agent track (`dev/039_tts_bargein_6.ref.wav`), no user, echo delays
  0, 20, 40, 60, 80, 100, 120, 150, 200, 250, 300 ms × gains −20, −14, −10, −6, −3, 0, +3, +6 dB
  (88 cells). The target: no false barge-in in any cell.
- Talking grid: the same agent and the sample scenario's user (`samples/scenario/user-16k.wav`,
  talking over the agent from 3.0 s), the same delays × gains −20 … 0 dB (66 cells). The target:
  the user detected within 300 ms, nothing else fires.

Prints both grids as Markdown tables (a cell: its latency p90 in ms, or what went wrong) and a
summary line each; `--csv FILE` also writes every cell. The figures of docs/design/vad-experiments.md
("silent grid 0 of 88, talking grid 0 of 66 over 300 ms") come from these grids. `--agent` plays
another agent track (`make check-echo-grids` also runs the sample scenario's); `--max-silent N` and
`--max-talking N` exit 1 when more cells fail. `--early` adds a third table, reported, not checked:
the same user talking 0.3, 0.6, 1.0 or 1.5 s after the agent's first sound, with headphones (no
echo) or an echo of −20, −10 or 0 dB (40 ms): how late the session's first words leave him. Other options go to `session simulate` (e.g.
`--enter-db 12`, `--config tuned.json`).

  scripts/echo-grids.py AUDIOPIPE [--kit ../shared/eval/vad] [--agent WAV] [--csv FILE]
                        [--max-silent N] [--max-talking N] [--early] [session simulate options...]
"""
import argparse
import array
import csv
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import wave

from utterance import first_utterance

DELAYS = [0, 20, 40, 60, 80, 100, 120, 150, 200, 250, 300]
GAINS = [-20, -14, -10, -6, -3, 0, 3, 6]
LATENCY_LIMIT_MS = 300
# The early grid (--early): the user's first utterance this long after the agent's first sound, s,
# with no echo (headphones) or at these gains (the simulator's default 40 ms delay).
EARLY_LEADS = [0.3, 0.6, 1.0, 1.5]
EARLY_ECHOES = [("headphones", ["--no-echo"]), ("-20 dB", ["--echo-gain-db", "-20"]),
                ("-10 dB", ["--echo-gain-db", "-10"]), ("0 dB", ["--echo-gain-db", "0"])]


def sweep(binary, agent, user, gain, extra):
    """One run per delay at `gain`: the rows of sweep.csv, keyed by delay."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [binary, "session", "simulate", "--agent", str(agent), "--echo-gain-db", str(gain),
                   "--sweep", "echo_delay_ms=" + ",".join(map(str, DELAYS)), "-o", tmp + "/grid", "-q"]
        if user:
            command += ["--user", str(user)]
        subprocess.run(command + extra, check=True, capture_output=True, text=True)
        with open(tmp + "/grid/sweep.csv", newline="") as f:
            return {int(float(row["echo_delay_ms"])): row for row in csv.DictReader(f)}


def samples(path):
    """A 16-bit PCM WAV's rate, channel count and interleaved samples."""
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2:
            sys.exit(f"echo-grids: {path}: --early needs 16-bit PCM")
        data = array.array("h", w.readframes(w.getnframes()))
        return w.getframerate(), w.getnchannels(), data


def first_sound(path):
    """When the track first reaches 1 % of full scale, s."""
    rate, channels, data = samples(path)
    for i, v in enumerate(data):
        if abs(v) > 327:
            return i // channels / rate
    return 0.0


def utterance(user, start=3.0):
    """The user track's utterance from `start` s (`first_utterance`): its rate and samples."""
    rate, channels, data = samples(user)
    if channels != 1:
        sys.exit(f"echo-grids: {user}: --early needs a mono user track")
    first, end = first_utterance(data, rate, start, full_scale=32768)
    return rate, data[first:end]


def early(binary, agent, user, extra, tmp):
    """Latency (ms, or `missed`) of a user who talks `lead` s after the agent's first sound."""
    rate, said = utterance(user)
    onset = first_sound(agent)
    rows = {}
    for lead in EARLY_LEADS:
        track = array.array("h", bytes(2 * (int((onset + lead) * rate))))
        track.extend(said)
        path = pathlib.Path(tmp) / f"user-{lead}.wav"
        with wave.open(str(path), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(track.tobytes())
        for name, options in EARLY_ECHOES:
            out = subprocess.run([binary, "session", "simulate", "--agent", str(agent), "--user", str(path),
                                  "-o", f"{tmp}/early", "-q", "--json"] + options + extra,
                                 check=True, capture_output=True, text=True)
            shutil.rmtree(f"{tmp}/early")
            report = json.loads(out.stdout)
            first = report["bargeIns"][0] if report["bargeIns"] else None
            latency = first["latencyMs"] if first else None
            rows[(lead, name)] = "missed" if latency is None else f"{latency:.0f} ms"
    return rows


def verdict(row, talking):
    """What a cell shows: None when it meets the target, else a short reason."""
    false = int(row["false_barge_ins"])
    if not talking:
        return f"{false} false" if false else None
    missed = int(row["missed"])
    if missed:
        return f"{missed} missed"
    if false:
        return f"{false} false"
    p90 = float(row["latency_p90_ms"])
    return f"{p90:.0f} ms" if p90 > LATENCY_LIMIT_MS else None


def table(name, gains, rows, talking):
    print(f"\n{name} (rows: echo gain dB; columns: echo delay ms; `·` meets the target)\n")
    print("| gain | " + " | ".join(map(str, DELAYS)) + " |")
    print("|---:|" + "---:|" * len(DELAYS))
    failing = 0
    for g in gains:
        cells = []
        for d in DELAYS:
            v = verdict(rows[g][d], talking)
            failing += v is not None
            cells.append(v or "·")
        print(f"| {g:+d} | " + " | ".join(cells) + " |")
    return failing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("audiopipe")
    parser.add_argument("--kit", default=str(pathlib.Path(__file__).resolve().parents[2] / "shared/eval/vad"))
    parser.add_argument("--agent", help="the agent track (default: the kit's dev/039_tts_bargein_6.ref.wav)")
    parser.add_argument("--csv", help="write every cell to this CSV file")
    parser.add_argument("--max-silent", type=int, help="exit 1 when more silent cells than this fail")
    parser.add_argument("--max-talking", type=int, help="exit 1 when more talking cells than this fail")
    parser.add_argument("--early", action="store_true",
                        help="also the early grid: the user talking 0.3-1.5 s into the agent's first words")
    args, extra = parser.parse_known_args()
    agent = pathlib.Path(args.agent) if args.agent else pathlib.Path(args.kit) / "dev/039_tts_bargein_6.ref.wav"
    user = pathlib.Path(__file__).resolve().parents[1] / "samples/scenario/user-16k.wav"
    for path in (agent, user):
        if not path.exists():
            sys.exit(f"echo-grids: {path}: not found (--kit names the VAD kit's folder)")
    talking_gains = [g for g in GAINS if g <= 0]
    silent = {g: sweep(args.audiopipe, agent, None, g, extra) for g in GAINS}
    talking = {g: sweep(args.audiopipe, agent, user, g, extra) for g in talking_gains}
    silent_failing = table("Silent grid: false barge-ins", GAINS, silent, talking=False)
    talking_failing = table(f"Talking grid: latency p90 over {LATENCY_LIMIT_MS} ms, missed or false",
                            talking_gains, talking, talking=True)
    print(f"\nsilent grid: {silent_failing} of {len(GAINS) * len(DELAYS)} cells with a false barge-in")
    print(f"talking grid: {talking_failing} of {len(talking_gains) * len(DELAYS)} cells over "
          f"{LATENCY_LIMIT_MS} ms, missed or with a false barge-in")
    if args.early:
        with tempfile.TemporaryDirectory() as tmp:
            rows = early(args.audiopipe, agent, user, extra, tmp)
        print("\nEarly grid: latency of a user who starts talking this long after the agent's first sound "
              "(the session's first response; rows: s; columns: the echo)\n")
        print("| start | " + " | ".join(name for name, _ in EARLY_ECHOES) + " |")
        print("|---:|" + "---:|" * len(EARLY_ECHOES))
        for lead in EARLY_LEADS:
            print(f"| {lead} s | " + " | ".join(rows[(lead, name)] for name, _ in EARLY_ECHOES) + " |")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["grid", "echo_gain_db", "echo_delay_ms", "missed", "false_barge_ins", "latency_p90_ms"])
            for grid, rows in (("silent", silent), ("talking", talking)):
                for g, by_delay in rows.items():
                    for d in DELAYS:
                        r = by_delay[d]
                        w.writerow([grid, g, d, r["missed"], r["false_barge_ins"], r["latency_p90_ms"]])
    over = []
    if args.max_silent is not None and silent_failing > args.max_silent:
        over.append(f"silent grid {silent_failing} > {args.max_silent}")
    if args.max_talking is not None and talking_failing > args.max_talking:
        over.append(f"talking grid {talking_failing} > {args.max_talking}")
    if over:
        sys.exit("echo-grids: more failing cells than allowed: " + "; ".join(over))


if __name__ == "__main__":
    main()
