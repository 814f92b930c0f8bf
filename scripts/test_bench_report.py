#!/usr/bin/env python3
"""Tests of scripts/bench_table.py and scripts/bench_report.py on fabricated package-benchmark text
output (`make test-bench-report`, CI). If package-benchmark changes its table format these fail,
instead of `make bench-report` writing a report with empty tables."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402
from bench_table import allocated, check_allocations, parse  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOALS = os.path.join(ROOT, "Benchmarks", "goals.json")

TOP = "╒═══════════════════════════╤═══════════╤═══════════╤═══════════╤═══════════╤═══════════╤═══════════╤═══════════╤═══════════╕"
HEAD = "│ Metric                    │        p0 │       p25 │       p50 │       p75 │       p90 │       p99 │      p100 │   Samples │"
SEP = "╞═══════════════════════════╪═══════════╪═══════════╪═══════════╪═══════════╪═══════════╪═══════════╪═══════════╪═══════════╡"
MID = "├───────────────────────────┼───────────┼───────────┼───────────┼───────────┼───────────┼───────────┼───────────┼───────────┤"
BOTTOM = "╘═══════════════════════════╧═══════════╧═══════════╧═══════════╧═══════════╧═══════════╧═══════════╧═══════════╧═══════════╛"


def row(label, values):
    return "│ " + label.ljust(25) + " │" + "│".join(f"{v:>10} " for v in values) + "│"


def table(name, p50, p99, unit="ns", mallocs=0, realtime=None, header=HEAD):
    """One benchmark as package-benchmark 1.38 prints it (text format, --no-progress)."""
    lines = [name, TOP, header, SEP,
             row("Malloc (total) *", [0, 0, mallocs, mallocs, mallocs, mallocs, mallocs, 3891]), MID,
             row("Throughput (# / s) (M)", [19, 18, 18, 18, 18, 13, 0, 3891]), MID,
             row(f"Time (wall clock) ({unit}) *", [p50, p50, p50, p50, p99, p99, p99 * 10, 3891])]
    if realtime is not None:
        lines += [MID, row("x realtime (K) *", [realtime, realtime, realtime, realtime, realtime, realtime, realtime, 3891])]
    return "\n".join(lines + [BOTTOM, ""])


PREAMBLE = """Build complete!
Building benchmark targets in release mode for benchmark run...
Building Framing

==================
Running Benchmarks
==================

Host 'vm' with 2 'x86_64' processors with 23 GB memory, running:

=======
Framing
=======

