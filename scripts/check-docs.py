#!/usr/bin/env python3
"""Runs every shell example of README.md and docs/guide/*.md, so the docs cannot rot (make check-docs).

Usage: check-docs.py [--bin-dir DIR] [--root DIR] [--keep] [PAGE.md ...]

Per page, in a fresh temporary directory (the sandbox) that holds a copy of samples/:
- every ```sh block runs, in order, as `bash -euo pipefail`, started in the sandbox, so the files
  one block makes are there for the next; it must exit 0, or N with the attribute exit=N;
- the info string's further words are attributes: exit=N, timeout=S (default 60),
  skip=REASON (root, cluster, network, long, or covered:WHAT); at most one block in four of a
  page may be skipped, and the summary counts the skips by reason;
- ```console and ```text blocks are shown, never run; a `$ ` line inside an sh block is an error
  (it breaks copy-paste);
- a hidden line `<!-- check-docs: CMD -->` runs CMD at its place, as a setup step or an assertion;
- environment: the binary directory first on PATH, LC_ALL=C TZ=UTC COLUMNS=100 NO_COLOR=1,
  HOME=the sandbox, standard input /dev/null;
- after the page, `diff -r samples/ SANDBOX/samples/` must be empty (no example writes into its
  inputs); the sandbox is removed (--keep or KEEP=1 keeps it).
Relative links and #anchors are checked on the same pages, and on docs/**/*.md and
samples/README.md when no page is named. A failure prints file:line and the last 20 lines of the
block's stderr; the summary line reads "N run, M skipped (by reason)". Exit 1 on any failure,
2 on a usage error.

The binary directory: --bin-dir, else $AUDIOPIPE_BIN_DIR, else ROOT/.build/release.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SKIP_REASONS = ("root", "cluster", "network", "long")
RUN_LANGS = ("sh",)
SHELL_LANGS = ("bash", "shell", "zsh", "shell-session")  # not run: an error, so none hides
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`]*)$")
HIDDEN = re.compile(r"^\s*<!--\s*check-docs:\s*(.*?)\s*-->\s*$")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
ANCHOR_TAG = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


class Step:
    """One thing to run on a page: an sh block or a hidden line."""

    def __init__(self, kind, line, code, exit_code=0, timeout=60.0, skip=None):
        self.kind, self.line, self.code = kind, line, code
        self.exit_code, self.timeout, self.skip = exit_code, timeout, skip


def parse_attributes(words, where, problems):
    attrs = {"exit": 0, "timeout": 60.0, "skip": None}
    for w in words:
        key, eq, value = w.partition("=")
        if not eq or key not in attrs or not value:
            problems.append(f"{where}: unknown attribute '{w}' (exit=N, timeout=S, skip=REASON)")
            continue
        if key == "exit":
            if not value.isdigit() or int(value) > 255:
                problems.append(f"{where}: exit={value}: a status 0-255")
                continue
            attrs["exit"] = int(value)
        elif key == "timeout":
            try:
                attrs["timeout"] = float(value)
                if not 0 < attrs["timeout"] <= 600:
                    raise ValueError
            except ValueError:
                problems.append(f"{where}: timeout={value}: seconds, more than 0, at most 600")
        else:
            ok = value in SKIP_REASONS or (value.startswith("covered:") and len(value) > len("covered:"))
            if not ok:
                problems.append(f"{where}: skip={value}: the reason is one of {', '.join(SKIP_REASONS)} or covered:WHAT")
            attrs["skip"] = value
    return attrs


def parse_page(path, display):
    """The page's steps, in order, and the problems found reading it."""
    steps, problems = [], []
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            h = HIDDEN.match(lines[i])
            if h:
                steps.append(Step("hidden", i + 1, h.group(1)))
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).split()
        start = i + 1
        body = []
        i += 1
        while i < len(lines):
            close = lines[i].strip()
            if close.startswith(fence[0] * len(fence)) and set(close) == {fence[0]}:
                break
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        else:
            problems.append(f"{display}:{start}: code block never closed")
        i += 1
        lang = info[0] if info else ""
        where = f"{display}:{start}"
        if lang in SHELL_LANGS:
            problems.append(f"{where}: ```{lang}: write ```sh (run by check-docs) or ```console (shown)")
            continue
        if lang not in RUN_LANGS:
            if info[1:] and lang in ("console", "text"):
                problems.append(f"{where}: ```{lang} is never run; attributes belong on ```sh")
            continue
        for k, text in enumerate(body):
            if text.startswith("$ "):
                problems.append(f"{display}:{start + 1 + k}: a '$ ' prompt inside ```sh (it breaks copy-paste); "
                                "drop it, or show a transcript in ```console")
        attrs = parse_attributes(info[1:], where, problems)
        steps.append(Step("block", start, "\n".join(body) + "\n", attrs["exit"], attrs["timeout"], attrs["skip"]))
    blocks = [s for s in steps if s.kind == "block"]
    skipped = [s for s in blocks if s.skip]
    if skipped and len(skipped) * 4 > len(blocks):
        problems.append(f"{display}: {len(skipped)} of {len(blocks)} sh blocks skipped; at most one in four")
    return steps, problems


def environment(bin_dir, sandbox):
    env = {k: v for k, v in os.environ.items() if k not in ("BASH_ENV", "ENV", "CDPATH", "KEEP")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
               LC_ALL="C", TZ="UTC", COLUMNS="100", NO_COLOR="1", HOME=str(sandbox))
    for k in list(env):
        if k.startswith("SLURM_") or k == "JOB_COMPLETION_INDEX":
            del env[k]  # --shard auto must see what the page sets, not the caller's job
    return env


