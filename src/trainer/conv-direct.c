/* conv-direct.c: the im2col-free convolution kernels described in
 * conv-direct.h: an 8-row x 32-column register tile (16 AVX-512
 * accumulators) whose B vectors are loads from the padded input plane, and
 * the same tile in 4 x 16 pieces for CPUs with only AVX2 and FMA. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/conv-direct.h"
#include "trainer/gemm.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_DIRECT 1
#endif

#include "util/banned.h"


static int isa = -1;

int conv_direct_isa(void)
{
	if (isa < 0) {
		int v = CONV_DIRECT_NONE;
#ifdef HAVE_DIRECT
		const char *e = getenv("IMC_TRAIN_DIRECT_ISA");
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx512f") && !(e && strcmp(e, "avx2") == 0))
			v = CONV_DIRECT_AVX512;
		else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
			v = CONV_DIRECT_AVX2;
#endif
		isa = v;
	}
	return gemm_kernels_allowed() ? isa : CONV_DIRECT_NONE;
}

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

/* The same two kernels for CPUs with AVX2 and FMA but no AVX-512. Sixteen
 * ymm registers cannot hold the 8 x 32 tile, so it is computed as 4-row x
 * 16-column pieces (8 accumulators each); every output element is still
 * the same chain of fused multiply-adds in the same order as in the
 * AVX-512 kernels, so both give bit-identical results. Loads are not
 * masked (lanes past a half-tile's columns read the next pixels of P,
 * which conv_direct_fwd's contract makes readable) and those lanes are
 * never stored. */

/* Lane masks for 8-float halves: lanes [0, n) of half h (0 or 1) of a
 * 16-lane group whose first 'cnt' lanes are wanted. */
__attribute__((target("avx2")))
static __m256i lanes(int cnt, int h)
{
	int n = cnt - 8 * h;
	n = n < 0 ? 0 : n > 8 ? 8 : n;
	const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
}

/* 4 rows x 16 columns of fwd_tile: rows [r0, r0+4) of the 8-row panel Ap,
 * the half-tile at p (cnt valid columns) into o. */
__attribute__((target("avx2,fma")))
static void fwd_piece_avx2(int K, const float *Ap, const int *off, const float *p, int cnt,
			   float *o, int ldo, int rows)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	for (int k = 0; k < K; k++) {
		const float *b = p + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), a;
		a = _mm256_broadcast_ss(Ap + 0);
		c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
		a = _mm256_broadcast_ss(Ap + 1);
		c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
		a = _mm256_broadcast_ss(Ap + 2);
		c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21);
		a = _mm256_broadcast_ss(Ap + 3);
		c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31);
		Ap += 8;
	}
	__m256 acc[4][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < rows; r++) {
		_mm256_maskstore_ps(o + (size_t)r * ldo, m0, acc[r][0]);
		_mm256_maskstore_ps(o + (size_t)r * ldo + 8, m1, acc[r][1]);
	}
}

static int mask_count(uint16_t m)
{
	return __builtin_popcount(m);
}

/* 6 rows x 16 columns: twelve accumulators, so that the FMA latency is
 * hidden with room to spare (eight chains only just cover it). */
__attribute__((target("avx2,fma")))
static void fwd_piece6_avx2(int K, const float *Ap, const int *off, const float *p, int cnt,
			    float *o, int ldo)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	__m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
	__m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	for (int k = 0; k < K; k++) {
		const float *b = p + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8), a;
		a = _mm256_broadcast_ss(Ap + 0);
		c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
		a = _mm256_broadcast_ss(Ap + 1);
		c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
		a = _mm256_broadcast_ss(Ap + 2);
		c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21);
		a = _mm256_broadcast_ss(Ap + 3);
		c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31);
		a = _mm256_broadcast_ss(Ap + 4);
		c40 = _mm256_fmadd_ps(a, b0, c40); c41 = _mm256_fmadd_ps(a, b1, c41);
		a = _mm256_broadcast_ss(Ap + 5);
		c50 = _mm256_fmadd_ps(a, b0, c50); c51 = _mm256_fmadd_ps(a, b1, c51);
		Ap += 8;
	}
	__m256 acc[6][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 },
			     { c30, c31 }, { c40, c41 }, { c50, c51 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < 6; r++) {
		_mm256_maskstore_ps(o + (size_t)r * ldo, m0, acc[r][0]);
		_mm256_maskstore_ps(o + (size_t)r * ldo + 8, m1, acc[r][1]);
	}
}

/* Rows 6 and 7 of an 8-row panel over both half-tiles at once (eight
 * accumulators). */
