#!/usr/bin/env python3
"""Fresh barge-in items like the VAD kit's (`../shared/eval/vad/dev`, noise=bargein), from other
seeds: for checking a barge-in detector on rooms and talkers its settings never saw.

Each item is NAME.wav (the microphone: the agent's echo, the user's speech and a pink noise floor),
NAME.ref.wav (what the client played, on the same timeline) and NAME.txt (the user's speech as
Audacity labels), 16 kHz mono PCM-16, plus manifest.csv with the kit's columns. Following the
kit's README: the agent (espeak-ng) talks almost continuously, 5-6 utterances with pauses of
0.3-1.2 s and sometimes a turn gap of 2-3.5 s, at an active level of -26 to -18 dBFS; the echo
path has a delay of 20-120 ms, a small loudspeaker's band (high-pass 300-600 Hz, low-pass
3.4-6.5 kHz, one resonance of 2-7.5 dB at 1-3 kHz), a reverberant tail (RT60 0.15-0.5 s,
direct-to-reverberant ratio 0-12 dB) and on some items soft clipping in the loudspeaker; 1-4 user
utterances of 0.5-3 s, mostly while the agent talks; echo-to-user ratio 6, 0, -6, -12 or -20 dB;
a pink floor at -70 to -60 dBFS. Labels are made as the kit makes them, from the clean user
speech: 10 ms frames within 40 dB of the utterance's loudest, gaps under 150 ms bridged, runs
under 30 ms dropped, 20 ms added at the end of each run.

A guess at how the kit's held-out items are made (its generator is not public), not a copy of
them: the figures it gives are for a method's robustness, never a target to tune to.

    python3 scripts/make-bargein-items.py --seed 101 --count 10 /tmp/bargein-101
    scripts/session-eval.py .build/release/audiopipe /tmp/bargein-101

Needs numpy, scipy, espeak-ng and sox. The user's voices are espeak-ng's, and also the kit's real
read speech (`sources/`) when `--kit` names the kit, trimmed to its speech as espeak's output is
(`speech_span`; manifest `source` = real). Items from before that change (2026-11-28) pasted the
recordings whole: the same seed now draws other items. `--stems` also writes what was mixed.
"""
import argparse
import csv
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import butter, lfilter, resample_poly, sosfilt

SR = 16000
AGENT_VOICES = ["en-us+f3", "en+john", "en-us+m3", "en+f4", "en-gb+m2", "en-us+f2"]
USER_VOICES = ["en+m1", "en-us+f5", "en-gb-scotland+m4", "en+klatt3", "en-us+m7", "en+f2"]
WORDS = ("the a you can will now then we it this that time way day thing call order help please "
         "account number weather today tomorrow morning evening price ticket train flight hotel room "
         "music play stop next question answer sure right okay great thanks sorry wait listen check "
         "send message phone home office meeting five seven twelve twenty later first last").split()
RATIOS = [6, 0, -6, -12, -20]


