#!/usr/bin/env python3
"""The session simulator's barge-in figures on the VAD kit's barge-in items (recorded mode, with
their far-end references): `audiopipe session simulate --recorded NAME.wav --reference
NAME.ref.wav --user-labels NAME.txt` per item, pooled. Prints a Markdown table with the tuning
half (even item numbers), the check half (odd) and all items: user onsets during agent playout,
barge-in latency p50/p90 (nearest rank, over detected onsets), missed %, false barge-ins per
minute of agent-only playout, talk-over p50.

  scripts/session-eval.py AUDIOPIPE KIT_DIR [extra audiopipe options...]
"""
import json
import math
import pathlib
import subprocess
import sys
import tempfile


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p * len(s)) - 1))]


def run(binary, item, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [binary, "session", "simulate", "--recorded", str(item), "--reference",
             str(item.with_suffix(".ref.wav")), "--user-labels", str(item.with_suffix(".txt")),
             "-o", tmp + "/sim", "--json", "-q"] + extra,
            check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def pooled(reports):
    latencies = [b["latencyMs"] for r in reports for b in r["bargeIns"] if b["latencyMs"] is not None]
    talk = [b["talkOverMs"] for r in reports for b in r["bargeIns"]]
    onsets = sum(len(r["bargeIns"]) for r in reports)
    missed = sum(r["missedBargeIns"] for r in reports)
    false = sum(r["falseBargeIns"] for r in reports)
    minutes = sum(r["agentOnlyMinutes"] for r in reports)
    playout = sum(r["agentPlayoutMinutes"] for r in reports)
    return {
        "onsets": onsets, "p50": percentile(latencies, 0.5), "p90": percentile(latencies, 0.9),
        "missed": 100 * missed / onsets if onsets else None, "false": false,
        "perMin": false / minutes if minutes else None, "talk": percentile(talk, 0.5), "minutes": minutes,
        "perPlayout": false / playout if playout else None, "playout": playout,
    }


def main():
    binary, kit, extra = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3:]
    items = sorted(p for p in kit.glob("*.wav") if not p.name.endswith(".ref.wav")
                   and p.with_suffix(".ref.wav").exists())
    if not items:
        sys.exit(f"{kit}: no items with a NAME.ref.wav")
    reports = {p.stem: run(binary, p, extra) for p in items}
    halves = {
        "tuning half (even)": [r for n, r in reports.items() if int(n[:3]) % 2 == 0],
        "check half (odd)": [r for n, r in reports.items() if int(n[:3]) % 2 == 1],
        "all": list(reports.values()),
    }
    f = lambda v, fmt: "–" if v is None else fmt % v
    print("| items | user onsets | latency p50 | p90 | missed | false barge-ins | per min of agent-only playout "
          "| per min of all agent playout | talk-over p50 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, rs in halves.items():
        m = pooled(rs)
        print(f"| {name}: {len(rs)} | {m['onsets']} | {f(m['p50'], '%.0f ms')} | {f(m['p90'], '%.0f ms')} | "
              f"{f(m['missed'], '%.1f %%')} | {m['false']} | {f(m['perMin'], '%.2f')} ({m['minutes']:.2f} min) | "
              f"{f(m['perPlayout'], '%.2f')} ({m['playout']:.2f} min) | {f(m['talk'], '%.0f ms')} |")


if __name__ == "__main__":
    main()
