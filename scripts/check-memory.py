#!/usr/bin/env python3
"""Bounded memory on hour-long inputs (CI: make check-memory).

Generates a 60-minute captured session (OpenAI Realtime server audio, 20 ms messages with arrival
times: about 260 MB of JSON Lines), the same as a HAR export, 60 minutes of 48 kHz stereo float
audio, and a 60-minute barge-in conversation (16 kHz: a microphone with the agent's echo and the
user talking over it, the played reference and the user's labels; the agent's 24 kHz audio and the
user's clean track), then runs deframe, jitter play, convert, vad detect (also with --reference,
--explain and --frames) and session simulate (recorded, synthetic at 48 kHz, the captured session as the agent,
and a 200-room sweep of the 28 s sample scenario) on them and checks each peak RSS against the
budget (the jobs stream: memory does not grow with the input).
Usage: check-memory.py PATH/TO/audiopipe [WORKDIR]
Without WORKDIR the inputs (about 5 GB) go to a temporary folder that is removed at the end; a WORKDIR
is kept, so a rerun reuses its inputs (`make check-memory CHECK_MEMORY_CACHE=DIR`).
"""
import atexit, base64, json, math, os, random, resource, shutil, struct, subprocess, sys, tempfile, wave

BUDGET_MB = 150
binary = sys.argv[1]
if len(sys.argv) > 2:
    work = sys.argv[2]
else:
    work = tempfile.mkdtemp(prefix="audiopipe-memory-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)
os.makedirs(work, exist_ok=True)
jsonl, har, wav = (os.path.join(work, n) for n in ("session60.jsonl", "session60.har", "long60.wav"))

if not os.path.exists(jsonl):
    random.seed(1)
    tone = struct.pack("<480h", *[int(8000 * math.sin(2 * math.pi * 220 * i / 24000)) for i in range(480)])
    silent = bytes(960)
    t = 1700000000.0
    with open(jsonl, "w") as out:
        for utt in range(60):  # 60 responses of 60 s
            for k in range(3000):
                pcm = tone if k % 50 == 0 else silent
                msg = json.dumps({"type": "response.output_audio.delta", "response_id": f"r{utt}",
                                  "delta": base64.b64encode(pcm).decode()}, separators=(",", ":"))
                t += 0.02 + random.uniform(-0.005, 0.005)
                out.write(json.dumps({"type": "receive", "time": round(t, 4), "opcode": 1, "data": msg}, separators=(",", ":")) + "\n")
            done = json.dumps({"type": "response.done"})
            out.write(json.dumps({"type": "receive", "time": round(t, 4), "opcode": 1, "data": done}, separators=(",", ":")) + "\n")
if not os.path.exists(har):
    with open(jsonl) as f, open(har, "w") as out:
        out.write('{"log":{"version":"1.2","entries":[{"_resourceType":"websocket","_webSocketMessages":[')
        for i, line in enumerate(f):
            out.write(("," if i else "") + line.strip())
        out.write("]}]}}")
if not os.path.exists(wav):
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32", wav,
                    "synth", "3600", "pinknoise", "gain", "-12"], check=True)


