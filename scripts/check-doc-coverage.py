#!/usr/bin/env python3
"""Every public symbol of the four libraries has a doc comment (`make docs` runs this after DocC).

Reads the symbol graphs that `swift package generate-documentation` extracted (under the scratch
path's `*/extracted-symbols/*/TARGET/TARGET.symbols.json`) and lists each public or open symbol
declared in Sources/ that has no `///` comment: its file, line and name. Symbols the compiler
makes (Codable's `init(from:)`, synthesised `==`) have no place in Sources and are not counted.

The symbols that were undocumented when the check came in are the backlog in
scripts/doc-coverage-backlog.txt (one `Module.Path.name` a line): they pass, but no new one may be
added, and one that gets its comment must leave the file (`--update` rewrites it), so the list
only shrinks. Exit 1 on a new undocumented symbol or a stale backlog line.

    scripts/check-doc-coverage.py [--scratch-path .build] [--update]
"""
import argparse
import glob
import json
import os
import pathlib
import sys

TARGETS = ["AudioPipelineCore", "AudioPipelineAdapters", "AudioPipelineWorkflows", "AudioPipelineBench"]
root = pathlib.Path(__file__).resolve().parent.parent
backlog_path = root / "scripts" / "doc-coverage-backlog.txt"


def symbol_graph(scratch, target):
    pattern = os.path.join(scratch, "*", "extracted-symbols", "*", target, f"{target}.symbols.json")
    found = sorted(glob.glob(pattern), key=os.path.getmtime)
    if not found:
        sys.exit(f"check-doc-coverage: no symbol graph for {target} under {scratch} (run make docs)")
    return found[-1]


def undocumented(graph, target):
    out = {}
    for s in json.load(open(graph))["symbols"]:
        uri = s.get("location", {}).get("uri", "")
        if "/Sources/" not in uri or s.get("accessLevel") not in ("public", "open") or s.get("docComment"):
            continue
        name = target + "." + ".".join(s["pathComponents"])
        where = uri.split("/Sources/", 1)[1] + ":" + str(s["location"]["position"]["line"] + 1)
        out[name] = f"Sources/{where}: {s['kind']['displayName'].lower()} {'.'.join(s['pathComponents'])}"
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch-path", default=".build")
    parser.add_argument("--update", action="store_true", help="rewrite the backlog to what is undocumented now")
    args = parser.parse_args()
    missing = {}
    for target in TARGETS:
        missing.update(undocumented(symbol_graph(args.scratch_path, target), target))
    if args.update:
        backlog_path.write_text("".join(f"{name}\n" for name in sorted(missing)))
        print(f"check-doc-coverage: {len(missing)} undocumented public symbols written to {backlog_path.name}")
        return 0
    backlog = set(backlog_path.read_text().split()) if backlog_path.exists() else set()
    new = sorted(set(missing) - backlog)
    stale = sorted(backlog - set(missing))
    for name in new:
        print(f"{missing[name]}: public, no doc comment")
    for name in stale:
        print(f"{backlog_path.relative_to(root)}: {name} is documented (or gone): remove the line (or --update)")
    print(
        f"check-doc-coverage: {len(missing)} public symbols undocumented, {len(missing) - len(new)} of them in "
        f"the backlog; {len(new)} new, {len(stale)} stale backlog lines")
    return 1 if new or stale else 0


if __name__ == "__main__":
    sys.exit(main())
