#!/usr/bin/env python3
"""The layering and size rules of the tree (README "Layout"), checked: `make format-check` runs it.

- every Swift file in Sources/AudioPipelineAdapters imports a C library module (the resampler
  catalogue excepted): workflows belong in AudioPipelineWorkflows;
- the CLI stays thin: no FileManager, JSON.parse, JSONSerialization or DispatchQueue; at most
  1,100 lines in all (declarations: each command's options are its interface, the jobs are in the
  library; the architecture page's status note) and 150 per command file. The rule keeps logic
  out, not declarations terse: never pack assignments into tuples to fit it (the CLI's were
  unpacked; what it then lacked in room came from moving logic that was in it to the library);
- every option that takes a number reads a negative value after a space (`parsing: .number`);
- no `[String: Any]` or JSONSerialization anywhere in Sources (reports are Codable), but in the
  bench's peers (Sources/AudioPipelineBench/BenchPeers.swift), whose point is to time that code;
- the core is in stage folders, no core file over 400 lines;
- no function (or initialiser, or closure-bodied property) in Sources over 80 lines;
- no line in Sources over 120 characters.
Prints every violation and exits 1 if there is any.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
sources = root / "Sources"
problems = []


def swift_files(d):
    return sorted(p for p in d.rglob("*.swift"))


def rel(p):
    return str(p.relative_to(root))


for f in swift_files(sources / "AudioPipelineAdapters"):
    text = f.read_text()
    if not re.search(r"^import (CSndFile|CSampleRate|CFFTW3f)$", text, re.M) and f.name != "ResamplerChoice.swift":
        problems.append(f"{rel(f)}: links no C library; move it to AudioPipelineWorkflows")

cli = swift_files(sources / "audiopipe")
cli_lines = 0
for f in cli:
    text = f.read_text()
    n = text.count("\n")
    cli_lines += n
    for word in ("FileManager", "JSON.parse", "JSONSerialization", "DispatchQueue"):
        if word in text:
            problems.append(f"{rel(f)}: uses {word}; that is library logic (AudioPipelineWorkflows)")
    if "Commands" in f.parts and n > 150:
        problems.append(f"{rel(f)}: {n} lines, a command file has at most 150")
    # An option declaration: `@Option(…)` (parentheses nested once, across lines), then its `var`.
    for m in re.finditer(r"@Option\((?:[^()]|\([^()]*\))*\)\s*var (\w+)(: (Double|Float|Int|UInt64)\??\b| = -?[0-9])", text):
        if "parsing: .number" not in m.group(0):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{rel(f)}:{line}: option {m.group(1)} takes a number: give it parsing: .number")
if cli_lines > 1100:
    problems.append(f"Sources/audiopipe: {cli_lines} lines, the CLI has at most 1,100")

for f in swift_files(sources):
    text = f.read_text()
    if ("[String: Any]" in text or "JSONSerialization" in text) and f.name != "BenchPeers.swift":
        problems.append(f"{rel(f)}: [String: Any] or JSONSerialization; use a Codable report")
    for i, line in enumerate(text.split("\n"), 1):
        if len(line) > 120:
            problems.append(f"{rel(f)}:{i}: {len(line)} characters, over 120")

core = sources / "AudioPipelineCore"
for entry in sorted(core.iterdir()):
    if not entry.is_dir() and entry.name != "README.md":
        problems.append(f"{rel(entry)}: the core keeps its files in stage folders")
for f in swift_files(core):
    n = f.read_text().count("\n")
    if n > 400:
        problems.append(f"{rel(f)}: {n} lines, a core file has at most 400")


def code_only(text):
    """The text with comments and string literals blanked (so their braces do not count)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            j = i + 1
            depth = 0
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "(":
                    depth += 1
                    j += 2
                    continue
                if depth and text[j] == ")":
                    depth -= 1
                elif text[j] == "\\":
                    j += 1
                elif text[j] == '"' and not depth:
                    break
                j += 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


declaration = re.compile(r"(?<![.\w])(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])")
for f in swift_files(sources):
    code = code_only(f.read_text())
    for m in declaration.finditer(code):
        start = code.find("{", m.end())
        # A declaration without a body (a protocol requirement): another declaration comes first.
        if start < 0 or re.search(r"\b(func|var|let|init|case|subscript|deinit)\b", code[m.end():start]):
            continue
        depth, j = 0, start
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, j) + 1
        if last - first + 1 > 80:
            name = m.group(1).strip()
            problems.append(f"{rel(f)}:{first}: {name}… is {last - first + 1} lines, over 80")

for p in problems:
    print(p)
if problems:
    print(f"check-layout: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print("check-layout: the layers, sizes and line lengths are as the README says")
