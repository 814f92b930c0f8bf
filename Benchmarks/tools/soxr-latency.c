/* How far libsoxr HQ output lags its input when streamed in 20 ms chunks (README, Resampling).
 * Build and run: cc Benchmarks/tools/soxr-latency.c -lsoxr -o /tmp/soxr-latency && /tmp/soxr-latency */
#include <soxr.h>
#include <stdio.h>
int main(){ int ratios[][2]={{48000,16000},{16000,24000},{24000,48000},{44100,16000}};
 for(int r=0;r<4;r++){ double in=ratios[r][0], out=ratios[r][1]; soxr_error_t e; soxr_quality_spec_t q=soxr_quality_spec(SOXR_HQ,0);
  soxr_t s=soxr_create(in,out,1,&e,NULL,&q,NULL); int chunk=(int)in/50; float x[2000]={0}, y[8000]; long fin=0, fout=0; double worst=0;
  for(int k=0;k<500;k++){ size_t id,od; soxr_process(s,x,chunk,&id,y,8000,&od); fin+=id; fout+=od; double lag = fin*out/in - fout; if (k>50 && lag/out*1000>worst) worst=lag/out*1000; }
  printf("%5.0f->%5.0f soxr HQ: output lags input by up to %.1f ms in steady state (20 ms chunks); soxr_delay %.1f ms\n", in,out,worst, soxr_delay(s)/out*1000); soxr_delete(s);} }
