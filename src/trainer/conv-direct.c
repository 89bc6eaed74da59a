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

/* The same two products for CPUs with AVX2 and FMA but no AVX-512.
 * Sixteen ymm registers cannot hold the 8 x 32 tile, so the rows are taken
 * six at a time (6 x 16 columns, twelve accumulators: eight would only
 * just cover the FMA latency, and every load hiccup would stall them),
 * whatever panel of the packed operand they sit in, and the last rows
 * four or two at a time. Every output element is still the one chain of
 * fused multiply-adds over k in the AVX-512 kernels' order, so both give
 * bit-identical results. Loads of P are not masked (lanes past a
 * half-tile's columns read the next pixels, which conv_direct_fwd's
 * contract makes readable) and those lanes are never stored. */

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

#define FMA2(r, a_)                                                                \
	do {                                                                       \
		__m256 av_ = _mm256_broadcast_ss(a_);                              \
		c##r##0 = _mm256_fmadd_ps(av_, b0, c##r##0);                       \
		c##r##1 = _mm256_fmadd_ps(av_, b1, c##r##1);                       \
	} while (0)
#define FMA4(r, a_)                                                                \
	do {                                                                       \
		__m256 av_ = _mm256_broadcast_ss(a_);                              \
		c##r##0 = _mm256_fmadd_ps(av_, b0, c##r##0);                       \
		c##r##1 = _mm256_fmadd_ps(av_, b1, c##r##1);                       \
		c##r##2 = _mm256_fmadd_ps(av_, b2, c##r##2);                       \
		c##r##3 = _mm256_fmadd_ps(av_, b3, c##r##3);                       \
	} while (0)
#define Z(x) __m256 x = _mm256_setzero_ps()

/* Stores (add 0) or accumulates (add 1) one ymm of a row under a mask.
 * A full mask takes plain moves: masked stores are microcoded and slow on
 * some CPUs (AMD Zen), which cost as much as the arithmetic in products
 * with short sums (the first convolution's 25 terms). */
__attribute__((target("avx2")))
static inline void put(float *c, __m256i m, __m256 v, int add)
{
	if (_mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xff) {
		if (add)
			v = _mm256_add_ps(v, _mm256_loadu_ps(c));
		_mm256_storeu_ps(c, v);
		return;
	}
	if (add)
		v = _mm256_add_ps(v, _mm256_maskload_ps(c, m));
	_mm256_maskstore_ps(c, m, v);
}

/* Forward: rows a[0..5] of the packed weights (each advancing 8 floats per
 * k) times the half-tile at p (cnt columns) into o (row stride ldo). */
__attribute__((target("avx2,fma")))
static void fwd6(int K, const float *const *a, const int *off, const float *p, int cnt,
		 float *o, int ldo)
{
	Z(c00); Z(c01); Z(c10); Z(c11); Z(c20); Z(c21);
	Z(c30); Z(c31); Z(c40); Z(c41); Z(c50); Z(c51);
	const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *a4 = a[4], *a5 = a[5];
	for (int k = 0; k < K; k++) {
		const float *b = p + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
		size_t x = (size_t)k * 8;
		FMA2(0, a0 + x); FMA2(1, a1 + x); FMA2(2, a2 + x);
		FMA2(3, a3 + x); FMA2(4, a4 + x); FMA2(5, a5 + x);
	}
	__m256 acc[6][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 },
			     { c30, c31 }, { c40, c41 }, { c50, c51 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < 6; r++) {
		put(o + (size_t)r * ldo, m0, acc[r][0], 0);
		put(o + (size_t)r * ldo + 8, m1, acc[r][1], 0);
	}
}

/* Forward, up to four rows (rows <= 4; a[] has four valid pointers). */
__attribute__((target("avx2,fma")))
static void fwd4(int K, const float *const *a, int rows, const int *off, const float *p,
		 int cnt, float *o, int ldo)
{
	Z(c00); Z(c01); Z(c10); Z(c11); Z(c20); Z(c21); Z(c30); Z(c31);
	const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
	for (int k = 0; k < K; k++) {
		const float *b = p + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
		size_t x = (size_t)k * 8;
		FMA2(0, a0 + x); FMA2(1, a1 + x); FMA2(2, a2 + x); FMA2(3, a3 + x);
	}
	__m256 acc[4][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < rows; r++) {
		put(o + (size_t)r * ldo, m0, acc[r][0], 0);
		put(o + (size_t)r * ldo + 8, m1, acc[r][1], 0);
	}
}