def speak(text, voice, rng):
    with tempfile.NamedTemporaryFile(suffix=".wav") as f:
        speed = int(rng.uniform(150, 190))
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", f.name, text], check=True,
                       capture_output=True)
        rate, x = wavfile.read(f.name)
    x = x.astype(np.float64) / 32768
    if rate != SR:
        g = np.gcd(rate, SR)
        x = resample_poly(x, SR // g, rate // g)
    # Trim espeak's leading and trailing silence.
    nz = np.flatnonzero(np.abs(x) > 1e-3)
    return x[nz[0]:nz[-1] + 1] if len(nz) else x


def sentence(rng, words):
    return " ".join(rng.choice(WORDS, size=words))


def active_level(x):
    """Power mean over the 10 ms frames within 40 dB of the loudest (dBFS)."""
    f = frames_db(x)
    act = f[f > f.max() - 40]
    return 10 * np.log10(np.mean(10 ** (act / 10)))


def frames_db(x):
    n = len(x) // 160
    e = np.mean(x[:n * 160].reshape(n, 160) ** 2, axis=1)
    return 10 * np.log10(e + 1e-20)


def scale_to(x, dbfs):
    return x * 10 ** ((dbfs - active_level(x)) / 20)


def pink(n, rng):
    w = rng.standard_normal(n)
    # Paul Kellet's economy pink filter.
    b = [0.049922035, -0.095993537, 0.050612699, -0.004408786]
    a = [1, -2.494956002, 2.017265875, -0.522189400]
    p = lfilter(b, a, w)
    return p / np.sqrt(np.mean(p ** 2))


def peak_biquad(f0, gain_db, q):
    w = 2 * np.pi * f0 / SR
    alpha = np.sin(w) / (2 * q)
    A = 10 ** (gain_db / 40)
    b = [1 + alpha * A, -2 * np.cos(w), 1 - alpha * A]
    a = [1 + alpha / A, -2 * np.cos(w), 1 - alpha / A]
    return np.array(b) / a[0], np.array(a) / a[0]


def echo_path(ref, rng):
    """The loudspeaker (soft clipping, band, resonance), the room (direct path plus a reverberant
    tail) and the delay; returns the echo at unit gain and the parameters."""
    p = {
        "delay_ms": rng.uniform(20, 120), "lo": rng.uniform(300, 600), "hi": rng.uniform(3400, 6500),
        "peak_hz": rng.uniform(1000, 3000), "peak_db": rng.uniform(2, 7.5), "rt60": rng.uniform(0.15, 0.5),
        "drr": rng.uniform(0, 12), "drive": rng.uniform(1.5, 3.5) if rng.random() < 0.5 else None,
    }
    y = ref.copy()
    if p["drive"]:
        y = np.tanh(p["drive"] * y) / p["drive"]
    y = sosfilt(butter(2, p["lo"], "highpass", fs=SR, output="sos"), y)
    y = sosfilt(butter(4, p["hi"], "lowpass", fs=SR, output="sos"), y)
    b, a = peak_biquad(p["peak_hz"], p["peak_db"], 1.4)
    y = lfilter(b, a, y)
    n = int(1.2 * p["rt60"] * SR)
    t = np.arange(n) / SR
    tail = rng.standard_normal(n) * np.exp(-6.91 * t / p["rt60"])
    tail[: int(0.003 * SR)] = 0
    tail *= np.sqrt(10 ** (-p["drr"] / 10) / np.sum(tail ** 2))
    h = tail
    h[0] = 1.0
    y = np.convolve(y, h)[: len(ref)]
    d = int(round(p["delay_ms"] * SR / 1000))
    return np.concatenate([np.zeros(d), y[: len(y) - d]]), p


def labels(clean, starts, floors):
    """The kit's labelling of the user's clean speech, per utterance (start sample, length, and the
    recording's own floor in dB relative to the utterance as placed: frames must also be 10 dB above
    it, as the kit asks of real recordings; -inf for synthetic speech)."""
    segs = []
    for (s, n), floor in zip(starts, floors):
        f = frames_db(clean[s:s + n])
        on = (f > f.max() - 40) & (f > floor + 10)
        runs, i = [], 0
        while i < len(on):
            if on[i]:
                j = i
                while j < len(on) and on[j]:
                    j += 1
                runs.append([i, j])
                i = j
            else:
                i += 1
        merged = []
        for r in runs:
            if merged and (r[0] - merged[-1][1]) * 0.01 < 0.15:
                merged[-1][1] = r[1]
            else:
                merged.append(r)
        for a, b in merged:
            if (b - a) * 0.01 >= 0.03:
                segs.append((s / SR + a * 0.01, s / SR + b * 0.01 + 0.02))
    return segs


def real_utterances(kit):
    """The kit's real read speech (LibriSpeech and CMU ARCTIC in `sources/`), through sox: per
    recording its name, its speech (`speech_span`) and its floor (its quietest 10 ms frames, the
    10th percentile, over the whole recording)."""
    if not kit:
        return []
    out = []
    for p in sorted((pathlib.Path(kit) / "sources").glob("*/*.flac")):
        if "noise" in str(p) or "aishell" in str(p):
            continue
        with tempfile.NamedTemporaryFile(suffix=".wav") as f:
            subprocess.run(["sox", str(p), "-r", str(SR), "-c", "1", "-b", "16", f.name], check=True)
            _, x = wavfile.read(f.name)
        x = x.astype(np.float64) / 32768
        floor = np.percentile(frames_db(x), 10)
        out.append((p.stem, speech_span(x, floor), floor))
    return out


def speech_span(x, floor):
    """A recording from 30 ms before its first labelled frame to 50 ms after its last (the kit's
    label rule), faded in and out over 10 ms — as espeak's output is trimmed of its silence. A
    recording's lead-in holds its room's noise or a breath, up to 35 dB under the speech and above
    the items' floor: pasted whole, it was a noise switching on 0.2-0.4 s before the user talked,
    which no room does (three false barge-ins on seeds 2301-2304 before this)."""
    f = frames_db(x)
    on = np.flatnonzero((f > f.max() - 40) & (f > floor + 10))
    if not len(on):
        return x
    a = max(0, on[0] * 160 - int(0.03 * SR))
    b = min(len(x), (on[-1] + 1) * 160 + int(0.05 * SR))
    y = x[a:b].copy()
    ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(160) / 160)
    y[:160] *= ramp
    y[-160:] *= ramp[::-1]
    return y


