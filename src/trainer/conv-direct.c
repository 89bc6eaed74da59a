/* conv-direct.c: the im2col-free AVX-512 convolution kernels described in
 * conv-direct.h: an 8-row x 32-column register tile (16 accumulators)
 * whose B vectors are masked loads from the padded input plane. */
#include "config.h"

#include "trainer/conv-direct.h"
#include "trainer/gemm.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_DIRECT 1
#endif

#include "util/banned.h"


int conv_tiles(int OH, int OW, int WP, struct conv_tile *tiles)
{
	int n = 0, pending = 0;
	for (int oh = 0; oh < OH; oh++)
		for (int ow0 = 0; ow0 < OW; ow0 += 16) {
			int cnt = OW - ow0 < 16 ? OW - ow0 : 16;
			uint16_t mask = cnt == 16 ? 0xffff : (uint16_t)((1u << cnt) - 1);
			if (!pending) {
				tiles[n].in0 = tiles[n].in1 = oh * WP + ow0;
				tiles[n].out0 = tiles[n].out1 = oh * OW + ow0;
				tiles[n].m0 = mask;
				tiles[n].m1 = 0;
				pending = 1;
			} else {
				tiles[n].in1 = oh * WP + ow0;
				tiles[n].out1 = oh * OW + ow0;
				tiles[n].m1 = mask;
				n++;
				pending = 0;
			}
		}
	return n + pending;
}

#ifdef HAVE_DIRECT
#define FMA8(b0, b1, A)                                                            \
	do {                                                                       \
		__m512 a_;                                                         \
		a_ = _mm512_set1_ps((A)[0]);                                       \
		c00 = _mm512_fmadd_ps(a_, b0, c00); c01 = _mm512_fmadd_ps(a_, b1, c01); \
		a_ = _mm512_set1_ps((A)[1]);                                       \
		c10 = _mm512_fmadd_ps(a_, b0, c10); c11 = _mm512_fmadd_ps(a_, b1, c11); \
		a_ = _mm512_set1_ps((A)[2]);                                       \
		c20 = _mm512_fmadd_ps(a_, b0, c20); c21 = _mm512_fmadd_ps(a_, b1, c21); \
		a_ = _mm512_set1_ps((A)[3]);                                       \
		c30 = _mm512_fmadd_ps(a_, b0, c30); c31 = _mm512_fmadd_ps(a_, b1, c31); \
		a_ = _mm512_set1_ps((A)[4]);                                       \
		c40 = _mm512_fmadd_ps(a_, b0, c40); c41 = _mm512_fmadd_ps(a_, b1, c41); \
		a_ = _mm512_set1_ps((A)[5]);                                       \
		c50 = _mm512_fmadd_ps(a_, b0, c50); c51 = _mm512_fmadd_ps(a_, b1, c51); \
		a_ = _mm512_set1_ps((A)[6]);                                       \
		c60 = _mm512_fmadd_ps(a_, b0, c60); c61 = _mm512_fmadd_ps(a_, b1, c61); \
		a_ = _mm512_set1_ps((A)[7]);                                       \
		c70 = _mm512_fmadd_ps(a_, b0, c70); c71 = _mm512_fmadd_ps(a_, b1, c71); \
	} while (0)

#define ZERO16                                                                     \
	__m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();               \
	__m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();               \
	__m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();               \
	__m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();               \
	__m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();               \
	__m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();               \
	__m512 c60 = _mm512_setzero_ps(), c61 = _mm512_setzero_ps();               \
	__m512 c70 = _mm512_setzero_ps(), c71 = _mm512_setzero_ps()

#define ACC_ARRAY                                                                  \
	__m512 acc[8][2] = {                                                       \
		{ c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 },            \
		{ c40, c41 }, { c50, c51 }, { c60, c61 }, { c70, c71 },            \
	}