"""


def fabricated(extra=""):
    return PREAMBLE + "\n".join([
        table("Base64 encode 640B AudioPipeline vector", 68, 125),
        table("Base64 encode 640B AudioPipeline portable", 171, 255),
        table("Base64 encode 640B peer Foundation", 436, 703, mallocs=1),
        table("Frame 20ms openai-realtime AudioPipeline", 79, 104),
        table("Frame 20ms openai-realtime peer JSONEncoder", 355, 390, mallocs=17),  # only 4.5×: goal ≥ 10×
        table("Mic path 20ms 48k->16k gemini-live AudioPipeline native-high", 2720, 3590, realtime=7),
        table("Resample 1s 48k->16k peer soxr-hq", 123, 209, unit="μs"),
        table("Resample 1s 48k->16k native-high", 129, 162, unit="μs"),
        table("Resample 1s 48k->16k src-best", 21, 28, unit="ms"),
    ]) + extra


def one_row_goals(stage, ours, peers, goals):
    return [{"stage": stage, "ours": ours, "peers": peers, "goals": goals}]


class ParseTests(unittest.TestCase):
    def test_rows_units_and_metrics(self):
        runs = bench_report.load(fabricated())
        self.assertEqual(len(runs), 9)
        self.assertEqual(runs["Base64 encode 640B AudioPipeline vector"]["p50"], 68)
        self.assertEqual(runs["Resample 1s 48k->16k native-high"]["p50"], 129_000)
        self.assertEqual(runs["Resample 1s 48k->16k src-best"]["p99"], 28_000_000)
        self.assertEqual(runs["Base64 encode 640B peer Foundation"]["mallocs"], 1)
        self.assertEqual(runs["Mic path 20ms 48k->16k gemini-live AudioPipeline native-high"]["realtime"], 7000)

    def test_empty_output_fails(self):
        with self.assertRaises(bench_report.ReportError):
            bench_report.load("Build complete!\nRunning Benchmarks\n")

    def test_changed_header_fails(self):
        changed = HEAD.replace("p99", "p95")
        with self.assertRaises(ValueError):
            parse(PREAMBLE + table("Base64 encode 640B AudioPipeline vector", 68, 125, header=changed))

    def test_unknown_time_unit_fails(self):
        with self.assertRaises(bench_report.ReportError):
            bench_report.load(PREAMBLE + table("Base64 encode 640B AudioPipeline vector", 68, 125, unit="ks"))

    def test_split_roles(self):
        self.assertEqual(bench_report.split("F32toI16 chunk960 peer C loop native"), ("F32toI16 chunk960", "peer", "C loop native"))
        self.assertEqual(bench_report.split("Resample 1s 48k->16k src-best"), ("Resample 1s 48k->16k", "peer", "src-best"))
        self.assertEqual(bench_report.split("Resample 1s 48k->16k native-high-portable"),
                         ("Resample 1s 48k->16k", "ours", "native-high-portable"))
        self.assertEqual(bench_report.split("Jitter push 20ms burst AudioPipeline"), ("Jitter push 20ms burst", "ours", ""))


class ReportTests(unittest.TestCase):
    def build(self, goals, raw=None, batch=None, require_all=False):
        return bench_report.build(raw or fabricated(), goals, batch, {}, "test machine", require_all)

    def summary_line(self, text, stage):
        return next(line for line in text.splitlines() if line.startswith(f"| {stage} |"))

    def test_met_is_computed_from_the_run(self):
        goals = one_row_goals("Base64 encode 640 B", "Base64 encode 640B AudioPipeline vector",
                              ["Base64 encode 640B peer Foundation"],
                              [{"kind": "faster", "than": "Base64 encode 640B peer Foundation", "min": 3,
                                "text": "≥ 3× Foundation", "source": "#4"}])
        text, counts = self.build(goals)
        line = self.summary_line(text, "Base64 encode 640 B")
        self.assertIn("6.41×", line)  # 436 / 68
        self.assertIn("✅", line)
        self.assertEqual(counts["met"], 1)

    def test_a_missed_goal_says_so(self):
        goals = one_row_goals("Framing", "Frame 20ms openai-realtime AudioPipeline",
                              ["Frame 20ms openai-realtime peer JSONEncoder"],
                              [{"kind": "faster", "than": "Frame 20ms openai-realtime peer JSONEncoder", "min": 10,
                                "text": "≥ 10× JSONEncoder", "source": "#4"},
                               {"kind": "p50_max", "ns": 300, "text": "≤ 300 ns", "source": "#4"}])
        text, counts = self.build(goals)
        line = self.summary_line(text, "Framing")
        self.assertIn("4.49× ✗", line)
        self.assertIn("p50 79 ns ✓", line)
        self.assertIn("❌ 1 of 2 not met", line)
        self.assertEqual(counts["not met"], 1)

    def test_best_peer_is_the_fastest(self):
        goals = one_row_goals("Resampling 48k → 16k", "Resample 1s 48k->16k native-high",
                              ["Resample 1s 48k->16k src-best", "Resample 1s 48k->16k peer soxr-hq"],
                              [{"kind": "faster", "than": "Resample 1s 48k->16k peer soxr-hq", "min": 1.0,
                                "text": "≥ 1.0× soxr HQ", "source": "#20"}])
        line = self.summary_line(self.build(goals)[0], "Resampling 48k → 16k")
        self.assertIn("| soxr-hq 123 µs | 0.95× |", line)
        self.assertIn("0.95× ✗", line)

    def test_missing_benchmarks(self):
        goals = one_row_goals("VAD", "VAD 20ms frame 16k no reference AudioPipeline", [],
                              [{"kind": "p50_max", "ns": 1000, "text": "≤ 1 µs", "source": "#6"}])
        text, counts = self.build(goals)  # a filtered run: said, not failed
        self.assertIn("not in this run", self.summary_line(text, "VAD"))
        self.assertEqual(counts["not in this run"], 1)
        with self.assertRaises(bench_report.ReportError):  # the committed report: fails
            self.build(goals, require_all=True)

    def test_sections_group_and_order(self):
        text, _ = self.build([])
        self.assertLess(text.index("### Base64"), text.index("### Framing"))
        self.assertLess(text.index("### Framing"), text.index("### Resampling, per second of audio"))
        resampling = text[text.index("### Resampling, per second of audio"):text.index("### Mic path")]
        # ours first (the default variant first), then peers fastest first
        order = [resampling.index(s) for s in ("**native-high**", "peer: soxr-hq", "peer: src-best")]
        self.assertEqual(order, sorted(order))
        self.assertIn("7,752×", resampling)  # × realtime of 1 s of audio = 1 s / 129 µs

    def test_unclaimed_benchmarks_land_in_other(self):
        text, _ = self.build([], raw=fabricated(table("Chunker 20ms AudioPipeline", 30, 40)))
        self.assertIn("### Other", text)
        self.assertIn("Chunker 20ms", text)

    def test_batch_section_is_kept_and_checked(self):
        batch = bench_report.batch_section_from(os.path.join(ROOT, "docs", "benchmarks.md"))
        self.assertIsNotNone(batch, "docs/benchmarks.md lost its <!-- bench-batch --> section")
        rows = [r for r in bench_report.load_goals(GOALS) if r.get("batch")]
        text, counts = self.build(rows, batch=batch)
        self.assertTrue(text.rstrip().endswith(batch.rstrip()))
        line = next(line for line in text.splitlines() if line.startswith(f'| {rows[0]["stage"]}, 20'))
        self.assertNotIn("not found", line)
        self.assertEqual(counts["not in this run"], 0)


class GoalsFileTests(unittest.TestCase):
    def test_every_goal_named_benchmark_is_checked_against_a_full_run(self):
        rows = bench_report.load_goals(GOALS)
        names = bench_report.names_in_goals(rows)
        for n in names:
            self.assertNotEqual(bench_report.section_of(n), "Other", n)
        raw = PREAMBLE + "\n".join(table(n, 100, 150) for n in names)
        batch = bench_report.batch_section_from(os.path.join(ROOT, "docs", "benchmarks.md"))
        text, counts = bench_report.build(raw, rows, batch, {}, "test machine", True)
        self.assertEqual(counts["not in this run"], 0)
        self.assertEqual(sum(counts.values()), len(rows))


class AllocationCheckTests(unittest.TestCase):
    def test_flags_an_allocating_stage(self):
        raw = PREAMBLE + table("Base64 encode 640B AudioPipeline vector", 68, 125, mallocs=2) + \
            table("Base64 encode 640B peer Foundation", 436, 703, mallocs=1)
        self.assertEqual(check_allocations(parse(raw)), 1)

    def test_passes_when_ours_allocate_nothing_and_peers_do(self):
        self.assertEqual(check_allocations(parse(fabricated())), 0)

    def test_fails_when_no_peer_allocates(self):
        # Every peer at 0 means malloc counting is off (the interposer not preloaded), not a clean run.
        raw = PREAMBLE + table("Base64 encode 640B AudioPipeline vector", 68, 125) + \
            table("Base64 encode 640B peer Foundation", 436, 703, mallocs=0)
        self.assertEqual(check_allocations(parse(raw)), 1)

    def test_flagged_file_names_the_stages_then_a_peer(self):
        raw = PREAMBLE + table("Base64 encode 640B AudioPipeline vector", 68, 125, mallocs=2) + \
            table("Base64 encode 640B peer Foundation", 436, 703, mallocs=1)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "flagged")
            self.assertEqual(check_allocations(parse(raw), path), 1)
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read().splitlines(),
                                 ["Base64 encode 640B AudioPipeline vector", "Base64 encode 640B peer Foundation"])

    def test_allocated_tells_a_rerun_apart(self):
        peer = table("Base64 encode 640B peer Foundation", 436, 703, mallocs=1)
        clean = PREAMBLE + table("Resample 1s 16k->24k native-fast", 68, 125) + peer
        again = PREAMBLE + table("Resample 1s 16k->24k native-fast", 68, 125, mallocs=1) + peer
        self.assertEqual(allocated(parse(clean), "Resample 1s 16k->24k native-fast"), 0)
        self.assertEqual(allocated(parse(again), "Resample 1s 16k->24k native-fast"), 1)
        # Not measured, or measured without malloc counting (no peer allocated): proves nothing.
        self.assertEqual(allocated(parse(clean), "Resample 1s 48k->16k native-fast"), 2)
        no_peer = PREAMBLE + table("Resample 1s 16k->24k native-fast", 68, 125)
        self.assertEqual(allocated(parse(no_peer), "Resample 1s 16k->24k native-fast"), 2)


if __name__ == "__main__":
    unittest.main()