/* Forward, up to two rows over both half-tiles of a tile at once. */
__attribute__((target("avx2,fma")))
static void fwd2(int K, const float *const *a, int rows, const int *off, const float *p0,
		 const float *p1, int cnt0, int cnt1, float *o0, float *o1, int ldo)
{
	Z(c00); Z(c01); Z(c02); Z(c03); Z(c10); Z(c11); Z(c12); Z(c13);
	const float *a0 = a[0], *a1 = a[1];
	for (int k = 0; k < K; k++) {
		const float *b = p0 + off[k], *bb = p1 + off[k];
		__m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
		__m256 b2 = _mm256_loadu_ps(bb), b3 = _mm256_loadu_ps(bb + 8);
		size_t x = (size_t)k * 8;
		FMA4(0, a0 + x); FMA4(1, a1 + x);
	}
	__m256 acc[2][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 } };
	__m256i m0 = lanes(cnt0, 0), m1 = lanes(cnt0, 1), m2 = lanes(cnt1, 0),
		m3 = lanes(cnt1, 1);
	for (int r = 0; r < rows; r++) {
		put(o0 + (size_t)r * ldo, m0, acc[r][0], 0);
		put(o0 + (size_t)r * ldo + 8, m1, acc[r][1], 0);
		put(o1 + (size_t)r * ldo, m2, acc[r][2], 0);
		put(o1 + (size_t)r * ldo + 8, m3, acc[r][3], 0);
	}
}

/* Row pointers of rows [i, i+n) of an Ap packed in 8-row panels (row i at
 * Ap + (i/8)*8*K + i%8, advancing 8 floats per k); missing rows repeat
 * row i, whose results are never stored. */
static void rows_of(const float *Ap, int K, int i, int n, int want, const float **a)
{
	for (int r = 0; r < want; r++) {
		int row = i + (r < n ? r : 0);
		a[r] = Ap + (size_t)(row / 8) * 8 * K + row % 8;
	}
}

static void fwd_avx2(int M, int K, const float *Ap, const int *off, const float *P,
		     const struct conv_tile *tiles, int ntiles, float *out, int ldo)
{
	const float *a[6];
	for (int t = 0; t < ntiles; t++) {
		const struct conv_tile *tl = &tiles[t];
		const float *p0 = P + tl->in0, *p1 = P + tl->in1;
		int cnt0 = __builtin_popcount(tl->m0), cnt1 = __builtin_popcount(tl->m1);
		int i = 0;
		for (; M - i >= 6; i += 6) {
			rows_of(Ap, K, i, 6, 6, a);
			fwd6(K, a, off, p0, cnt0, out + (size_t)i * ldo + tl->out0, ldo);
			if (cnt1)
				fwd6(K, a, off, p1, cnt1, out + (size_t)i * ldo + tl->out1, ldo);
		}
		if (M - i >= 3) {
			int n = M - i < 4 ? M - i : 4;
			rows_of(Ap, K, i, n, 4, a);
			fwd4(K, a, n, off, p0, cnt0, out + (size_t)i * ldo + tl->out0, ldo);
			if (cnt1)
				fwd4(K, a, n, off, p1, cnt1, out + (size_t)i * ldo + tl->out1, ldo);
			i += n;
		}
		if (M - i > 0) {
			rows_of(Ap, K, i, M - i, 2, a);
			fwd2(K, a, M - i, off, p0, p1, cnt0, cnt1, out + (size_t)i * ldo + tl->out0,
			     out + (size_t)i * ldo + tl->out1, ldo);
		}
	}
}

/* Weight gradient: C[r][c] += sum over positions of q[r][pos] * bp[pos][c]
 * for six rows and the 16 columns of bp (row stride GEMM_NR) that are cnt
 * wide. */
__attribute__((target("avx2,fma")))
static void dw6(const float *const *q, int OH, int OW, int WP, const float *bp, float *C,
		int ldc, int cnt)
{
	Z(c00); Z(c01); Z(c10); Z(c11); Z(c20); Z(c21);
	Z(c30); Z(c31); Z(c40); Z(c41); Z(c50); Z(c51);
	const float *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3], *q4 = q[4], *q5 = q[5];
	for (int oh = 0; oh < OH; oh++) {
		for (int pos = oh * WP; pos < oh * WP + OW; pos++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
			FMA2(0, q0 + pos); FMA2(1, q1 + pos); FMA2(2, q2 + pos);
			FMA2(3, q3 + pos); FMA2(4, q4 + pos); FMA2(5, q5 + pos);
			bp += GEMM_NR;
		}
	}
	__m256 acc[6][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 },
			     { c30, c31 }, { c40, c41 }, { c50, c51 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < 6; r++) {
		put(C + (size_t)r * ldc, m0, acc[r][0], 1);
		put(C + (size_t)r * ldc + 8, m1, acc[r][1], 1);
	}
}

