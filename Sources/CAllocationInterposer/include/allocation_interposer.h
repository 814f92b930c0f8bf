#ifndef AUDIOPIPELINE_ALLOCATION_INTERPOSER_H
#define AUDIOPIPELINE_ALLOCATION_INTERPOSER_H

/// 1 when this build interposes the allocator (glibc, no sanitizer). Linking this target is what
/// turns allocation counting on for AudioPipelineBench in a program.
extern const int apc_interposer_active;

#endif