__attribute__((target("avx512f")))
static void fwd_tile(int K, const float *Ap, const int *off, const float *p0, const float *p1,
		     __mmask16 m0, __mmask16 m1, float *o0, float *o1, int ldo, int mr)
{
	ZERO16;
	for (int k = 0; k < K; k++) {
		__m512 b0 = _mm512_maskz_loadu_ps(m0, p0 + off[k]);
		__m512 b1 = _mm512_maskz_loadu_ps(m1, p1 + off[k]);
		FMA8(b0, b1, Ap);
		Ap += 8;
	}
	ACC_ARRAY;
	for (int r = 0; r < mr; r++) {
		_mm512_mask_storeu_ps(o0 + (size_t)r * ldo, m0, acc[r][0]);
		_mm512_mask_storeu_ps(o1 + (size_t)r * ldo, m1, acc[r][1]);
	}
}

__attribute__((target("avx512f")))
static void dw_tile(const float *const *q, int OH, int OW, int WP, const float *bp,
		    float *C, int ldc, int mr, int nr)
{
	ZERO16;
	for (int oh = 0; oh < OH; oh++) {
		int base = oh * WP;
		for (int ow = 0; ow < OW; ow++) {
			__m512 b0 = _mm512_load_ps(bp);
			__m512 b1 = _mm512_load_ps(bp + 16);
			int pos = base + ow;
			float a[8] = { q[0][pos], q[1][pos], q[2][pos], q[3][pos],
				       q[4][pos], q[5][pos], q[6][pos], q[7][pos] };
			FMA8(b0, b1, a);
			bp += 32;
		}
	}
	ACC_ARRAY;
	__mmask16 m0 = nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? (__mmask16)0xffff
				: nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1) : (__mmask16)0;
	for (int r = 0; r < mr; r++) {
		float *c = C + (size_t)r * ldc;
		_mm512_mask_storeu_ps(c, m0, _mm512_add_ps(acc[r][0], _mm512_maskz_loadu_ps(m0, c)));
		_mm512_mask_storeu_ps(c + 16, m1,
				      _mm512_add_ps(acc[r][1], _mm512_maskz_loadu_ps(m1, c + 16)));
	}
}
#endif

void conv_direct_fwd(int M, int K, const float *Ap, const int *off, const float *P,
		     const struct conv_tile *tiles, int ntiles, float *out, int ldo)
{
#ifdef HAVE_DIRECT
	for (int t = 0; t < ntiles; t++) {
		const struct conv_tile *tl = &tiles[t];
		for (int i0 = 0; i0 < M; i0 += 8)
			fwd_tile(K, Ap + (size_t)i0 * K, off, P + tl->in0, P + tl->in1, tl->m0, tl->m1,
				 out + (size_t)i0 * ldo + tl->out0, out + (size_t)i0 * ldo + tl->out1,
				 ldo, M - i0 < 8 ? M - i0 : 8);
	}
#else
	(void)M; (void)K; (void)Ap; (void)off; (void)P; (void)tiles; (void)ntiles; (void)out;
	(void)ldo;
#endif
}

void conv_direct_dw(int K, int M, const int *off, const float *P, int OH, int OW, int WP,
		    const float *dyTp, float *dwT)
{
#ifdef HAVE_DIRECT
	int N = OH * OW;
	for (int f0 = 0; f0 < K; f0 += 8) {
		int mr = K - f0 < 8 ? K - f0 : 8;
		const float *q[8];
		for (int r = 0; r < 8; r++)
			q[r] = P + off[f0 + (r < mr ? r : 0)];
		for (int m0 = 0; m0 < M; m0 += GEMM_NR)
			dw_tile(q, OH, OW, WP, dyTp + (size_t)(m0 / GEMM_NR) * N * GEMM_NR,
				dwT + (size_t)f0 * M + m0, M, mr, M - m0 < GEMM_NR ? M - m0 : GEMM_NR);
	}
#else
	(void)K; (void)M; (void)off; (void)P; (void)OH; (void)OW; (void)WP; (void)dyTp;
	(void)dwT;
#endif
}