def run_step(step, sandbox, env):
    """(status, stdout, stderr, seconds); status None when it timed out."""
    started = time.monotonic()
    proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", step.code], cwd=sandbox, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=step.timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        status = None
    return status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - started


def tail(text, n=20):
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    return "\n".join("    " + line for line in lines[-n:])


def run_page(path, display, root, bin_dir, keep, counts):
    """Runs one page; returns its failures (strings)."""
    steps, problems = parse_page(path, display)
    if problems:
        return problems
    if not any(s.kind == "block" for s in steps):
        return []
    sandbox = Path(tempfile.mkdtemp(prefix="check-docs-"))
    failures = []
    try:
        shutil.copytree(root / "samples", sandbox / "samples", symlinks=True)
        env = environment(bin_dir, sandbox)
        for step in steps:
            if step.skip:
                counts["skipped"][step.skip] += 1
                continue
            status, out, err, seconds = run_step(step, sandbox, env)
            counts["hidden" if step.kind == "hidden" else "run"] += 1
            if status == step.exit_code:
                continue
            what = "hidden check" if step.kind == "hidden" else "block"
            if status is None:
                why = f"timed out after {step.timeout:g} s"
            else:
                why = f"exited {status}, expected {step.exit_code}"
            msg = f"{display}:{step.line}: {what} {why}"
            if err.strip():
                msg += "\n  stderr (last 20 lines):\n" + tail(err)
            elif out.strip():
                msg += "\n  stdout (last 20 lines):\n" + tail(out)
            failures.append(msg)
            break  # later blocks build on this one
        if not failures:
            diff = subprocess.run(["diff", "-r", str(root / "samples"), str(sandbox / "samples")],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if diff.returncode != 0:
                failures.append(f"{display}: the examples changed samples/ (each must write elsewhere):\n"
                                + tail(diff.stdout))
    finally:
        if keep:
            print(f"check-docs: {display}: sandbox kept in {sandbox}", file=sys.stderr)
        else:
            shutil.rmtree(sandbox, ignore_errors=True)
    return failures


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def outside_code(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(2)
            continue
        if fence is not None:
            close = line.strip()
            if close.startswith(fence) and set(close) == {fence[0]}:
                fence = None
            continue
        yield n, line


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        found, seen = set(), Counter()
        for _, line in outside_code(path):
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
                seen[base] += 1
            found.update(ANCHOR_TAG.findall(line))
        _anchor_cache[path] = found
    return _anchor_cache[path]


def check_links(path, display, root):
    problems, checked = [], 0
    for n, line in outside_code(path):
        plain = CODE_SPAN.sub("", line)
        targets = [m.group(2) for m in LINK.finditer(plain)]
        ref = REF_DEF.match(plain)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # http:, https:, mailto: … (no network here)
            checked += 1
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if file_part and not dest.exists():
                problems.append(f"{display}:{n}: link to {target}: {file_part} does not exist")
                continue
            try:
                dest.relative_to(root.resolve())
            except ValueError:
                problems.append(f"{display}:{n}: link to {target} leaves the repository")
                continue
            if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                problems.append(f"{display}:{n}: link to {target}: no heading or anchor '#{anchor}' there")
    return problems, checked


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="pages to run (default: README.md and docs/guide/*.md)")
    parser.add_argument("--bin-dir", default=os.environ.get("AUDIOPIPE_BIN_DIR"),
                        help="directory holding audiopipe (default: $AUDIOPIPE_BIN_DIR, else ROOT/.build/release)")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                        help="the repository (default: this script's parent directory)")
    parser.add_argument("--keep", action="store_true", default=os.environ.get("KEEP") == "1",
                        help="keep each page's sandbox (also KEEP=1)")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    bin_dir = Path(args.bin_dir or root / ".build" / "release").resolve()
    if not os.access(bin_dir / "audiopipe", os.X_OK):
        print(f"check-docs: no executable audiopipe in {bin_dir} (make release, or give --bin-dir)", file=sys.stderr)
        return 2
    if not (root / "samples").is_dir():
        print(f"check-docs: {root}/samples is missing", file=sys.stderr)
        return 2
    if args.pages:
        pages = [Path(p).resolve() for p in args.pages]
        link_pages = list(pages)
    else:
        pages = [root / "README.md"] + sorted((root / "docs" / "guide").glob("*.md"))
        link_pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
        if (root / "samples" / "README.md").exists():
            link_pages.append(root / "samples" / "README.md")
    missing = [p for p in pages if not p.is_file()]
    if missing:
        print(f"check-docs: no such page: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2

    def display(p):
        try:
            return str(p.relative_to(root))
        except ValueError:
            return str(p)

    started = time.monotonic()
    counts = {"run": 0, "hidden": 0, "skipped": Counter()}
    failures = []
    for page in pages:
        t = time.monotonic()
        found = run_page(page, display(page), root, bin_dir, args.keep, counts)
        status = "FAILED" if found else "ok"
        print(f"check-docs: {display(page)}: {status} ({time.monotonic() - t:.1f} s)", file=sys.stderr)
        failures += found
    links = 0
    for page in link_pages:
        found, n = check_links(page, display(page), root)
        failures += found
        links += n
    skipped = counts["skipped"]
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(skipped.items()))
    summary = (f"check-docs: {counts['run']} run, {sum(skipped.values())} skipped"
               + (f" ({reasons})" if reasons else "")
               + f"; {counts['hidden']} hidden checks; {links} links in {len(link_pages)} pages;"
               + f" {len(pages)} pages in {time.monotonic() - started:.1f} s")
    for f in failures:
        print(f, file=sys.stderr)
    sys.stderr.flush()
    print(summary + (f"; {len(failures)} FAILED" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
