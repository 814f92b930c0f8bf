#!/usr/bin/env python3
"""Writes the Markdown benchmark report from `swift package benchmark` text output.

Usage: bench_report.py RAW_OUTPUT.txt REPORT.md [--goals Benchmarks/goals.json]
                       [--batch-from OLD_REPORT.md] [--meta RUN.meta] [--require-all]

The report opens with one screen: a row per stage and path (Benchmarks/goals.json lists them, with
the project's goals and where each was stated), AudioPipeline's default variant, the fastest peer
in the same run, their ratio, and each goal checked against this run. Then one section per stage,
each benchmark grouped with its peers by name ("F32toI16 chunk960 AudioPipeline standard" with
"F32toI16 chunk960 peer C loop"; "Resample 1s 48k->16k native-high" with "… src-best" and
"… peer soxr-hq"); ratios are peer p50 ÷ ours p50 of wall clock, above 1 = AudioPipeline faster.
The batch section (scripts/bench-batch.sh, whole processes, measured apart) is copied from
--batch-from (default: REPORT.md itself) from its `<!-- bench-batch -->` marker on, with the
sections kept after it (bench-convert, bench-quality, bench-agreement); a goals.json row with
"batch" and "row" takes its cells from the table row of those sections whose job names "row".

--require-all (the committed report): every benchmark goals.json names must be in the run and every
stage section non-empty, so a renamed benchmark or a change in package-benchmark's output fails
here instead of leaving an empty table. Without it (filtered runs) missing rows say "not in this run".
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import parse, to_ns  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH_MARKER = "<!-- bench-batch -->"

# One section per stage, in pipeline order: (title, name pattern, note under the title).
SECTIONS = [
    ("Base64", r"^Base64 ", "Per buffer. `vector`: the SSSE3/NEON kernels (the default); `portable`: the Swift code alone."),
    ("Framing", r"^Frame ", "One 20 ms chunk of PCM16 (640 B at 16 kHz) → base64 → the profile's JSON message text."),
    ("Server-message decode", r"^Decode server message ",
     "One server audio message (20 ms at 24 kHz) → PCM16, per profile; `scanner` is the non-allocating fast path."),
    ("PCM conversion: Float32 → Int16 (incl. TPDF dither)", r"^F32toI16 ",
     "`chunk960`: one 20 ms chunk at 48 kHz; `4MiB`: one 4 MiB buffer. `ios`: the iOS-compatible mode; "
     "`clipping`: peak 1.05 (about 5 % of samples clip); `tpdf`: with TPDF dither."),
    ("PCM conversion: Int16 → Float32", r"^I16toF32 ", "`chunk960`: one 20 ms chunk at 48 kHz; `4MiB`: one 4 MiB buffer."),
    ("PCM conversion: downmix", r"^Downmix ", "Stereo → mono (mean of the channels)."),
    ("Resampling, per second of audio", r"^Resample 1s ",
     "One second of audio fed in 20 ms chunks; × realtime = 1 s ÷ p50. `native-*`: AudioPipeline's polyphase "
     "resampler (`-portable`: its Swift kernels only); `src-*`: libsamplerate's converters; `soxr-hq`: libsoxr HQ."),
    ("Resampling, per 20 ms chunk", r"^Resample chunk ",
     "Per-chunk latency. Not compared with soxr: it buffers its input and returns nothing on most 20 ms calls; "
     "compare per second of audio above."),
    ("Jitter buffer", r"^Jitter ", "Per 20 ms packet (push) or tick (pull) at 24 kHz."),
    ("VAD", r"^VAD ", "Per 20 ms frame at 16 kHz (or per 256-sample block, where named)."),
    ("Mic path", r"^Mic path ",
     "48 kHz Float32 capture → API rate PCM16 → 20 ms chunk → base64 → JSON message, per chunk. `portable`: "
     "the Swift resampler kernels. Peer: the common iOS client code + libsamplerate SINC_FASTEST."),
    ("Speaker path", r"^Speaker path ",
     "Server JSON message → base64 decode → PCM16 → Float32 → jitter buffer → 48 kHz, per chunk. Peer: "
     "JSONSerialization + Foundation base64 + `map` + SINC_FASTEST."),
    ("Session simulator", r"^Session ",
     "A whole barge-in conversation simulated offline (`SessionSimulator`, in memory, no output files): "
     "jitter buffer, room, capture path, VAD and policy, tick by tick. Not a hot-path stage (it allocates)."),
]


class ReportError(Exception):
    pass


# --- the run -------------------------------------------------------------------------------------


def load(raw_text):
    """{benchmark: {"p50", "p99" (ns), "mallocs" (p100), "realtime" (p50 or None)}}, in run order."""
    rows = parse(raw_text)
    if not rows:
        raise ReportError("no benchmark results found in the output: did the suite run, or did "
                          "package-benchmark's text format change? (scripts/bench_table.py parses it)")
    runs = OrderedDict()
    for r in rows:
        b = runs.setdefault(r["benchmark"], {"realtime": None, "mallocs": None})
        if r["metric"] == "wall":
            b["p50"] = to_ns(r["p50"], r["unit"])
            b["p99"] = to_ns(r["p99"], r["unit"])
            if b["p50"] != b["p50"]:  # NaN: a unit to_ns does not know
                raise ReportError(f'unknown time unit {r["unit"]!r} for {r["benchmark"]}')
        elif r["metric"] == "mallocs":
            b["mallocs"] = r["p100"]
        elif r["metric"] == "realtime":
            b["realtime"] = r["p50"]
    missing = [n for n, b in runs.items() if "p50" not in b]
    if missing:
        raise ReportError("no wall-clock row for: " + ", ".join(missing))
    return runs


def split(name):
    """(group, role, label): role is 'ours' or 'peer'."""
    if " peer " in name:
        g, p = name.split(" peer ", 1)
        return g, "peer", p
    if " AudioPipeline " in name:
        g, o = name.split(" AudioPipeline ", 1)
        return g, "ours", o
    if name.endswith(" AudioPipeline"):
        return name[: -len(" AudioPipeline")], "ours", ""
    m = re.match(r"(Resample \S+ \S+) (\S+)$", name)
    if m:
        g, backend = m.groups()
        return g, ("ours" if backend.startswith("native") else "peer"), backend
    return name, "ours", ""


def section_of(name):
    for title, pattern, _ in SECTIONS:
        if re.search(pattern, name):
            return title
    return "Other"


# --- formatting ----------------------------------------------------------------------------------


def fmt(ns):
    if ns is None:
        return "—"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if ns >= scale:
            v = ns / scale
            return f"{v:.0f} {unit}" if v >= 100 else f"{v:.1f} {unit}" if v >= 10 else f"{v:.2f} {unit}"
    return f"{ns:.0f} ns"


def fmt_ratio(x):
    if x != x:
        return "—"
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def realtime_of(name, b):
    if b["realtime"] is not None:
        return b["realtime"]
    if name.startswith("Resample 1s ") and b["p50"] > 0:
        return 1e9 / b["p50"]
    return None


# --- the goals -----------------------------------------------------------------------------------


def load_goals(path):
    with open(path, encoding="utf-8") as f:
        goals = json.load(f)
    rows = goals.get("rows")
    if not rows:
        raise ReportError(f"{path}: no rows")
    kinds = {"faster", "within", "p50_max", "p99_max", "rate_min", "mallocs_max", "batch_ratio", "batch_rss_max_mb"}
    for row in rows:
        for g in row.get("goals", []):
            if g.get("kind") not in kinds:
                raise ReportError(f'{path}: {row["stage"]}: unknown goal kind {g.get("kind")!r}')
            if not g.get("source"):
                raise ReportError(f'{path}: {row["stage"]}: a goal without its source')
    return rows


def names_in_goals(rows):
    names = []
    for row in rows:
        if row.get("batch"):
            continue
        names += [row["ours"]] + row.get("peers", [])
        for g in row["goals"]:
            for key in ("than", "of"):
                v = g.get(key)
                names += v if isinstance(v, list) else [v] if v else []
    return list(OrderedDict.fromkeys(names))


def check_goal(g, row, runs, batch):
    """(measured text, True / False / None when not in this run)."""
    kind = g["kind"]
    if kind.startswith("batch_"):
        if batch is None:
            return "no batch section", None
        if kind == "batch_rss_max_mb":
            if not batch["rss_mib"]:
                return "not found", None
            worst = max(batch["rss_mib"]) * 1.048576  # MiB → MB
            return f"{worst:.0f} MB", worst <= g["mb"]
        hits = [r for r in batch["rows"] if g["row"] in r["method"]]
        if not hits or hits[0]["ratio"] is None:
            return "not found", None
        return fmt_ratio(hits[0]["ratio"]), hits[0]["ratio"] >= g["min"]
    of = g.get("of", row["ours"])
    names = of if isinstance(of, list) else [of]
    if "than" in g:
        names = names + [g["than"]]
    if any(n not in runs for n in names):
        return "not in this run", None
    b = runs[names[0]]
    if kind == "faster":
        x = runs[g["than"]]["p50"] / b["p50"]
        return fmt_ratio(x), x >= g["min"]
    if kind == "within":
        x = b["p50"] / runs[g["than"]]["p50"]
        return fmt_ratio(x), x <= g["max"]
    if kind == "p50_max":
        return f'p50 {fmt(b["p50"])}', b["p50"] <= g["ns"]
    if kind == "p99_max":
        return f'p99 {fmt(b["p99"])}', b["p99"] <= g["ns"]
    if kind == "rate_min":
        gbps = g["bytes"] / b["p50"]  # bytes per ns = GB/s
        return f"{gbps:.1f} GB/s", gbps >= g["gb_per_s"]
    if kind == "mallocs_max":
        worst = max(runs[n]["mallocs"] if runs[n]["mallocs"] is not None else float("inf") for n in names)
        return f"{worst:.0f}", worst <= g["max"]
    raise ReportError(f"unknown goal kind {kind}")


def parse_batch(section):
    """The bench-batch table: method, files/s, ratio (first N× in its ratio cell), and peak RSS lines."""
    if not section:
        return None
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not line.startswith("| `"):
            continue
        m = re.search(r"([\d.]+)×", cells[4])
        try:
            fps = float(cells[3].replace(",", ""))
        except ValueError:
            fps = None
        rows.append({"method": cells[0], "files_per_s": fps, "ratio": float(m.group(1)) if m else None,
                     "median_s": cells[2], "cells": cells})
    rss = [float(m.group(1)) for m in re.finditer(r"^- .*?: ([\d.]+) MiB$", section, re.M)]
    when = re.search(r"(\d{4}-\d\d-\d\d \d\d:\d\d UTC)", section)
    return {"rows": rows, "rss_mib": rss, "when": when.group(1) if when else "date not given"}


def short_source(source):
    """'#4 targets, #7 goals' → '#4, #7'; the full text stays in goals.json."""
    refs = re.findall(r"#\d+|README", source)
    return ", ".join(OrderedDict.fromkeys(refs)) or source


def summary(rows, runs, batch):
    lines = ["| stage / path | ours (p50) | best peer (p50) | ratio | goals (where stated) | this run | met |",
             "|---|---|---|---:|---|---|---|"]
    counts = {"met": 0, "not met": 0, "not in this run": 0}
    for row in rows:
        results = [check_goal(g, row, runs, batch) for g in row["goals"]]
        goals = " · ".join(f'{g["text"]} ({short_source(g["source"])})' for g in row["goals"])
        if all(ok is None for _, ok in results) and any(m == "not in this run" for m, _ in results):
            measured = "—"
        else:
            measured = " · ".join(m + {True: " ✓", False: " ✗", None: ""}[ok] for m, ok in results)
        failed = sum(1 for _, ok in results if ok is False)
        unknown = sum(1 for _, ok in results if ok is None)
        if failed:
            met = "❌ no" if failed == len(results) else f"❌ {failed} of {len(results)} not met"
            counts["not met"] += 1
        elif unknown:
            met = "— not in this run"
            counts["not in this run"] += 1
        else:
            met = "✅ yes"
            counts["met"] += 1
        if row.get("batch") and row.get("row"):
            ours, peer, ratio = section_row_cells(batch, row["row"])
        elif row.get("batch"):
            ours, peer, ratio = batch_cells(batch)
        else:
            ours, peer, ratio = run_cells(row, runs)
        dated = row.get("batch") and batch and not row.get("row")
        stage = row["stage"] + (f', {batch["when"]}' if dated else "")
        lines.append(f'| {stage} | {ours} | {peer} | {ratio} | {goals} | {measured} | {met} |')
    return lines, counts


def run_cells(row, runs):
    o = runs.get(row["ours"])
    ours = f'{split(row["ours"])[2] or "AudioPipeline"} {fmt(o["p50"])}' if o else "not in this run"
    peers = [(runs[p]["p50"], p) for p in row.get("peers", []) if p in runs]
    if not peers:
        return ours, "—" if not row.get("peers") else "not in this run", "—"
    best_ns, best = min(peers)
    ratio = fmt_ratio(best_ns / o["p50"]) if o else "—"
    return ours, f"{split(best)[2]} {fmt(best_ns)}", ratio


def section_row_cells(batch, name):
    """A row of the kept sections (after the batch marker) given by `row` in goals.json, e.g. the
    bench-convert table: | job | input | ours | peer | ratio |."""
    hit = next((r for r in (batch or {}).get("rows", []) if name in r["method"]), None)
    if not hit or len(hit["cells"]) < 5:
        return "not found", "—", "—"
    return hit["cells"][2], hit["cells"][3], fmt_ratio(hit["ratio"]) if hit["ratio"] is not None else "—"


def batch_cells(batch):
    if not batch or not batch["rows"]:
        return "no batch section", "—", "—"
    ours = next((r for r in batch["rows"] if "--jobs 2`" in r["method"] and "--recursive" in r["method"]), None)
    peers = [r for r in batch["rows"] if r["method"].startswith("`parallel") and " true " not in r["method"]
             and r["files_per_s"]]
    if not ours or not peers:
        return "not found", "—", "—"
    best = max(peers, key=lambda r: r["files_per_s"])
    name = "sox per file" if " sox " in best["method"] else "audiopipe per file"
    ratio = ours["files_per_s"] / best["files_per_s"]
    return (f'`--jobs 2` {ours["files_per_s"]:,.0f} files/s', f'GNU parallel + {name} {best["files_per_s"]:,.0f} files/s',
            fmt_ratio(ratio))


# --- the sections --------------------------------------------------------------------------------


# Listed first in their group: what AudioPipeline runs by default.
DEFAULT_VARIANTS = ("standard", "vector", "native-high", "scanner (1428 B)", "scanner")
RATIO_ORDER = {"48k->16k": 0, "16k->24k": 1, "24k->48k": 2, "44k->16k": 3}
SIZE_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}


def group_key(g):
    """Pipeline order within a section: encode before decode, the client ratios in the README's order,
    a 20 ms chunk before a bulk buffer, small before large; else by name."""
    ratio = next((i for r, i in RATIO_ORDER.items() if r in g), 9)
    size = re.search(r"\b(\d+)(B|KiB|MiB)\b", g)
    return (1 if " decode " in g else 0, ratio, 0 if "chunk" in g else 1,
            int(size.group(1)) * SIZE_UNITS[size.group(2)] if size else 0, g)


def section_tables(runs):
    by_section = OrderedDict((title, OrderedDict()) for title, _, _ in SECTIONS)
    by_section["Other"] = OrderedDict()
    for name in runs:
        g, role, label = split(name)
        by_section[section_of(name)].setdefault(g, {"ours": [], "peer": []})[role].append((label, name))
    out = []
    for title, pattern, note in SECTIONS + [("Other", None, "Benchmarks no section above claims (scripts/bench_report.py SECTIONS).")]:
        groups = by_section[title]
        if not groups:
            continue
        out += [f"### {title}", "", note, "",
                "| group | variant | p50 | p99 | × realtime | mallocs | peer p50 ÷ this p50 |",
                "|---|---|---:|---:|---:|---:|---|"]
        for g, members in sorted(groups.items(), key=lambda kv: group_key(kv[0])):
            peers = sorted(members["peer"], key=lambda lp: runs[lp[1]]["p50"])
            if g.startswith("Resample chunk"):
                peers = [p for p in peers if "soxr" not in p[0]]
            ours = sorted(members["ours"], key=lambda lp: (lp[0] not in DEFAULT_VARIANTS, "portable" in lp[0], lp[0]))
            first = True
            for role, (label, name) in [("ours", m) for m in ours] + [("peer", p) for p in peers]:
                b = runs[name]
                rt = realtime_of(name, b)
                if role == "ours":
                    vs = " · ".join(f"{pl} {fmt_ratio(runs[pn]['p50'] / b['p50'])}" for pl, pn in peers) or "—"
                    variant = f"**{label or 'AudioPipeline'}**"
                else:
                    vs, variant = "(peer)", f"peer: {label}"
                mallocs = "—" if b["mallocs"] is None else f'{b["mallocs"]:.0f}'
                out.append(f'| {g if first else ""} | {variant} | {fmt(b["p50"])} | {fmt(b["p99"])} | '
                           f'{"" if rt is None else f"{rt:,.0f}×"} | {mallocs} | {vs} |')
                first = False
        out.append("")
    return out, by_section


# --- the report ----------------------------------------------------------------------------------


def machine():
    cpu, mem, flags = "unknown CPU", "", set()
    # The family and model as well: virtual machines name AMD's Zen 4 and Zen 5 alike ("AMD EPYC"),
    # and the vector kernels' figures differ between them (512-bit operations whole or in halves).
    family = model = None
    try:
        for line in open("/proc/cpuinfo"):
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and cpu == "unknown CPU":
                cpu = value.strip()
            elif key == "cpu family" and family is None:
                family = value.strip()
            elif key == "model" and model is None:
                model = value.strip()
            elif key == "flags" and not flags:
                flags = set(value.split())
    except OSError:
        pass
    if family is not None:
        cpu += f" (family {family}" + (f", model {model}" if model is not None else "") + ")"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f'{int(line.split()[1]) / 1024 / 1024:.0f} GiB'
    except OSError:
        pass
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except Exception:
        swift = "swift (version unknown)"
    isa = ", ".join(f for f in ["sse4_2", "avx2", "avx512f", "asimd"] if f in flags)
    return (f"{cpu}; {os.cpu_count()} cores; {mem}; {platform.system()} {platform.release()} "
            f"({platform.machine()}); CPU features: {isa or 'n/a'}; {swift}")


def read_meta(path):
    meta = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for line in lines:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k.strip()] = v.strip()
    return meta


def build(raw_text, goals_rows, batch_section, meta, machine_line, require_all):
    runs = load(raw_text)
    if require_all:
        missing = [n for n in names_in_goals(goals_rows) if n not in runs]
        if missing:
            raise ReportError("benchmarks named in goals.json are not in the run (renamed? filtered run?): "
                              + "; ".join(missing))
    batch = parse_batch(batch_section)
    screen, counts = summary(goals_rows, runs, batch)
    tables, by_section = section_tables(runs)
    if require_all:
        empty = [t for t, _, _ in SECTIONS if not by_section[t]]
        if empty:
            raise ReportError("no benchmarks in section(s): " + ", ".join(empty))
    labels = {"started": "started", "finished": "finished", "duration": "took", "commit": "commit",
              "arguments": "arguments", "load": "load average"}
    run_line = "Run: " + "; ".join(f"{label} {meta[k]}" for k, label in labels.items() if meta.get(k)) + "."
    if not meta:
        run_line = "Run: (no run metadata)."
    filtered = bool(meta.get("arguments"))
    lines = ["# Benchmarks", "",
             f"Machine: {machine_line}.", "", run_line, "",
             "Generated by `scripts/bench_report.py` (`make bench-report`; goals in `Benchmarks/goals.json`) from "
             "one run of the suite in `Benchmarks/`" + (" — a **filtered** run, so rows are missing" if filtered else "")
             + "; every figure comes from that run (the batch row from `make bench-batch`, at the end). Wall clock "
             "per measured unit (one chunk, message, buffer or frame; one second of audio for `Resample 1s`).", "",
             "## Summary: goals against this run", "",
             f"Rows meeting every goal: {counts['met']}; missing at least one: {counts['not met']}"
             + (f"; not in this run: {counts['not in this run']}" if counts["not in this run"] else "")
             + ". Ratio = best peer p50 ÷ ours p50 (above 1: AudioPipeline faster); "
             "ours is the default (vector kernels, `standard` conversion, `native-high` resampler). Goal sources: "
             "`#N` is the project's issue N.", ""]
    lines += screen
    lines += ["", "## By stage", "",
              "p50 and p99 of wall clock; mallocs: the most in one measured iteration (peers allocate a new array "
              "or string per chunk, which is what they measure; `make check-allocations` keeps every AudioPipeline "
              "stage at 0 in CI). Ratios: peer p50 ÷ this p50, above 1 = AudioPipeline faster.", ""]
    lines += tables
    if batch_section:
        lines += [batch_section.rstrip("\n"), ""]
    return "\n".join(lines), counts


def batch_section_from(path):
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if BATCH_MARKER in old:
            return old[old.index(BATCH_MARKER):]
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--goals", default=os.path.join(ROOT, "Benchmarks", "goals.json"))
    ap.add_argument("--batch-from", help="report whose batch section to keep (default: OUT)")
    ap.add_argument("--meta", help="run metadata, key=value lines (default: RAW with .meta)")
    ap.add_argument("--require-all", action="store_true")
    a = ap.parse_args(argv)
    meta_path = a.meta or os.path.splitext(a.raw)[0] + ".meta"
    try:
        with open(a.raw, encoding="utf-8") as f:
            raw_text = f.read()
        text, counts = build(raw_text, load_goals(a.goals),
                             batch_section_from(a.batch_from or a.out), read_meta(meta_path), machine(), a.require_all)
    except ReportError as e:
        print(f"bench_report: {e}", file=sys.stderr)
        return 2
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"bench_report: wrote {a.out}: {counts['met']} rows meet their goals, {counts['not met']} miss one or more"
          + (f", {counts['not in this run']} not in this run" if counts["not in this run"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