/* The same for up to four rows. */
__attribute__((target("avx2,fma")))
static void dw4(const float *const *q, int rows, int OH, int OW, int WP, const float *bp,
		float *C, int ldc, int cnt)
{
	Z(c00); Z(c01); Z(c10); Z(c11); Z(c20); Z(c21); Z(c30); Z(c31);
	const float *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];
	for (int oh = 0; oh < OH; oh++) {
		for (int pos = oh * WP; pos < oh * WP + OW; pos++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
			FMA2(0, q0 + pos); FMA2(1, q1 + pos); FMA2(2, q2 + pos); FMA2(3, q3 + pos);
			bp += GEMM_NR;
		}
	}
	__m256 acc[4][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 } };
	__m256i m0 = lanes(cnt, 0), m1 = lanes(cnt, 1);
	for (int r = 0; r < rows; r++) {
		put(C + (size_t)r * ldc, m0, acc[r][0], 1);
		put(C + (size_t)r * ldc + 8, m1, acc[r][1], 1);
	}
}

/* Up to two rows over all 32 columns of the panel (nr of them valid). */
__attribute__((target("avx2,fma")))
static void dw2(const float *const *q, int rows, int OH, int OW, int WP, const float *bp,
		float *C, int ldc, int nr)
{
	Z(c00); Z(c01); Z(c02); Z(c03); Z(c10); Z(c11); Z(c12); Z(c13);
	const float *q0 = q[0], *q1 = q[1];
	for (int oh = 0; oh < OH; oh++) {
		for (int pos = oh * WP; pos < oh * WP + OW; pos++) {
			__m256 b0 = _mm256_load_ps(bp), b1 = _mm256_load_ps(bp + 8);
			__m256 b2 = _mm256_load_ps(bp + 16), b3 = _mm256_load_ps(bp + 24);
			FMA4(0, q0 + pos); FMA4(1, q1 + pos);
			bp += GEMM_NR;
		}
	}
	__m256 acc[2][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 } };
	__m256i m[4] = { lanes(nr, 0), lanes(nr, 1), lanes(nr - 16, 0), lanes(nr - 16, 1) };
	for (int r = 0; r < rows; r++)
		for (int h = 0; h < 4; h++)
			put(C + (size_t)r * ldc + 8 * h, m[h], acc[r][h], 1);
}

static void dw_avx2(int K, int M, const int *off, const float *P, int OH, int OW, int WP,
		    const float *dyTp, float *dwT)
{
	int N = OH * OW;
	const float *q[6];
	for (int m0 = 0; m0 < M; m0 += GEMM_NR) {
		const float *bp = dyTp + (size_t)(m0 / GEMM_NR) * N * GEMM_NR;
		int nr = M - m0 < GEMM_NR ? M - m0 : GEMM_NR;
		int f = 0;
		for (; K - f >= 6; f += 6) {
			for (int r = 0; r < 6; r++)
				q[r] = P + off[f + r];
			for (int c0 = 0; c0 < nr; c0 += 16)
				dw6(q, OH, OW, WP, bp + c0, dwT + (size_t)f * M + m0 + c0, M,
				    nr - c0 < 16 ? nr - c0 : 16);
		}
		if (K - f >= 3) {
			int n = K - f < 4 ? K - f : 4;
			for (int r = 0; r < 4; r++)
				q[r] = P + off[f + (r < n ? r : 0)];
			for (int c0 = 0; c0 < nr; c0 += 16)
				dw4(q, n, OH, OW, WP, bp + c0, dwT + (size_t)f * M + m0 + c0, M,
				    nr - c0 < 16 ? nr - c0 : 16);
			f += n;
		}
		if (K - f > 0) {
			q[0] = P + off[f];
			q[1] = P + off[K - f > 1 ? f + 1 : f];
			dw2(q, K - f, OH, OW, WP, bp, dwT + (size_t)f * M + m0, M, nr);
		}
	}
}
#endif

void conv_direct_fwd(int M, int K, const float *Ap, const int *off, const float *P,
		     const struct conv_tile *tiles, int ntiles, float *out, int ldo)
{
#ifdef HAVE_DIRECT
	if (conv_direct_isa() != CONV_DIRECT_AVX512) {
		fwd_avx2(M, K, Ap, off, P, tiles, ntiles, out, ldo);
		return;
	}
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
	if (conv_direct_isa() != CONV_DIRECT_AVX512) {
		dw_avx2(K, M, off, P, OH, OW, WP, dyTp, dwT);
		return;
	}
	int N = OH * OW;
	for (int f0 = 0; f0 < K; f0 += 8) {
		int mr = K - f0 < 8 ? K - f0 : 8;
		const float *q[8];
		for (int r = 0; r < 8; r++)
			q[r] = P + off[f0 + (r < mr ? r : 0)];
		for (int m0 = 0; m0 < M; m0 += GEMM_NR) {
			dw_tile(q, OH, OW, WP, dyTp + (size_t)(m0 / GEMM_NR) * N * GEMM_NR,
				dwT + (size_t)f0 * M + m0, M, mr, M - m0 < GEMM_NR ? M - m0 : GEMM_NR);
		}
	}
#else
	(void)K; (void)M; (void)off; (void)P; (void)OH; (void)OW; (void)WP; (void)dyTp;
	(void)dwT;
#endif
}
