#!/usr/bin/env python3
"""Run reference VADs (Silero VAD ONNX, webrtcvad) on every item of a directory and write
Audacity hypothesis label files on the detector's OUTPUT timeline (score.py convention).

    python scripts/vad-baselines.py IN_DIR OUT_DIR [--model silero_vad.onnx] [--configs a,b,...] [--extra]

Set-up (not needed by make test; the README's side-by-side table came from these):
    python3 -m venv venv && venv/bin/pip install numpy soundfile onnxruntime webrtcvad-wheels
    venv/bin/pip download silero-vad==6.2.3 --no-deps -d dl   # then unzip
        # silero_vad/data/silero_vad.onnx out of the wheel and pass it with --model
Scores as the kit publishes them (dev: every metric equal to ../shared/eval/vad/README.md's
silero_* and webrtc_m3_f10_* rows); score with ../shared/eval/vad/score.py under a Python that
has soundfile (without it score.py takes durations from the manifest or the labels).

IN_DIR: NAME.wav (16 kHz mono PCM-16); NAME.ref.wav files are skipped (these detectors never see
the far-end reference).  Writes OUT_DIR/CONFIG/NAME.txt for every config.

Timeline: a decision about the window [t, t+L) is known at t+L and is held until the next
decision, so an "on" decision for window k (start k*L) covers [(k+1)L, (k+2)L).  Hangovers extend
the end of a speech run; nothing is ever back-dated.  A trailing partial window is dropped.

Configs (main):
  silero_raw            p >= 0.5 per 32 ms window (512 samples + 64 samples of context)
  silero_stream         silero-vad VADIterator rule: on when p >= 0.5; after a window with
                        p < 0.35 (threshold - 0.15) a silence timer starts at that window's end
                        (reset only by p >= 0.5); off once the timer reaches >= 100 ms
                        (1600 samples), i.e. at the end of the 4th window after it started
  webrtc_m3_f10_raw     webrtcvad mode 3, 10 ms frames, raw per-frame decision
  webrtc_m3_f10_hang200 same, each speech run extended by 200 ms
  webrtc_m2_f30_hang200 webrtcvad mode 2, 30 ms frames, each speech run extended by 200 ms
Extra (--extra, only for comparison with the kit README's anchors):
  silero_hang200        silero raw + 192 ms (6 windows) hangover
  webrtc_m3_f10_ring300 py-webrtcvad example ring buffer: 300 ms (30 frames), trigger when
                        > 90 % voiced, release when > 90 % unvoiced (buffer cleared on each switch)
"""
import argparse
import collections
import os
import sys

import numpy as np
import soundfile as sf

SR = 16000
MAIN = ["silero_raw", "silero_stream", "webrtc_m3_f10_raw", "webrtc_m3_f10_hang200",
        "webrtc_m2_f30_hang200"]
EXTRA = ["silero_hang200", "webrtc_m3_f10_ring300"]


def list_items(d):
    return sorted(f[:-4] for f in os.listdir(d)
                  if f.endswith(".wav") and not f.endswith(".ref.wav"))


def read_pcm16(path):
    x, sr = sf.read(path, dtype="int16", always_2d=False)
    if sr != SR or x.ndim != 1:
        raise SystemExit(f"{path}: expected 16 kHz mono, got sr={sr} shape={x.shape}")
    return x


# ---------------------------------------------------------------- Silero
class Silero:
    WIN, CTX = 512, 64

    def __init__(self, model_path):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(model_path, sess_options=so,
                                         providers=["CPUExecutionProvider"])
        ins = {i.name: i for i in self.sess.get_inputs()}
        outs = [o.name for o in self.sess.get_outputs()]
        # v5/v6 names: input, state, sr -> output, stateN
        self.in_x = "input" if "input" in ins else [n for n in ins if "in" in n][0]
        self.in_state = "state" if "state" in ins else [n for n in ins if "state" in n or n == "h"][0]
        self.in_sr = "sr"
        if self.in_sr not in ins or self.in_state not in ins:
            raise SystemExit(f"unexpected model inputs {list(ins)}")
        self.out_p, self.out_state = outs[0], outs[1]

    def probs(self, pcm):
        x = pcm.astype(np.float32) / 32768.0
        n = len(x) // self.WIN
        state = np.zeros((2, 1, 128), np.float32)
        ctx = np.zeros(self.CTX, np.float32)
        sr = np.array(SR, dtype=np.int64)
        p = np.empty(n, np.float32)
        for k in range(n):
            chunk = x[k * self.WIN:(k + 1) * self.WIN]
            inp = np.concatenate([ctx, chunk])[None, :]
            out, state = self.sess.run([self.out_p, self.out_state],
                                       {self.in_x: inp, self.in_state: state, self.in_sr: sr})
            p[k] = float(np.asarray(out).reshape(-1)[0])
            ctx = inp[0, -self.CTX:]
        return p


