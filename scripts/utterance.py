"""The first utterance of a clean user track, for the scripts that place it over an agent track
(make-earcon-agent.py --user, echo-grids.py --early). Standard library only."""


def first_utterance(samples, rate, start, full_scale=1.0):
    """Sample indices (first, end) of the utterance in `samples` (one channel) from `start` s to its
    first 0.3 s of 10 ms frames under -50 dBFS (that quiet excluded; the track's end ends it too).
    `full_scale`: the samples' full scale (1.0 for floats, 32768 for 16-bit integers)."""
    frame = rate // 100
    first = int(start * rate)
    floor = (full_scale * 10 ** (-50 / 20)) ** 2
    end = first
    quiet = 0
    while end + frame <= len(samples) and quiet < 30:
        power = sum(float(v) * float(v) for v in samples[end:end + frame]) / frame
        quiet = quiet + 1 if power < floor else 0
        end += frame
    return first, end - quiet * frame
