#!/usr/bin/env python3
"""Parses package-benchmark's text output into rows: benchmark, metric, unit, p0…p100.

Usage: bench_table.py OUTPUT.txt                      p50/p99 wall clock per benchmark
       bench_table.py --check-allocations OUTPUT.txt [--flagged FILE]
                                                      exit 1 if an AudioPipeline stage allocated
                                                      (FILE: their names, one per line, then a
                                                      peer that allocated)
       bench_table.py --allocated NAME OUTPUT.txt     exit 0 if NAME allocated nothing, 1 if it did,
                                                      2 if not measured or no peer allocated
Values keep package-benchmark's units; 'Time (wall clock) (μs)' becomes metric 'wall', unit 'μs'.
"""
import re
import sys

PCTS = ["p0", "p25", "p50", "p75", "p90", "p99", "p100"]
SCALE = {"(K)": 1e3, "(M)": 1e6, "(G)": 1e9, "(#)": 1}


def parse(text):
    rows, name = [], None
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        if not line.startswith(("│", "╒", "╞", "├", "╘")) and "Benchmark" not in line[:20] and "│" not in line:
            name = line.strip()
            continue
        if line.startswith("│") and name:
            cells = [c.strip() for c in line.strip("│").split("│")]
            if cells[0] == "Metric":
                # The columns every reader here assumes: fail loudly if package-benchmark changes them.
                if cells[1:9] != PCTS + ["Samples"]:
                    raise ValueError(f"unexpected benchmark table header {cells!r} (expected Metric, "
                                     f"{', '.join(PCTS)}, Samples): package-benchmark's text format changed")
                continue
            if len(cells) < 8:
                continue
            label = cells[0].rstrip(" *")
            unit_match = re.findall(r"\(([^)]*)\)", label)
            unit = unit_match[-1] if unit_match else ""
            if label.startswith("Time (wall clock)"):
                metric = "wall"
            elif label.startswith("Throughput"):
                metric = "throughput"
                scale = SCALE.get("(" + unit + ")", 1)
            elif label.startswith("Malloc (total)"):
                metric = "mallocs"
            elif label.startswith("x realtime"):
                metric = "realtime"
                scale = SCALE.get("(" + unit + ")", 1) if unit_match else 1
            else:
                metric = label
            try:
                values = [float(c) for c in cells[1:8]]
            except ValueError:
                continue
            if metric == "throughput":
                values = [v * scale for v in values]
                unit = "#/s"
            if metric == "realtime":
                values = [v * scale for v in values]
                unit = "x"
            rows.append({"benchmark": name, "metric": metric, "unit": unit, **dict(zip(PCTS, values))})
    return rows


def to_ns(value, unit):
    return value * {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}.get(unit, float("nan"))


def exempt(name):
    return " peer " in f" {name} " or "(allocates)" in name


def check_allocations(rows, flagged_path=None):
    """Exit status 1 when a stage allocated (or nothing was measured). With `flagged_path`, the
    allocating stages' names are written there, one per line, for a rerun to confirm."""
    checked, bad, names, peers_allocating = 0, [], [], 0
    for r in rows:
        if r["metric"] == "mallocs" and exempt(r["benchmark"]) and r["p100"] > 0:
            peers_allocating += 1
        if r["metric"] != "mallocs" or exempt(r["benchmark"]):
            continue
        checked += 1
        if r["p100"] > 0:
            bad.append(f'{r["benchmark"]}: {r["p100"]:.0f} mallocs in one measured iteration')
            names.append(r["benchmark"])
    if checked == 0:
        print("check-allocations: no AudioPipeline benchmark found in the output", file=sys.stderr)
        return 1
    if peers_allocating == 0:
        # The peers allocate by construction (a new array per chunk): all zero means mallocs were not
        # counted (package-benchmark's malloc interposer not preloaded), so a clean result means nothing.
        print("check-allocations: no peer allocated either: malloc counting is not working", file=sys.stderr)
        return 1
    if flagged_path:
        # The flagged stages, then (last line) a peer that allocated: a rerun runs it too, to show
        # that mallocs were counted there.
        peer = next(r["benchmark"] for r in rows if r["metric"] == "mallocs" and exempt(r["benchmark"]) and r["p100"] > 0)
        with open(flagged_path, "w", encoding="utf-8") as f:
            f.writelines(n + "\n" for n in names + [peer] if names)
    for b in bad:
        print("allocation on the hot path: " + b, file=sys.stderr)
    print(f"check-allocations: {checked} AudioPipeline stages measured, {len(bad)} allocated in steady state")
    return 1 if bad else 0


def allocated(rows, name):
    """0: `name` was measured and allocated nothing; 1: it allocated; 2: it was not measured, or no
    peer in the output allocated (malloc counting not working)."""
    mallocs = [r["p100"] for r in rows if r["metric"] == "mallocs" and r["benchmark"] == name]
    peers = [r for r in rows if r["metric"] == "mallocs" and exempt(r["benchmark"]) and r["p100"] > 0]
    if not mallocs or not peers:
        return 2
    return 1 if mallocs[0] > 0 else 0


if __name__ == "__main__":
    if sys.argv[1] == "--allocated":
        sys.exit(allocated(parse(open(sys.argv[3], encoding="utf-8").read()), sys.argv[2]))
    if sys.argv[1] == "--check-allocations":
        flagged = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--flagged" else None
        sys.exit(check_allocations(parse(open(sys.argv[2], encoding="utf-8").read()), flagged))
    rows = parse(open(sys.argv[1], encoding="utf-8").read())
    for r in rows:
        if r["metric"] == "wall":
            print(f'{r["benchmark"]:<48} p50 {to_ns(r["p50"], r["unit"]):>12.0f} ns  p99 {to_ns(r["p99"], r["unit"]):>12.0f} ns')
        elif r["metric"] == "mallocs" and r["p100"] > 0:
            print(f'{r["benchmark"]:<48} mallocs p100 {r["p100"]:.0f}')
