// WebRTC's audio processing module (Debian libwebrtc-audio-processing-dev 0.3, the 2016 snapshot
// PulseAudio's echo-cancel module uses): its echo canceller with the extended filter and
// delay-agnostic mode (as Chrome ran it) and its high-pass filter, noise suppression and gain control
// off, over raw 16-bit mono files. scripts/echo-cancelled-items.py builds and runs it.
//
//   webrtc_apm MIC.raw REF.raw OUT.raw RATE LEVEL
//
// 10 ms frames at RATE (8000, 16000, 32000 or 48000); LEVEL the suppression: 0 low, 1 moderate,
// 2 high. A reference shorter than the microphone counts as silence. Exit 2 on bad arguments or files.
#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: webrtc_apm MIC.raw REF.raw OUT.raw RATE LEVEL\n");
        return 2;
    }
    FILE *mic = std::fopen(argv[1], "rb"), *ref = std::fopen(argv[2], "rb"), *out = std::fopen(argv[3], "wb");
    int rate = std::atoi(argv[4]), level = std::atoi(argv[5]);
    bool rate_ok = rate == 8000 || rate == 16000 || rate == 32000 || rate == 48000;
    if (!mic || !ref || !out || !rate_ok || level < 0 || level > 2) {
        std::fprintf(stderr, "webrtc_apm: cannot open the files, or a bad rate or level\n");
        return 2;
    }
    webrtc::Config config;
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    std::unique_ptr<webrtc::AudioProcessing> apm(webrtc::AudioProcessing::Create(config));
    apm->high_pass_filter()->Enable(true);
    apm->echo_cancellation()->enable_drift_compensation(false);
    apm->echo_cancellation()->Enable(true);
    apm->echo_cancellation()->set_suppression_level(static_cast<webrtc::EchoCancellation::SuppressionLevel>(level));
    webrtc::StreamConfig stream(rate, 1, false);
    const size_t frame = static_cast<size_t>(rate / 100);
    std::vector<int16_t> m(frame), r(frame), o(frame);
    std::vector<float> mf(frame), rf(frame), of(frame), rout(frame);
    while (std::fread(m.data(), 2, frame, mic) == frame) {
        size_t got = std::fread(r.data(), 2, frame, ref);
        for (size_t i = got; i < frame; i++) r[i] = 0;
        for (size_t i = 0; i < frame; i++) {
            mf[i] = m[i] / 32768.f;
            rf[i] = r[i] / 32768.f;
        }
        const float *reverse_in[1] = {rf.data()};
        float *reverse_out[1] = {rout.data()};
        const float *capture_in[1] = {mf.data()};
        float *capture_out[1] = {of.data()};
        int failed = apm->ProcessReverseStream(reverse_in, stream, stream, reverse_out);
        apm->set_stream_delay_ms(0);
        if (failed == 0) failed = apm->ProcessStream(capture_in, stream, stream, capture_out);
        if (failed != 0) {
            std::fprintf(stderr, "webrtc_apm: the audio processing module returned error %d\n", failed);
            return 2;
        }
        for (size_t i = 0; i < frame; i++) {
            float v = of[i] * 32768.f;
            o[i] = v > 32767.f ? 32767 : v < -32768.f ? -32768 : static_cast<int16_t>(v);
        }
        std::fwrite(o.data(), 2, frame, out);
    }
    return std::fclose(out) != 0 ? 2 : 0;
}
