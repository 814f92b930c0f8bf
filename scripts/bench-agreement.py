#!/usr/bin/env python3
"""`make bench-agreement`: does `audiopipe bench` measure what the package-benchmark suite measures?

Runs, in one session on this machine, alternating: `audiopipe bench` (release; the suite's
configuration: 48 kHz mono device, openai-realtime, 20 ms chunks, native-high, 20 ms jitter ticks),
the suite's Paths target for the same two rows, and `audiopipe bench` again. Prints a Markdown
section (kept at the end of docs/benchmarks.md) with both p50s per path, their ratio and whether
they agree within ±15 %, plus the bench's own measuring overhead. Exits 1 if a path disagrees.

Usage: scripts/bench-agreement.py AUDIOPIPE [BENCHMARKS_DIR]
"""
import json
import re
import subprocess
import sys
import time

audiopipe = sys.argv[1]
bench_dir = sys.argv[2] if len(sys.argv) > 2 else "Benchmarks"
ROWS = {
    "mic": "Mic path 20ms 48k->24k openai-realtime AudioPipeline native-high",
    "speaker": "Speaker path 20ms 24k->48k openai-realtime AudioPipeline native-high",
}
UNITS = {"ns": 1.0, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def ours():
    out = subprocess.run(
        [audiopipe, "bench", "--tick-ms", "20", "--no-peers", "--duration", "8", "--json"],
        check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return {p: r["paths"][p]["total"] for p in ROWS}, r


def suite():
    pattern = "|".join(re.escape(n) + "$" for n in ROWS.values())
    out = subprocess.run(
        ["swift", "package", "benchmark", "--target", "Paths", "--filter", pattern, "--no-progress"],
        cwd=bench_dir, check=True, capture_output=True, text=True).stdout
    found, current = {}, None
    for line in out.splitlines():
        name = line.strip()
        if name in ROWS.values():
            current = name
            continue
        m = re.match(r"│ Time \(wall clock\) \((\w+)\) \*?\s*│(.*)", line)
        if current and m:
            cells = [c.strip() for c in m.group(2).split("│") if c.strip()]
            found[current] = float(cells[2]) * UNITS[m.group(1)]  # p0 p25 p50 …
            current = None
    missing = [n for n in ROWS.values() if n not in found]
    if missing:
        sys.exit(f"bench-agreement: the suite's output has no wall-clock row for {missing}:\n{out[-2000:]}")
    return {p: found[n] for p, n in ROWS.items()}


start = time.time()
default = json.loads(subprocess.run([audiopipe, "bench", "--json"], check=True, capture_output=True, text=True).stdout)
default_seconds = time.time() - start
first, report = ours()
theirs = suite()
second, _ = ours()
lines = [
    "## `audiopipe bench` against the suite (`make bench-agreement`)",
    "",
    "The same configuration measured both ways in one session, alternating: `audiopipe bench --tick-ms 20` "
    "(48 kHz mono device, openai-realtime, 20 ms chunks, native-high; p50 of single chunks) before and after "
    "the suite's Paths target (p50 of 1,000-chunk means). Goal: within ±15 %.",
    "",
    "| path | audiopipe bench p50 (before, after) | bench mean | suite p50 | ratio bench ÷ suite | within ±15 % |",
    "|---|---|---|---|---:|---|",
]
bad = []
for p in ROWS:
    a, b = first[p]["p50"], second[p]["p50"]
    ratio = (a + b) / 2 / theirs[p]
    ok = abs(ratio - 1) <= 0.15
    if not ok:
        bad.append(p)
    lines.append(
        f"| {p} | {a:.0f} ns, {b:.0f} ns | {(first[p]['mean'] + second[p]['mean']) / 2:.0f} ns | "
        f"{theirs[p]:.0f} ns | {ratio:.3f} | {'yes' if ok else 'NO'} |")
t = default["timer"]
lines += [
    "",
    f"Measuring overhead (timer reads + bookkeeping) per mic chunk: {t['micOverheadNs']:.0f} ns, "
    f"{100 * t['micOverheadShare']:.1f} % of the mic path's p50 (goal ≤ 5 %); clock step "
    f"{t['resolutionNs']:.0f} ns (a default `audiopipe bench`, peers included, which took {default_seconds:.1f} s "
    "from start to exit; goal ≤ 30 s). "
    f"Machine: {report['machine']['cpu']}, {report['machine']['cores']} cores.",
    "",
]
print("\n".join(lines))
sys.exit(1 if bad else 0)
