"""scripts/check-docs.py on small made-up pages, with a stand-in audiopipe (make test-check-docs)."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check-docs.py"


class CheckDocs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name) / "repo"
        (self.root / "samples").mkdir(parents=True)
        (self.root / "samples" / "in.txt").write_text("input\n")
        (self.root / "docs" / "guide").mkdir(parents=True)
        self.bin = Path(self.tmp.name) / "bin"
        self.bin.mkdir()
        fake = self.bin / "audiopipe"
        fake.write_text("#!/bin/sh\necho \"audiopipe $*\"\n[ \"$1\" != fail ] || { echo 'audiopipe: it failed' >&2; exit 65; }\n")
        fake.chmod(0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def page(self, name, text):
        path = self.root / name
        path.write_text(textwrap.dedent(text))
        return path

    def run_check(self, *pages):
        args = [sys.executable, str(SCRIPT), "--root", str(self.root), "--bin-dir", str(self.bin)]
        env = {k: v for k, v in os.environ.items() if k != "KEEP"}
        return subprocess.run(args + [str(p) for p in pages], capture_output=True, text=True, env=env)

    def test_blocks_run_in_order_in_one_sandbox_with_the_binary_on_path(self):
        page = self.page("README.md", """\
            # Title
            ```sh
            audiopipe info samples/in.txt > out.txt
            ```
            <!-- check-docs: grep -q 'audiopipe info samples/in.txt' out.txt -->
            ```sh
            test "$HOME" = "$PWD" && test "$LC_ALL" = C && test "$COLUMNS" = 100 && ! read -r line
            ```
            ```console
            $ never run
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 run, 0 skipped; 1 hidden checks", r.stdout)

    def test_a_failing_block_fails_with_its_line_and_stderr(self):
        page = self.page("docs/guide/bad.md", """\
            # Bad
            ```sh
            echo fine
            ```
            Text.
            ```sh
            audiopipe fail something
            echo never
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 1)
        self.assertIn("docs/guide/bad.md:6: block exited 65, expected 0", r.stderr)
        self.assertIn("audiopipe: it failed", r.stderr)
        self.assertIn("FAILED", r.stdout)

    def test_an_expected_status_passes_and_a_skip_is_counted_by_reason(self):
        page = self.page("docs/guide/ok.md", """\
            # Ok
            ```sh exit=65
            audiopipe fail on purpose
            ```
            ```sh skip=cluster
            sbatch never.sbatch
            ```
            ```sh
            true
            ```
            ```sh timeout=5
            true
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 run, 1 skipped (cluster 1)", r.stdout)

    def test_too_many_skips_an_unknown_reason_and_a_prompt_are_errors(self):
        page = self.page("docs/guide/skips.md", """\
            # Skips
            ```sh skip=long
            sleep 100
            ```
            ```sh skip=because
            true
            ```
            ```sh
            $ audiopipe --version
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 1)
        self.assertIn("skip=because: the reason is one of", r.stderr)
        self.assertIn("docs/guide/skips.md:9: a '$ ' prompt inside ```sh", r.stderr)
        self.assertIn("2 of 3 sh blocks skipped; at most one in four", r.stderr)

    def test_writing_into_samples_fails_the_page(self):
        page = self.page("docs/guide/writes.md", """\
            # Writes
            ```sh
            echo changed > samples/in.txt
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the examples changed samples/", r.stderr)
        self.assertEqual((self.root / "samples" / "in.txt").read_text(), "input\n")

    def test_a_timeout_stops_the_block(self):
        page = self.page("docs/guide/slow.md", """\
            # Slow
            ```sh timeout=0.5
            sleep 30
            ```
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 1)
        self.assertIn("timed out after 0.5 s", r.stderr)

    def test_links_and_anchors_are_checked(self):
        self.page("docs/guide/target.md", "# Target\n## Check the result\n")
        page = self.page("README.md", """\
            # Links
            [good](docs/guide/target.md#check-the-result) [self](#links) [web](https://example.com)
            [missing](docs/guide/none.md) [bad anchor](docs/guide/target.md#nowhere)
            `[in code](nowhere.md)`
            """)
        r = self.run_check(page)
        self.assertEqual(r.returncode, 1)
        self.assertIn("README.md:3: link to docs/guide/none.md: docs/guide/none.md does not exist", r.stderr)
        self.assertIn("README.md:3: link to docs/guide/target.md#nowhere: no heading or anchor", r.stderr)
        self.assertNotIn("nowhere.md", r.stderr)
        self.assertIn("4 links in 1 pages", r.stdout)


if __name__ == "__main__":
    unittest.main()
