#!/usr/bin/env python3
"""Per-window speech confidence from the VADs people ship, for `audiopipe vad tune --scores` and
`audiopipe vad detect --scores`.

Usage: vad-scores.py --vad silero|webrtc|ten [--for pipecat|livekit] IN_DIR OUT_DIR

For every recording IN_DIR/NAME.wav (any file libsndfile reads; far-end references NAME.ref.wav are
skipped) writes OUT_DIR/NAME.csv: header `time_s,confidence`, one row per analysis window, time_s =
the end of the window on the recording's timeline (when a streaming client has the window), the
confidence in 0…1 written so that the float32 the model returned reads back exactly (%.9g).

The VADs, each with its framework's framing (run with the packages of
scripts/vad-frameworks/requirements.txt: `make vad-scores-venv`, then .venv-vad/bin/python):

- silero --for pipecat (default): pipecat's own SileroVADAnalyzer (the ONNX model pipecat ships),
  fed 20 ms chunks of 16-bit PCM as a pipecat transport does; 512-sample windows at 16 kHz (256 at
  8 kHz); other rates converted to 16 kHz by pipecat's stream resampler (soxr). The confidence is
  the model's output for each window. Pipecat resets the model's recurrent state about every 2 s
  of quiet, and "quiet" is its VAD state, so the scores are those of a run with the VADParams given
  by --pipecat-params (default: pipecat's defaults); other parameters can move a reset by a window
  or two (docs/design/vad-tuning.md measures what that changes).
- silero --for livekit: the model LiveKit's silero plugin ships, through its OnnxModel, windows of
  512 samples at 16 kHz scaled by 1/32767 as the plugin does; other rates converted by LiveKit's
  AudioResampler (QUICK), as the plugin does. The raw model output: the plugin's exponential
  filter (alpha 0.35) is part of its decision logic, which `--emulate livekit` applies.
- webrtc: webrtcvad (webrtcvad-wheels), 20 ms frames at 16 kHz, aggressiveness --webrtc-mode
  (default 3); confidence 0 or 1.
- ten: TEN VAD (ten-vad), hops of 256 samples at 16 kHz; its probability.

OUT_DIR/timing.json says what the VAD cost here (seconds of model and framing per 10 ms of audio,
one thread), which `vad tune --compare` shows beside the energy VAD's.

Exit codes: 0 done, 64 usage, 65 a recording that cannot be read, 66 no recording in IN_DIR,
74 OUT_DIR not writable. Outputs are written to a temporary file and renamed: a failed run leaves
no partial CSV.
"""
import argparse
import asyncio
import json
import os
import sys
import tempfile
import time

AUDIO_EXTENSIONS = {".wav", ".flac", ".ogg", ".aif", ".aiff", ".caf", ".w64", ".rf64", ".mp3", ".opus"}
EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_IOERR = 64, 65, 66, 74


def fail(code, message):
    print(f"vad-scores: {message}", file=sys.stderr)
    sys.exit(code)


def recordings(in_dir, reference_suffix):
    try:
        names = sorted(os.listdir(in_dir))
    except OSError as e:
        fail(EX_NOINPUT, f"{in_dir}: {e.strerror}")
    out = []
    for f in names:
        stem, ext = os.path.splitext(f)
        if ext.lower() in AUDIO_EXTENSIONS and not f.endswith(reference_suffix):
            out.append((stem, os.path.join(in_dir, f)))
    return out


def read_pcm16(path):
    """The recording as a client sends it: mono 16-bit PCM (numpy int16) and its rate."""
    import numpy as np
    import soundfile

    try:
        data, rate = soundfile.read(path, dtype="int16", always_2d=True)
    except Exception as e:  # soundfile raises its own error types, and RuntimeError
        fail(EX_DATAERR, f"{path}: cannot read it as audio: {e}")
    if data.shape[1] != 1:
        # A client sends one channel: the mean of the channels, as audiopipe convert --channels 1.
        data = np.round(data.astype(np.float64).mean(axis=1, keepdims=True)).astype(np.int16)
    return np.ascontiguousarray(data[:, 0]), int(rate)


def pipecat_resample(pcm, rate, target):
    from pipecat.audio.utils import create_stream_resampler
    import numpy as np

    resampler = create_stream_resampler()
    out = []
    chunk = rate // 50  # 20 ms, as a transport delivers it
    for i in range(0, len(pcm), chunk):
        out.append(asyncio.run(resampler.resample(pcm[i : i + chunk].tobytes(), rate, target)))
    return np.frombuffer(b"".join(out), dtype=np.int16), target


class RecordingSileroAnalyzer:
    """pipecat's SileroVADAnalyzer, recording each window's confidence and the state after each
    chunk (the parity script uses the states)."""

    def __new__(cls, rate, params):
        import numpy as np
        from pipecat.audio.vad.silero import SileroVADAnalyzer

        class Recording(SileroVADAnalyzer):
            def __init__(self):
                super().__init__(sample_rate=rate, params=params)
                self.confidences = []

            def voice_confidence(self, buffer):
                c = super().voice_confidence(buffer)
                self.confidences.append(float(np.asarray(c).reshape(-1)[0]))
                return c

        analyzer = Recording()
        analyzer.set_sample_rate(rate)
        return analyzer


def pipecat_params(text):
    from pipecat.audio.vad.vad_analyzer import VADParams

    try:
        values = json.loads(text) if text else {}
        if "pipecat" in values:
            values = values["pipecat"]
        return VADParams(**values)
    except Exception as e:
        fail(EX_USAGE, f"--pipecat-params: {e}")


