#!/usr/bin/env python3
"""Barge-in items as a client hears them after its own echo canceller: every NAME.wav of SRC (with
its NAME.ref.wav, what was played) run through a real canceller, written to OUT with the reference
and the labels (NAME.txt) beside it, for `scripts/session-eval.py`. It measures the barge-in
detector on the microphone a browser or a phone hands an app with echo cancellation on — the
canceller's residual, not the room's echo (docs/design/vad-experiments.md, "The client's echo
canceller ahead of the detector").

    python3 scripts/make-bargein-items.py --seed 5001 --count 20 /tmp/items
    python3 scripts/echo-cancelled-items.py /tmp/items /tmp/items-webrtc --canceller webrtc-moderate
    scripts/session-eval.py .build/release/audiopipe /tmp/items-webrtc

Cancellers (built here from scripts/echo-cancellers/ with gcc and g++):
  webrtc-low, webrtc-moderate, webrtc-high  WebRTC's audio processing module (Debian
      libwebrtc-audio-processing-dev 0.3): its canceller with the extended filter and delay-agnostic
      mode, at that suppression level, and its high-pass filter;
  speex, speex-suppressor  speexdsp's MDF canceller (Debian libspeexdsp-dev), a 256 ms filter,
      without or with its residual echo suppressor.
Items must be 16-bit PCM mono; WebRTC takes 8, 16, 32 or 48 kHz. Exit 1 on a missing library or
compiler, a bad item, a canceller that fails (OUT then gets nothing) or OUT the same folder as SRC;
2 on bad arguments.
"""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile
import wave

HERE = pathlib.Path(__file__).resolve().parent / "echo-cancellers"
CANCELLERS = {
    "webrtc-low": ("webrtc", ["0"]), "webrtc-moderate": ("webrtc", ["1"]), "webrtc-high": ("webrtc", ["2"]),
    "speex": ("speex", ["256", "0"]), "speex-suppressor": ("speex", ["256", "1"]),
}
BUILDS = {
    "webrtc": ("g++", "webrtc_apm.cc", "webrtc-audio-processing", "libwebrtc-audio-processing-dev"),
    "speex": ("gcc", "speex_mdf.c", "speexdsp", "libspeexdsp-dev"),
}


def build(kind, tmp):
    compiler, source, package, debian = BUILDS[kind]
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", package], capture_output=True, text=True)
    if shutil.which(compiler) is None or flags.returncode != 0:
        sys.exit(f"echo-cancelled-items: {package} or {compiler} not found (Debian: apt-get install {debian} "
                 f"{'g++' if compiler == 'g++' else 'gcc'} pkg-config)")
    binary = pathlib.Path(tmp) / kind
    built = subprocess.run([compiler, "-O2", "-o", str(binary), str(HERE / source)] + flags.stdout.split(),
                           capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"echo-cancelled-items: {source} did not build:\n{built.stderr.strip()}")
    return binary


def pcm(path):
    """A 16-bit mono WAV's rate and raw samples."""
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            sys.exit(f"echo-cancelled-items: {path}: needs 16-bit PCM mono")
        return w.getframerate(), w.readframes(w.getnframes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--canceller", required=True, choices=sorted(CANCELLERS))
    a = ap.parse_args()
    src, out = pathlib.Path(a.src), pathlib.Path(a.out)
    items = sorted(p for p in src.glob("*.wav") if not p.name.endswith(".ref.wav")
                   and p.with_suffix(".ref.wav").exists())
    if not items:
        sys.exit(f"echo-cancelled-items: {src}: no NAME.wav with a NAME.ref.wav")
    if out.resolve() == src.resolve():
        sys.exit(f"echo-cancelled-items: {out}: is the source folder; give another (the items are not overwritten)")
    kind, args = CANCELLERS[a.canceller]
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(kind, tmp)
        # The whole set is made in a staging folder first: a bad item or a failing canceller leaves
        # nothing in OUT.
        staged = pathlib.Path(tmp) / "items"
        staged.mkdir()
        for item in items:
            reference = item.with_suffix(".ref.wav")
            rate, mic = pcm(item)
            ref_rate, ref = pcm(reference)
            if ref_rate != rate:
                sys.exit(f"echo-cancelled-items: {reference}: {ref_rate} Hz, the microphone {rate} Hz")
            paths = [pathlib.Path(tmp) / n for n in ("mic.raw", "ref.raw", "out.raw")]
            paths[0].write_bytes(mic)
            paths[1].write_bytes(ref)
            done = subprocess.run([str(binary)] + [str(p) for p in paths] + [str(rate)] + args,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"echo-cancelled-items: {item}: the canceller failed: {done.stderr.strip()}")
            with wave.open(str(staged / item.name), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(rate)
                w.writeframes(paths[2].read_bytes())
            shutil.copyfile(reference, staged / reference.name)
            labels = item.with_suffix(".txt")
            if labels.exists():
                shutil.copyfile(labels, staged / labels.name)
        out.mkdir(parents=True, exist_ok=True)
        for made in staged.iterdir():
            shutil.move(str(made), out / made.name)
    print(f"echo-cancelled-items: {len(items)} items through {a.canceller} into {out}")


if __name__ == "__main__":
    main()
