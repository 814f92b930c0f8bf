#!/usr/bin/env python3
"""Every public symbol of the four libraries has a doc comment (`make docs` runs this after DocC).

Reads the symbol graphs that `swift package generate-documentation` extracted (under the scratch
path's `*/extracted-symbols/*/TARGET/TARGET.symbols.json`) and lists each public or open symbol
declared in Sources/ that has no `///` comment: its file, line, kind and name. Symbols the compiler
makes (Codable's `init(from:)`, synthesised `==`) have no place in Sources and are not counted.
DocC itself fails only on a broken comment, not on a missing one; this closes that gap.
Exit 1 when any is missing.

    scripts/check-doc-coverage.py [--scratch-path .build]
"""
import argparse
import glob
import json
import os
import sys

TARGETS = ["AudioPipelineCore", "AudioPipelineAdapters", "AudioPipelineWorkflows", "AudioPipelineBench"]


def symbol_graph(scratch, target):
    pattern = os.path.join(scratch, "*", "extracted-symbols", "*", target, f"{target}.symbols.json")
    found = sorted(glob.glob(pattern), key=os.path.getmtime)
    if not found:
        sys.exit(f"check-doc-coverage: no symbol graph for {target} under {scratch} (run make docs)")
    return found[-1]


def undocumented(graph):
    out = set()
    for s in json.load(open(graph))["symbols"]:
        uri = s.get("location", {}).get("uri", "")
        if "/Sources/" not in uri or s.get("accessLevel") not in ("public", "open") or s.get("docComment"):
            continue
        where = uri.split("/Sources/", 1)[1] + ":" + str(s["location"]["position"]["line"] + 1)
        out.add(f"Sources/{where}: {s['kind']['displayName'].lower()} {'.'.join(s['pathComponents'])}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch-path", default=".build")
    args = parser.parse_args()
    missing = set()
    for target in TARGETS:
        missing |= undocumented(symbol_graph(args.scratch_path, target))
    for line in sorted(missing):
        print(f"{line}: public, no doc comment")
    print(f"check-doc-coverage: {len(missing)} public symbols without a doc comment in {', '.join(TARGETS)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