def make_item(index, rng, real):
    ratio = RATIOS[index % len(RATIOS)]
    agent_voice = AGENT_VOICES[rng.integers(len(AGENT_VOICES))]
    utts = int(rng.integers(5, 7))
    gap_at = int(rng.integers(1, utts)) if rng.random() < 0.6 else None
    parts, t = [np.zeros(int(rng.uniform(0.3, 0.8) * SR))], 0
    for u in range(utts):
        parts.append(speak(sentence(rng, int(rng.integers(4, 10))), agent_voice, rng))
        pause = rng.uniform(2.0, 3.5) if u == gap_at else rng.uniform(0.3, 1.2)
        parts.append(np.zeros(int(pause * SR)))
    ref = np.concatenate(parts)
    ref_active = rng.uniform(-26, -18)
    ref = scale_to(ref, ref_active)
    echo, path = echo_path(ref, rng)
    # The user: 1-4 utterances of 0.5-3 s, mostly while the agent talks.
    user = np.zeros(len(ref))
    playing = np.convolve(np.abs(ref) > 1e-3, np.ones(1600), "same") > 0
    count = int(rng.integers(1, 5))
    user_voice = USER_VOICES[rng.integers(len(USER_VOICES))]
    placed, talker = [], user_voice
    use_real = real and rng.random() < 0.5
    if use_real:
        talker = real[rng.integers(len(real))][0]
    for _ in range(count):
        if use_real:
            name, x, floor = real[rng.integers(len(real))]
            x = x[: int(rng.uniform(0.5, 3.0) * SR)]
        else:
            x = speak(sentence(rng, int(rng.integers(2, 6))), user_voice, rng)[: int(3.0 * SR)]
            floor = -np.inf
        for _attempt in range(50):
            s = int(rng.uniform(0.5, len(ref) / SR - len(x) / SR - 0.2) * SR)
            if s < 0:
                break
            overlaps = any(s < b + int(0.4 * SR) and a < s + len(x) + int(0.4 * SR) for a, b, _ in placed)
            wants_agent = rng.random() < 0.8
            if not overlaps and (playing[s] or not wants_agent):
                placed.append((s, s + len(x), floor))
                user[s:s + len(x)] += x
                break
    if not placed:
        return None
    placed.sort()
    user_level = rng.uniform(-32, -24)
    gain_db = user_level - active_level(user)
    user = scale_to(user, user_level)
    echo_level = user_level + ratio
    echo = scale_to(echo, echo_level)
    floor = rng.uniform(-70, -60)
    noise = pink(len(ref), rng) * 10 ** (floor / 20)
    mic = user + echo + noise
    peak = np.max(np.abs(mic))
    gain = 0.0
    if peak > 0.99:
        gain = 20 * np.log10(0.99 / peak)
        mic, ref, user = mic * 0.99 / peak, ref * 0.99 / peak, user * 0.99 / peak
    segs = labels(user, [(a, b - a) for a, b, _ in placed], [f + gain_db + gain for _, _, f in placed])
    detail = (f"agent={agent_voice} ({utts} utts{'' if gap_at is None else ', turn gap'}) "
              f"ref_active={ref_active:.1f} dBFS; bargeins={len(placed)}; echo_active={echo_level:.1f} dBFS "
              f"erl={echo_level - ref_active:.1f} dB delay={path['delay_ms']:.0f} ms "
              f"band={path['lo']:.0f}-{path['hi']:.0f} Hz peak={path['peak_db']:.1f} dB@{path['peak_hz']:.0f} Hz "
              f"rt60={path['rt60']:.2f} s drr={path['drr']:.1f} dB "
              f"softclip={'none' if path['drive'] is None else '%.2f' % path['drive']}; floor pink {floor:.1f} dBFS")
    return {"mic": mic, "ref": ref, "user": user, "echo": echo * 10 ** (gain / 20), "labels": segs, "ratio": ratio,
            "user_level": user_level, "gain": gain, "talker": talker, "source": "real" if use_real else "tts",
            "detail": detail, "peak": 20 * np.log10(np.max(np.abs(mic)) + 1e-12)}


