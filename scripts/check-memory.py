#!/usr/bin/env python3
"""Bounded memory on hour-long inputs (CI: make check-memory).

Generates a 60-minute captured session (OpenAI Realtime server audio, 20 ms messages with arrival
times: about 260 MB of JSON Lines), the same as a HAR export, and 60 minutes of 48 kHz stereo float
audio, then runs deframe, jitter play, convert and vad detect (also with --reference and --explain) on them and checks each peak RSS against the
budget (the jobs stream: memory does not grow with the input).
Usage: check-memory.py PATH/TO/audiopipe [WORKDIR]
"""
import base64, json, math, os, random, resource, struct, subprocess, sys, tempfile

BUDGET_MB = 150
binary = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="audiopipe-memory-")
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
    ("vad detect --explain --reference, both 60 min",
     ["vad", "detect", wav, "--reference", wav, "--explain", "-o", os.path.join(work, "labels-explain.txt")]),
]:
    mb = peak_mb(args)
    ok = mb <= BUDGET_MB
    failed |= not ok
    print(f"{name}: peak RSS {mb:.0f} MB (budget {BUDGET_MB} MB) {'ok' if ok else 'OVER'}")
sys.exit(1 if failed else 0)