def silero_pipecat(pcm, rate, args):
    if rate not in (8000, 16000):
        pcm, rate = pipecat_resample(pcm, rate, 16000)
    analyzer = RecordingSileroAnalyzer(rate, pipecat_params(args.pipecat_params))
    window = analyzer.num_frames_required()
    chunk = rate * args.chunk_ms // 1000
    for i in range(0, len(pcm), chunk):
        analyzer._run_analyzer(pcm[i : i + chunk].tobytes())
    return [((k + 1) * window / rate, c) for k, c in enumerate(analyzer.confidences)], rate


def silero_livekit(pcm, rate, args):
    import numpy as np
    from livekit.plugins.silero import onnx_model

    if rate not in (8000, 16000):
        from livekit import rtc

        resampler = rtc.AudioResampler(
            input_rate=rate, output_rate=16000, quality=rtc.AudioResamplerQuality.QUICK)
        frames = []
        step = rate // 100
        for i in range(0, len(pcm), step):
            piece = pcm[i : i + step]
            frames += resampler.push(rtc.AudioFrame(piece.tobytes(), rate, 1, len(piece)))
        frames += resampler.flush()
        pcm = np.concatenate([np.frombuffer(f.data, dtype=np.int16) for f in frames])
        rate = 16000
    model = onnx_model.OnnxModel(onnx_session=onnx_model.new_inference_session(True), sample_rate=rate)
    window = model.window_size_samples
    x = np.empty(window, dtype=np.float32)
    rows = []
    for k in range(len(pcm) // window):
        np.divide(pcm[k * window : (k + 1) * window], np.iinfo(np.int16).max, out=x, dtype=np.float32)
        rows.append(((k + 1) * window / rate, float(model(x))))
    return rows, rate


def to_16k(pcm, rate):
    if rate == 16000:
        return pcm, rate
    return pipecat_resample(pcm, rate, 16000)


def webrtc(pcm, rate, args):
    import webrtcvad

    pcm, rate = to_16k(pcm, rate)
    vad = webrtcvad.Vad(args.webrtc_mode)
    frame = rate // 50
    return [
        ((k + 1) * frame / rate, 1.0 if vad.is_speech(pcm[k * frame : (k + 1) * frame].tobytes(), rate) else 0.0)
        for k in range(len(pcm) // frame)
    ], rate


def ten(pcm, rate, args):
    from ten_vad import TenVad

    pcm, rate = to_16k(pcm, rate)
    hop = 256
    vad = TenVad(hop_size=hop)
    rows = []
    for k in range(len(pcm) // hop):
        probability, _ = vad.process(pcm[k * hop : (k + 1) * hop])
        rows.append(((k + 1) * hop / rate, float(probability)))
    return rows, rate


def write_text_atomically(path, text):
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_atomically(path, rows):
    write_text_atomically(path, "time_s,confidence\n" + "".join(f"{t:.6f},{c:.9g}\n" for t, c in rows))


def quiet_logs():
    """pipecat logs every parameter change at DEBUG through loguru: warnings and errors only."""
    try:
        from loguru import logger
    except ImportError:
        return
    logger.remove()
    logger.add(sys.stderr, level="WARNING")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vad", required=True, choices=["silero", "webrtc", "ten"])
    p.add_argument("--for", dest="framework", default="pipecat", choices=["pipecat", "livekit"],
                   help="silero's framing: pipecat's analyzer (default) or LiveKit's plugin")
    p.add_argument("--pipecat-params", help="JSON VADParams driving pipecat's model resets (default: its defaults)")
    p.add_argument("--chunk-ms", type=int, default=20, help="pipecat: transport chunk (default 20 ms)")
    p.add_argument("--webrtc-mode", type=int, default=3, choices=[0, 1, 2, 3])
    p.add_argument("--reference-suffix", default=".ref.wav")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("in_dir")
    p.add_argument("out_dir")
    try:
        args = p.parse_args()
    except SystemExit as e:
        sys.exit(EX_USAGE if e.code else 0)
    if args.chunk_ms <= 0:
        fail(EX_USAGE, "--chunk-ms must be positive")
    quiet_logs()
    items = recordings(args.in_dir, args.reference_suffix)
    if not items:
        fail(EX_NOINPUT, f"{args.in_dir}: no recording in it ({', '.join(sorted(AUDIO_EXTENSIONS))})")
    try:
        os.makedirs(args.out_dir, exist_ok=True)
    except OSError as e:
        fail(EX_IOERR, f"{args.out_dir}: {e.strerror}")
    if not os.access(args.out_dir, os.W_OK):
        fail(EX_IOERR, f"{args.out_dir}: not writable")
    if args.vad == "silero":
        run = silero_livekit if args.framework == "livekit" else silero_pipecat
    else:
        run = webrtc if args.vad == "webrtc" else ten
    seconds, windows, audio_seconds = 0.0, 0, 0.0
    for name, path in items:
        pcm, rate = read_pcm16(path)
        started = time.perf_counter()
        rows, _ = run(pcm, rate, args)
        seconds += time.perf_counter() - started
        windows += len(rows)
        audio_seconds += len(pcm) / rate
        write_atomically(os.path.join(args.out_dir, name + ".csv"), rows)
        if not args.quiet:
            print(f"{path}: {len(rows)} windows -> {args.out_dir}/{name}.csv", file=sys.stderr)
    # What the VAD costs here (its framework's framing and model, one thread), for vad tune --compare.
    timing = {
        "vad": args.vad, "for": args.framework if args.vad == "silero" else None, "windows": windows,
        "audio_seconds": audio_seconds, "seconds": seconds,
        "microseconds_per_10ms": seconds / audio_seconds * 0.01 * 1e6 if audio_seconds else None,
    }
    write_text_atomically(os.path.join(args.out_dir, "timing.json"), json.dumps(timing, indent=1) + "\n")


if __name__ == "__main__":
    main()
