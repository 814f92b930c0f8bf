/* The whole-job peer of `audiopipe convert` (scripts/bench-convert.sh, issue #20): a minimal C
 * program that streams a headerless float32 mono file through libsoxr HQ in 64k-frame blocks and
 * writes headerless PCM16 (soxr converts to int16 itself, without dither, as `convert` does by
 * default). What a C programmer would write to do the job with the fastest library we know.
 *
 *   cc -O2 Benchmarks/tools/soxr-convert.c -lsoxr -o /tmp/soxr-convert
 *   /tmp/soxr-convert IN_RATE OUT_RATE IN.f32 OUT.s16
 */
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 65536 };

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s IN_RATE OUT_RATE IN.f32 OUT.s16\n", argv[0]);
        return 64;
    }
    double in_rate = atof(argv[1]), out_rate = atof(argv[2]);
    if (in_rate <= 0 || out_rate <= 0) {
        fprintf(stderr, "rates must be positive\n");
        return 64;
    }
    FILE *in = fopen(argv[3], "rb"), *out = fopen(argv[4], "wb");
    if (!in || !out) {
        perror("open");
        return 66;
    }
    soxr_error_t err = NULL;
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_INT16_I);
    io.flags |= SOXR_NO_DITHER;
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
    soxr_t s = soxr_create(in_rate, out_rate, 1, &err, &io, &q, NULL);
    if (err) {
        fprintf(stderr, "soxr_create: %s\n", err);
        return 70;
    }
    size_t out_cap = (size_t)(BLOCK * out_rate / in_rate) + 4096;
    float *x = malloc(BLOCK * sizeof *x);
    short *y = malloc(out_cap * sizeof *y);
    size_t n;
    do {
        n = fread(x, sizeof *x, BLOCK, in);
        /* n == 0: end of input, soxr flushes what it holds (called until it returns nothing). */
        size_t done_in = 0;
        do {
            size_t used = 0, made = 0;
            err = soxr_process(s, n ? x + done_in : NULL, n - done_in, &used, y, out_cap, &made);
            if (err) {
                fprintf(stderr, "soxr_process: %s\n", err);
                return 70;
            }
            if (made && fwrite(y, sizeof *y, made, out) != made) {
                perror("write");
                return 74;
            }
            done_in += used;
            if (!n && !made) break;
        } while (done_in < n || !n);
    } while (n);
    soxr_delete(s);
    free(x);
    free(y);
    if (fclose(out) != 0) {
        perror("close");
        return 74;
    }
    fclose(in);
    return 0;
}