def silero_stream_states(p, thr=0.5, neg=0.35, min_sil_samples=1600, win=512):
    """Per-window output state of silero-vad's VADIterator (no padding / back-dating)."""
    out = np.zeros(len(p), bool)
    triggered, temp_end = False, 0
    cur = 0
    for k, pk in enumerate(p):
        cur += win
        if pk >= thr and temp_end:
            temp_end = 0
        if pk >= thr and not triggered:
            triggered = True
        elif pk < neg and triggered:
            if not temp_end:
                temp_end = cur
            if cur - temp_end >= min_sil_samples:
                temp_end = 0
                triggered = False
        out[k] = triggered
    return out


# ---------------------------------------------------------------- webrtcvad
def webrtc_decisions(pcm, mode, frame_ms):
    import webrtcvad
    v = webrtcvad.Vad(mode)
    fl = SR * frame_ms // 1000
    n = len(pcm) // fl
    b = pcm.astype("<i2").tobytes()
    return np.array([v.is_speech(b[2 * k * fl:2 * (k + 1) * fl], SR) for k in range(n)], bool)


def ring_states(dec, n_ring, ratio=0.9):
    """py-webrtcvad example.py vad_collector, as a per-frame output state."""
    ring = collections.deque(maxlen=n_ring)
    trig = False
    out = np.zeros(len(dec), bool)
    for k, d in enumerate(dec):
        ring.append(bool(d))
        if not trig:
            if sum(ring) > ratio * ring.maxlen:
                trig = True
                ring.clear()
        else:
            if (len(ring) - sum(ring)) > ratio * ring.maxlen:
                trig = False
                ring.clear()
        out[k] = trig
    return out


# ---------------------------------------------------------------- output timeline
def states_to_segments(states, hop, hang=0.0):
    """states[k] = output after processing window k -> held over [(k+1)hop, (k+2)hop).
    hang (s) extends every run end."""
    segs = []
    k, n = 0, len(states)
    while k < n:
        if states[k]:
            j = k
            while j + 1 < n and states[j + 1]:
                j += 1
            s, e = (k + 1) * hop, (j + 2) * hop + hang
            if segs and s <= segs[-1][1] + 1e-9:
                segs[-1] = (segs[-1][0], max(segs[-1][1], e))
            else:
                segs.append((s, e))
            k = j + 1
        else:
            k += 1
    return segs


def write_labels(path, segs):
    with open(path, "w") as f:
        for s, e in segs:
            f.write(f"{s:.6f}\t{e:.6f}\tspeech\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--model", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "silero_vad.onnx"))
    ap.add_argument("--configs", default=None, help="comma list; default: the main five")
    ap.add_argument("--extra", action="store_true", help="also the two extra comparison configs")
    a = ap.parse_args()
    if os.path.realpath(a.in_dir) == os.path.realpath(a.out_dir):
        raise SystemExit("OUT_DIR must not be IN_DIR (its label files would be overwritten)")
    cfgs = a.configs.split(",") if a.configs else MAIN + (EXTRA if a.extra else [])
    for c in cfgs:
        if c not in MAIN + EXTRA:
            raise SystemExit(f"unknown config {c}")
        os.makedirs(os.path.join(a.out_dir, c), exist_ok=True)
    silero = Silero(a.model) if any(c.startswith("silero") for c in cfgs) else None
    items = list_items(a.in_dir)
    for name in items:
        pcm = read_pcm16(os.path.join(a.in_dir, name + ".wav"))
        res = {}
        if silero:
            p = silero.probs(pcm)
            L = Silero.WIN / SR
            raw = p >= 0.5
            res["silero_raw"] = states_to_segments(raw, L)
            res["silero_stream"] = states_to_segments(silero_stream_states(p), L)
            res["silero_hang200"] = states_to_segments(raw, L, hang=6 * L)
        if any(c.startswith("webrtc_m3_f10") for c in cfgs):
            d = webrtc_decisions(pcm, 3, 10)
            res["webrtc_m3_f10_raw"] = states_to_segments(d, 0.01)
            res["webrtc_m3_f10_hang200"] = states_to_segments(d, 0.01, hang=0.2)
            res["webrtc_m3_f10_ring300"] = states_to_segments(ring_states(d, 30), 0.01)
        if "webrtc_m2_f30_hang200" in cfgs:
            d = webrtc_decisions(pcm, 2, 30)
            res["webrtc_m2_f30_hang200"] = states_to_segments(d, 0.03, hang=0.2)
        for c in cfgs:
            write_labels(os.path.join(a.out_dir, c, name + ".txt"), res[c])
        print(f"{name}: " + " ".join(f"{c}={len(res[c])}" for c in cfgs), file=sys.stderr)
    print(f"{len(items)} items -> {a.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