def pcm16(x):
    return (np.clip(x, -1, 32767 / 32768) * 32768).round().astype(np.int16)


def write_manifest(out, rows):
    """OUT/manifest.csv: one row per item, the columns of the first row (the kit's score.py reads it)."""
    with open(out / "manifest.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--kit", help="the VAD kit (../shared/eval/vad), for its real read speech")
    ap.add_argument("--stems", action="store_true",
                    help="also write OUT/stems/NAME.user.wav and NAME.echo.wav (what the microphone mixed)")
    ap.add_argument("out")
    a = ap.parse_args()
    missing = [tool for tool in ("espeak-ng", "sox") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"make-bargein-items: {' and '.join(missing)} not found (Debian: apt-get install {' '.join(missing)})")
    rng = np.random.default_rng(a.seed)
    real = real_utterances(a.kit)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, i = [], 0
    while len(rows) < a.count:
        item = make_item(i, rng, real)
        i += 1
        if item is None:
            continue
        ratio = item["ratio"]
        name = f"{len(rows) + 1:03d}_s{a.seed}_bargein_{'m' if ratio < 0 else ''}{abs(ratio)}"
        wavfile.write(out / f"{name}.wav", SR, pcm16(item["mic"]))
        wavfile.write(out / f"{name}.ref.wav", SR, pcm16(item["ref"]))
        if a.stems:
            (out / "stems").mkdir(exist_ok=True)
            wavfile.write(out / "stems" / f"{name}.user.wav", SR, pcm16(item["user"]))
            wavfile.write(out / "stems" / f"{name}.echo.wav", SR, pcm16(item["echo"]))
        with open(out / f"{name}.txt", "w") as f:
            for s, e in item["labels"]:
                f.write(f"{s:.6f}\t{e:.6f}\tspeech\n")
        dur = len(item["mic"]) / SR
        rows.append({"name": name, "source": item["source"], "noise": "bargein", "snr": ratio,
                     "speech_level_dbfs": f"{item['user_level']:.1f}", "peak_dbfs": f"{item['peak']:.1f}",
                     "mix_gain_db": f"{item['gain']:.1f}", "talker": item["talker"], "duration_s": f"{dur:.2f}",
                     "speech_s": f"{sum(e - s for s, e in item['labels']):.2f}", "n_segments": len(item["labels"]),
                     "seed": a.seed, "ref": f"{name}.ref.wav", "detail": item["detail"]})
        print(name, item["detail"], file=sys.stderr)
    write_manifest(out, rows)


if __name__ == "__main__":
    main()
