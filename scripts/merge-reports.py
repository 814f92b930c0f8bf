#!/usr/bin/env python3
"""Merge the results files of a sharded or resumed batch into one (JSON Lines on stdout).

Usage: merge-reports.py REPORT.jsonl... > merged.jsonl
       merge-reports.py OUT_DIR > merged.jsonl      (its results-*.jsonl, in name order; write
                                                     the merged file under another name)

Keeps the last line per input (later files, then later lines, win: a resumed or re-run shard's
newer result replaces the older one), skips lines that do not parse (a line cut short by a crash),
and exits 1, naming them on stderr, when any kept result is not "ok" (2 on a usage error).

The same with jq (last line per input, lines that do not parse skipped), then the status check:
  jq -cnR 'reduce (inputs | fromjson? | objects | select(.input)) as $r ({}; .[$r.input] = $r) | .[]' \
    results-*.jsonl > merged.jsonl && ! grep -v '"status":"ok"' merged.jsonl
"""
import glob
import json
import os
import sys


def main(args):
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 0 if args else 2
    files = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(glob.glob(os.path.join(glob.escape(a), "results-*.jsonl")))
            if not found:
                print(f"merge-reports: {a}: no results-*.jsonl in this directory", file=sys.stderr)
                return 2
            files += found
        else:
            files.append(a)
    last = {}  # input -> its last result, in the order inputs first appear
    skipped = 0
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                        key = r["input"]
                    except (ValueError, KeyError, TypeError):
                        skipped += line.strip() != ""
                        continue
                    last[key] = r
        except OSError as e:
            print(f"merge-reports: {path}: {e.strerror}", file=sys.stderr)
            return 2
    for r in last.values():
        sys.stdout.write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    if skipped:
        print(f"merge-reports: skipped {skipped} line(s) that do not parse", file=sys.stderr)
    failed = [r for r in last.values() if r.get("status") != "ok"]
    for r in failed:
        print(f"merge-reports: {r['input']}: {r.get('status')}: {r.get('error')}", file=sys.stderr)
    if failed:
        print(f"merge-reports: {len(failed)} of {len(last)} inputs not ok", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
