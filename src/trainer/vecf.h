/* vecf.h: the 4-float vector type the PS's update and the ring's
 * reduction are written with (GCC/Clang vector extensions: plain SSE2 on
 * x86-64, NEON on arm64), because at -O2 the compiler leaves a loop like
 * 'dst[i] += src[i]' scalar when it cannot prove the trip count or the
 * pointers' independence, and that loop is the whole CPU cost of a
 * reduction. Loads and stores go through memcpy, so no alignment is
 * assumed. Each lane is one IEEE single addition, as the scalar loop's. */
#ifndef IMC_TRAINER_VECF_H
#define IMC_TRAINER_VECF_H

#include <stddef.h>
#include <string.h>

typedef float vf4 __attribute__((vector_size(16)));

static inline vf4 ld4(const float *p)
{
	vf4 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st4(float *p, vf4 v)
{
	memcpy(p, &v, sizeof(v));
}

/* dst[i] += src[i] for i < n; dst and src do not overlap. */
static inline void vecf_add(float *dst, const float *src, size_t n)
{
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		st4(dst + i, ld4(dst + i) + ld4(src + i));
		st4(dst + i + 4, ld4(dst + i + 4) + ld4(src + i + 4));
		st4(dst + i + 8, ld4(dst + i + 8) + ld4(src + i + 8));
		st4(dst + i + 12, ld4(dst + i + 12) + ld4(src + i + 12));
	}
	for (; i + 4 <= n; i += 4)
		st4(dst + i, ld4(dst + i) + ld4(src + i));
	for (; i < n; i++)
		dst[i] += src[i];
}

#endif