def conversation(work):
    """A minute of barge-in conversation, repeated to an hour with sox: the agent answers six times
    a minute (6 s of a voiced 110 Hz signal), the user talks over two of the answers (1.5 s at
    210 Hz); the microphone holds the agent's echo (40 ms, -10 dB), the user and a faint noise."""
    names = {n: os.path.join(work, n) for n in ("mic60.wav", "ref60.wav", "user60.txt", "agent60.wav", "user60.wav")}
    if all(os.path.exists(p) for p in names.values()):
        return names

    def voice(t, f0, level):
        v = sum(math.sin(2 * math.pi * f0 * h * t) / h for h in range(1, 5))
        return v * (0.6 + 0.4 * math.sin(2 * math.pi * 4 * t)) * level

    def write(path, x, rate):
        with wave.open(path, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
            w.writeframes(struct.pack("<%dh" % len(x), *[max(-32767, min(32767, int(v * 32767))) for v in x]))

    def minute(rate, agent=True, echo=False, user=False):
        x = [0.0] * (60 * rate)
        for start in range(1, 60, 10) if agent else ():
            for k in range(start * rate, (start + 6) * rate):
                x[k] = voice(k / rate, 110, 0.25)
        if echo:
            d = int(0.04 * rate)
            x = [0.3 * x[k - d] + random.uniform(-1, 1) * 0.0005 if k >= d else 0.0 for k in range(len(x))]
        for start in (4, 34) if user else ():
            for k in range(start * rate, int((start + 1.5) * rate)):
                x[k] += voice(k / rate, 210, 0.3)
        return x

    random.seed(1)
    for name, rate, x in [("mic60.wav", 16000, minute(16000, echo=True, user=True)),
                          ("ref60.wav", 16000, minute(16000)), ("agent60.wav", 24000, minute(24000)),
                          ("user60.wav", 16000, minute(16000, agent=False, user=True))]:
        one = os.path.join(work, "minute-" + name)
        write(one, x, rate)
        subprocess.run(["sox", one, names[name], "repeat", "59"], check=True)
        os.remove(one)
    with open(names["user60.txt"], "w") as f:
        for m in range(60):
            for s in (4, 34):
                f.write(f"{m * 60 + s:.3f}\t{m * 60 + s + 1.5:.3f}\tspeech\n")
    return names


talk = conversation(work)
scenario = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples", "scenario")


def peak_mb(args):
    """Runs the binary and returns its peak RSS in MB (from a fresh child's rusage)."""
    code = ("import resource,subprocess,sys;r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, binary] + args, capture_output=True, text=True, check=True).stdout.split()
    if out[0] != "0":
        sys.exit(f"check-memory: audiopipe {' '.join(args)} failed with {out[0]}")
    return int(out[1]) / 1024


failed = False
for name, args in [
    ("deframe, 60 min JSON Lines", ["deframe", jsonl, "-o", os.path.join(work, "a.wav")]),
    ("deframe, 60 min HAR", ["deframe", har, "-o", os.path.join(work, "b.wav")]),
    ("jitter play, 60 min JSON Lines", ["jitter", "play", jsonl, "-o", os.path.join(work, "h.wav")]),
    ("convert, 60 min 48 kHz stereo float -> 16 kHz mono", ["convert", wav, os.path.join(work, "c.wav"), "-r", "16000", "-c", "1"]),
    ("vad detect, 60 min 48 kHz stereo float", ["vad", "detect", wav, "-o", os.path.join(work, "labels.txt")]),
    ("vad detect --reference, both 60 min", ["vad", "detect", wav, "--reference", wav, "-o", os.path.join(work, "labels-ref.txt")]),
    ("vad detect --explain --frames --reference, both 60 min",
     ["vad", "detect", wav, "--reference", wav, "--explain", "--frames", os.path.join(work, "frames.csv"),
      "-o", os.path.join(work, "labels-explain.txt")]),
    ("session simulate --recorded, 60 min 16 kHz with its reference",
     ["session", "simulate", "--recorded", talk["mic60.wav"], "--reference", talk["ref60.wav"],
      "--user-labels", talk["user60.txt"], "-o", os.path.join(work, "session-recorded")]),
    ("session simulate, 60 min synthetic (agent 24 kHz, user 16 kHz, 48 kHz device)",
     ["session", "simulate", "--agent", talk["agent60.wav"], "--user", talk["user60.wav"],
      "-o", os.path.join(work, "session-synthetic")]),
    ("session simulate, the 60 min captured session as the agent",
     ["session", "simulate", "--agent", jsonl, "-o", os.path.join(work, "session-captured")]),
    ("session simulate --rooms 200, the 28 s sample scenario",
     ["session", "simulate", "--agent", os.path.join(scenario, "agent-24k.wav"), "--user",
      os.path.join(scenario, "user-16k.wav"), "--rooms", "200", "-o", os.path.join(work, "session-rooms")]),
]:
    mb = peak_mb(args)
    ok = mb <= BUDGET_MB
    failed |= not ok
    print(f"{name}: peak RSS {mb:.0f} MB (budget {BUDGET_MB} MB) {'ok' if ok else 'OVER'}")
sys.exit(1 if failed else 0)
