// speexdsp's echo canceller (MDF adaptive filter) over raw 16-bit mono files, as a client's echo
// canceller would run ahead of a barge-in detector: scripts/echo-cancelled-items.py builds and runs it.
//
//   speex_mdf MIC.raw REF.raw OUT.raw RATE FILTER_MS SUPPRESS
//
// 10 ms frames; FILTER_MS the filter's span; SUPPRESS 1 adds speexdsp's residual echo suppressor
// (its preprocessor given the canceller's state; its denoiser and gain control off). A reference
// shorter than the microphone counts as silence. Exit 2 on bad arguments or files.
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: speex_mdf MIC.raw REF.raw OUT.raw RATE FILTER_MS SUPPRESS\n");
        return 2;
    }
    FILE *mic = fopen(argv[1], "rb"), *ref = fopen(argv[2], "rb"), *out = fopen(argv[3], "wb");
    int rate = atoi(argv[4]), filter_ms = atoi(argv[5]), suppress = atoi(argv[6]);
    if (!mic || !ref || !out || rate < 8000 || rate > 48000 || filter_ms < 10 || filter_ms > 2000) {
        fprintf(stderr, "speex_mdf: cannot open the files, or a bad rate or filter span\n");
        return 2;
    }
    int frame = rate / 100;
    SpeexEchoState *echo = speex_echo_state_init(frame, rate * filter_ms / 1000);
    speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    SpeexPreprocessState *pre = speex_preprocess_state_init(frame, rate);
    if (suppress) {
        int off = 0;
        speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_ECHO_STATE, echo);
        speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_DENOISE, &off);
        speex_preprocess_ctl(pre, SPEEX_PREPROCESS_SET_AGC, &off);
    }
    spx_int16_t m[480], r[480], o[480];
    while (fread(m, 2, (size_t)frame, mic) == (size_t)frame) {
        size_t got = fread(r, 2, (size_t)frame, ref);
        if (got < (size_t)frame) memset(r + got, 0, 2 * ((size_t)frame - got));
        speex_echo_cancellation(echo, m, r, o);
        if (suppress) speex_preprocess_run(pre, o);
        fwrite(o, 2, (size_t)frame, out);
    }
    int failed = fclose(out) != 0;
    speex_preprocess_state_destroy(pre);
    speex_echo_state_destroy(echo);
    return failed ? 2 : 0;
}