__attribute__((target("avx2,fma")))
static void fwd_piece2_avx2(int K, const float *Ap, const int *off, const float *p0,
			    const float *p1, int cnt0, int cnt1, float *o0, float *o1, int ldo)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c02 = _mm256_setzero_ps(), c03 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c12 = _mm256_setzero_ps(), c13 = _mm256_setzero_ps();
	for (int k = 0; k < K; k++) {
		const float *b = p0 + off[k], *bb = p1 + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
		__m256 b2 = _mm256_loadu_ps(bb), b3 = _mm256_loadu_ps(bb + 8), a;
		a = _mm256_broadcast_ss(Ap + 0);
		c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
		c02 = _mm256_fmadd_ps(a, b2, c02); c03 = _mm256_fmadd_ps(a, b3, c03);
		a = _mm256_broadcast_ss(Ap + 1);
		c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
		c12 = _mm256_fmadd_ps(a, b2, c12); c13 = _mm256_fmadd_ps(a, b3, c13);
		Ap += 8;
	}
	__m256 acc[2][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 } };
	__m256i m0 = lanes(cnt0, 0), m1 = lanes(cnt0, 1), m2 = lanes(cnt1, 0),
		m3 = lanes(cnt1, 1);
	for (int r = 0; r < 2; r++) {
		_mm256_maskstore_ps(o0 + (size_t)r * ldo, m0, acc[r][0]);
		_mm256_maskstore_ps(o0 + (size_t)r * ldo + 8, m1, acc[r][1]);
		_mm256_maskstore_ps(o1 + (size_t)r * ldo, m2, acc[r][2]);
		_mm256_maskstore_ps(o1 + (size_t)r * ldo + 8, m3, acc[r][3]);
	}
}

static void fwd_tile_avx2(int K, const float *Ap, const int *off, const float *p0,
			  const float *p1, uint16_t m0, uint16_t m1, float *o0, float *o1, int ldo,
			  int mr)
{
	if (mr == 8) {
		fwd_piece6_avx2(K, Ap, off, p0, mask_count(m0), o0, ldo);
		if (m1)
			fwd_piece6_avx2(K, Ap, off, p1, mask_count(m1), o1, ldo);
		fwd_piece2_avx2(K, Ap + 6, off, p0, p1, mask_count(m0), mask_count(m1),
				o0 + (size_t)6 * ldo, o1 + (size_t)6 * ldo, ldo);
		return;
	}
	for (int r0 = 0; r0 < mr; r0 += 4) {
		int rows = mr - r0 < 4 ? mr - r0 : 4;
		fwd_piece_avx2(K, Ap + r0, off, p0, mask_count(m0), o0 + (size_t)r0 * ldo, ldo,
			       rows);
		if (m1)
			fwd_piece_avx2(K, Ap + r0, off, p1, mask_count(m1), o1 + (size_t)r0 * ldo,
				       ldo, rows);
	}
}

/* 4 rows x 16 columns of dw_tile: rows q[0..3], columns [c0, c0+cnt) of
 * the 32-wide packed panel bp. */
__attribute__((target("avx2,fma")))
static void dw_piece_avx2(const float *const *q, int OH, int OW, int WP, const float *bp,
			  float *C, int ldc, int rows, int cnt)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	for (int oh = 0; oh < OH; oh++) {
		int base = oh * WP;
		for (int ow = 0; ow < OW; ow++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8), a;
			int pos = base + ow;
			a = _mm256_broadcast_ss(q[0] + pos);
			c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
			a = _mm256_broadcast_ss(q[1] + pos);
			c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
			a = _mm256_broadcast_ss(q[2] + pos);
			c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21);
			a = _mm256_broadcast_ss(q[3] + pos);
			c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31);
			bp += GEMM_NR;
		}
	}
	__m256 acc[4][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < rows; r++) {
		float *c = C + (size_t)r * ldc;
		_mm256_maskstore_ps(c, m0, _mm256_add_ps(acc[r][0], _mm256_maskload_ps(c, m0)));
		_mm256_maskstore_ps(c + 8, m1,
				    _mm256_add_ps(acc[r][1], _mm256_maskload_ps(c + 8, m1)));
	}
}

/* 6 rows x 16 columns of dw_tile (twelve accumulators, as
 * fwd_piece6_avx2). */
__attribute__((target("avx2,fma")))
static void dw_piece6_avx2(const float *const *q, int OH, int OW, int WP, const float *bp,
			   float *C, int ldc, int cnt)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	__m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
	__m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	for (int oh = 0; oh < OH; oh++) {
		int base = oh * WP;
		for (int ow = 0; ow < OW; ow++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8), a;
			int pos = base + ow;
			a = _mm256_broadcast_ss(q[0] + pos);
			c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
			a = _mm256_broadcast_ss(q[1] + pos);
			c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
			a = _mm256_broadcast_ss(q[2] + pos);
			c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21);
			a = _mm256_broadcast_ss(q[3] + pos);
			c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31);
			a = _mm256_broadcast_ss(q[4] + pos);
			c40 = _mm256_fmadd_ps(a, b0, c40); c41 = _mm256_fmadd_ps(a, b1, c41);
			a = _mm256_broadcast_ss(q[5] + pos);
			c50 = _mm256_fmadd_ps(a, b0, c50); c51 = _mm256_fmadd_ps(a, b1, c51);
			bp += GEMM_NR;
		}
	}
	__m256 acc[6][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 },
			     { c30, c31 }, { c40, c41 }, { c50, c51 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < 6; r++) {
		float *c = C + (size_t)r * ldc;
		_mm256_maskstore_ps(c, m0, _mm256_add_ps(acc[r][0], _mm256_maskload_ps(c, m0)));
		_mm256_maskstore_ps(c + 8, m1,
				    _mm256_add_ps(acc[r][1], _mm256_maskload_ps(c + 8, m1)));
	}
}

