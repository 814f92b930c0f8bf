#!/usr/bin/env python3
"""Builds an agent track with earcons between its answers: what a voice agent plays besides speech.
Usage: make-earcon-agent.py AGENT.wav OUT.wav [--earcons NAME,NAME,...]
AGENT: a 16-bit PCM WAV (its channels are averaged; `audiopipe convert` makes one from other audio).
OUT (16-bit mono at AGENT's rate) is AGENT, then each earcon with 0.5 s of silence on each side and
AGENT again after it: agent, earcon 1, agent, earcon 2, ..., agent. The earcons (peak amplitudes,
linear fades):
  ding-dong  659 Hz for 0.35 s (fading over its last 0.2 s), then 523 Hz for 0.6 s (0.4 s), 0.3
  beep440    440 Hz for 0.6 s, 10 ms ramps, 0.3
  beeps1175  three 0.12 s beeps at 1175 Hz, 0.08 s apart, 0.25
  chord      262 + 330 + 392 Hz for 1.5 s (50 ms in, 0.3 s out), 0.25 in all
  chime1760  1760 Hz for 0.8 s (fading over its last 0.5 s), 0.2
  tone587    587 Hz for 1.2 s, 20 ms ramps, 0.3
Run it through random rooms to see whether the earcons' echo stops the agent:
  audiopipe session simulate --agent OUT.wav --rooms 40 --room-seed S -o DIR
(DIR/rooms.csv: false barge-ins per room; the speech alone in the same rooms is the baseline).
With --user USER.wav --user-out UOUT.wav it also writes a user track (16-bit mono at USER's rate, as
long as OUT) that talks over every earcon: USER's utterance from --user-from seconds (default 3.0) to
its first 0.3 s under -50 dBFS, starting --user-lead seconds (default 0.15) into each earcon. Whether
such a user is heard, and how late:
  audiopipe session simulate --agent OUT.wav --user UOUT.wav --rooms 40 --room-seed S -o DIR
docs/design/vad-experiments.md ("An earcon's echo in the other bands") has what these gave.
"""
import argparse
import os
import sys
import wave

import numpy as np

from utterance import first_utterance


def tone(rate, parts, seconds, fade_in, fade_out, peak):
    """Sines at the frequencies in `parts` summed to `peak`, with linear fades (seconds)."""
    t = np.arange(int(round(seconds * rate))) / rate
    x = sum(np.sin(2 * np.pi * f * t) for f in parts) / len(parts)
    envelope = np.ones_like(t)
    if fade_in > 0:
        envelope = np.minimum(envelope, t / fade_in)
    if fade_out > 0:
        envelope = np.minimum(envelope, (seconds - t) / fade_out)
    return peak * x * np.clip(envelope, 0, 1)


def earcons(rate):
    gap = np.zeros(int(0.08 * rate))
    beep = tone(rate, [1175], 0.12, 0, 0, 0.25)
    return {
        "ding-dong": np.concatenate(
            [tone(rate, [659], 0.35, 0.005, 0.2, 0.3), tone(rate, [523], 0.6, 0.005, 0.4, 0.3)]),
        "beep440": tone(rate, [440], 0.6, 0.01, 0.01, 0.3),
        "beeps1175": np.concatenate([beep, gap, beep, gap, beep, gap]),
        "chord": tone(rate, [262, 330, 392], 1.5, 0.05, 0.3, 0.25),
        "chime1760": tone(rate, [1760], 0.8, 0.005, 0.5, 0.2),
        "tone587": tone(rate, [587], 1.2, 0.02, 0.02, 0.3),
    }


def read(path):
    """A 16-bit PCM WAV's rate and its channels' mean in [-1, 1)."""
    try:
        with wave.open(path, "rb") as w:
            if w.getsampwidth() != 2:
                bits = 8 * w.getsampwidth()
                sys.exit(f"make-earcon-agent.py: {path}: {bits}-bit samples; a 16-bit PCM WAV is needed")
            rate = w.getframerate()
            channels = w.getnchannels()
            raw = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    except (OSError, EOFError, wave.Error) as e:
        sys.exit(f"make-earcon-agent.py: {path}: {e} (a 16-bit PCM WAV is needed)")
    return rate, raw.reshape(-1, channels).mean(axis=1) / 32768.0


def write(path, rate, x):
    """A 16-bit mono WAV, written beside `path` and renamed onto it (never a partial file)."""
    partial = f"{path}.partial"
    try:
        with wave.open(partial, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
        os.replace(partial, path)
    except OSError as e:
        if os.path.exists(partial):
            os.remove(partial)
        sys.exit(f"make-earcon-agent.py: {path}: {e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agent")
    parser.add_argument("out")
    parser.add_argument("--earcons", default="ding-dong,beep440,beeps1175,chord,chime1760,tone587")
    parser.add_argument("--user", help="the user's clean track (16-bit PCM WAV)")
    parser.add_argument("--user-out", help="where the user track that talks over the earcons goes")
    parser.add_argument("--user-from", type=float, default=3.0, help="the utterance's start in --user, s")
    parser.add_argument("--user-lead", type=float, default=0.15, help="how far into each earcon the user starts, s")
    a = parser.parse_args()
    if (a.user is None) != (a.user_out is None):
        sys.exit("make-earcon-agent.py: --user and --user-out go together")
    rate, speech = read(a.agent)
    if a.user:
        # (Read before anything is written: a bad --user leaves no output behind.)
        user_rate, user = read(a.user)
        first, end = first_utterance(user, user_rate, a.user_from)
        said = user[first:end]
        if len(said) == 0:
            sys.exit(f"make-earcon-agent.py: {a.user}: nothing from {a.user_from} s (--user-from)")
    table = earcons(rate)
    names = [n for n in a.earcons.split(",") if n]
    unknown = [n for n in names if n not in table]
    if unknown:
        sys.exit(f"make-earcon-agent.py: --earcons: unknown {', '.join(unknown)} (known: {', '.join(table)})")
    pad = np.zeros(int(0.5 * rate))
    parts = [speech]
    starts = []
    for n in names:
        starts.append(sum(len(p) for p in parts) / rate + 0.5)
        parts += [pad, table[n], pad, speech]
    out = np.concatenate(parts)
    write(a.out, rate, out)
    print(f"{a.out}: {len(out) / rate:.1f} s at {rate} Hz, earcons {', '.join(names)}")
    if a.user:
        track = np.zeros(int(len(out) / rate * user_rate) + len(said))
        for s in starts:
            at = int((s + a.user_lead) * user_rate)
            track[at:at + len(said)] += said
        write(a.user_out, user_rate, track)
        print(f"{a.user_out}: a {len(said) / user_rate:.2f} s utterance {a.user_lead} s into each earcon "
              f"(at {', '.join(f'{s:.2f}' for s in starts)} s)")


if __name__ == "__main__":
    main()