/* Rows q[0], q[1] over all 32 columns of the panel (eight accumulators). */
__attribute__((target("avx2,fma")))
static void dw_piece2_avx2(const float *const *q, int OH, int OW, int WP, const float *bp,
			   float *C, int ldc, int nr)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c02 = _mm256_setzero_ps(), c03 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c12 = _mm256_setzero_ps(), c13 = _mm256_setzero_ps();
	for (int oh = 0; oh < OH; oh++) {
		int base = oh * WP;
		for (int ow = 0; ow < OW; ow++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
			__m256 b2 = _mm256_load_ps(bp + 16), b3 = _mm256_load_ps(bp + 24), a;
			int pos = base + ow;
			a = _mm256_broadcast_ss(q[0] + pos);
			c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01);
			c02 = _mm256_fmadd_ps(a, b2, c02); c03 = _mm256_fmadd_ps(a, b3, c03);
			a = _mm256_broadcast_ss(q[1] + pos);
			c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11);
			c12 = _mm256_fmadd_ps(a, b2, c12); c13 = _mm256_fmadd_ps(a, b3, c13);
			bp += GEMM_NR;
		}
	}
	__m256 acc[2][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 } };
	__m256i m[4] = { lanes(nr, 0), lanes(nr, 1), lanes(nr - 16, 0), lanes(nr - 16, 1) };
	for (int r = 0; r < 2; r++)
		for (int h = 0; h < 4; h++) {
			float *c = C + (size_t)r * ldc + 8 * h;
			_mm256_maskstore_ps(c, m[h],
					    _mm256_add_ps(acc[r][h], _mm256_maskload_ps(c, m[h])));
		}
}

static void dw_tile_avx2(const float *const *q, int OH, int OW, int WP, const float *bp,
			 float *C, int ldc, int mr, int nr)
{
	if (mr == 8) {
		for (int c0 = 0; c0 < nr; c0 += 16)
			dw_piece6_avx2(q, OH, OW, WP, bp + c0, C + c0, ldc,
				       nr - c0 < 16 ? nr - c0 : 16);
		dw_piece2_avx2(q + 6, OH, OW, WP, bp, C + (size_t)6 * ldc, ldc, nr);
		return;
	}
	for (int r0 = 0; r0 < mr; r0 += 4)
		for (int c0 = 0; c0 < nr; c0 += 16)
			dw_piece_avx2(q + r0, OH, OW, WP, bp + c0, C + (size_t)r0 * ldc + c0, ldc,
				      mr - r0 < 4 ? mr - r0 : 4, nr - c0 < 16 ? nr - c0 : 16);
}
#endif

void conv_direct_fwd(int M, int K, const float *Ap, const int *off, const float *P,
		     const struct conv_tile *tiles, int ntiles, float *out, int ldo)
{
#ifdef HAVE_DIRECT
	bool wide = conv_direct_isa() == CONV_DIRECT_AVX512;
	for (int t = 0; t < ntiles; t++) {
		const struct conv_tile *tl = &tiles[t];
		for (int i0 = 0; i0 < M; i0 += 8) {
			const float *ap = Ap + (size_t)i0 * K;
			float *o0 = out + (size_t)i0 * ldo + tl->out0;
			float *o1 = out + (size_t)i0 * ldo + tl->out1;
			int mr = M - i0 < 8 ? M - i0 : 8;
			if (wide)
				fwd_tile(K, ap, off, P + tl->in0, P + tl->in1, tl->m0, tl->m1, o0,
					 o1, ldo, mr);
			else
				fwd_tile_avx2(K, ap, off, P + tl->in0, P + tl->in1, tl->m0, tl->m1,
					      o0, o1, ldo, mr);
		}
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
	bool wide = conv_direct_isa() == CONV_DIRECT_AVX512;
	for (int f0 = 0; f0 < K; f0 += 8) {
		int mr = K - f0 < 8 ? K - f0 : 8;
		const float *q[8];
		for (int r = 0; r < 8; r++)
			q[r] = P + off[f0 + (r < mr ? r : 0)];
		for (int m0 = 0; m0 < M; m0 += GEMM_NR) {
			const float *bp = dyTp + (size_t)(m0 / GEMM_NR) * N * GEMM_NR;
			int nr = M - m0 < GEMM_NR ? M - m0 : GEMM_NR;
			if (wide)
				dw_tile(q, OH, OW, WP, bp, dwT + (size_t)f0 * M + m0, M, mr, nr);
			else
				dw_tile_avx2(q, OH, OW, WP, bp, dwT + (size_t)f0 * M + m0, M, mr, nr);
		}
	}
#else
	(void)K; (void)M; (void)off; (void)P; (void)OH; (void)OW; (void)WP; (void)dyTp;
	(void)dwT;
#endif
}
