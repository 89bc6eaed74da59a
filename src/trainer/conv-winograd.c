/* conv-winograd.c: the F(2x2, 5x5) Winograd convolution described in
 * conv-winograd.h.
 *
 * The transforms (Toom-Cook construction). A correlation of 6 inputs d
 * with a 5-tap kernel g giving 2 outputs, y_i = sum_j d[i+j] g[j], is the
 * transpose of the linear convolution s = a * g of a 2-tap a with g
 * (6 coefficients). That convolution is evaluated at the six points
 * 0, 1, -1, 2, -2 and infinity (where a polynomial's "value" is its
 * leading coefficient): s = V^-1 [(Ea a) . (Eg g)], with Ea, Eg and V the
 * evaluation (Vandermonde) matrices of degrees 1, 4 and 5 at those points.
 * Transposing, y = Ea^T [(Eg g) . (V^-T d)]. V^-1's column for a point is
 * its Lagrange basis polynomial, whose denominator prod_j (x - x_j) is
 * 4, -6, -6, 24, 24 (and 1 for infinity); moving those into the kernel's
 * side leaves integer input transforms:
 *
 *   B^T = [ 4  0 -5  0  1  0 ]   G = [ 1/4    0     0    0    0  ]   A^T = [ 1 1  1 1  1 0 ]
 *         [ 0  4  4 -1 -1  0 ]       [ 1/6   1/6   1/6  1/6  1/6 ]         [ 0 1 -1 2 -2 1 ]
 *         [ 0 -4  4  1 -1  0 ]       [ 1/6  -1/6   1/6 -1/6  1/6 ]
 *         [ 0 -2 -1  2  1  0 ]       [ 1/24  1/12  1/6  1/3  2/3 ]
 *         [ 0  2 -1 -2  1  0 ]       [ 1/24 -1/12  1/6 -1/3  2/3 ]
 *         [ 0  4  0 -5  0  1 ]       [ 0      0     0    0    1  ]
 *
 * so that y = A^T [(G g) . (B^T d)] (checked in exact arithmetic when they
 * were derived), and in two dimensions, nesting the one-dimensional form
 * along rows and columns, Y = A^T [(G g G^T) . (B^T d B)] A for a 6x6
 * tile d and a 5x5 kernel g. Summed over input channels, the 36 element-
 * wise products become 36 matrix products: X[p] = U[p] V[p], with
 * U[p][m][c] = (G g[m][c] G^T)[p] and V[p][c][tile] = (B^T d B)[p].
 *
 * Numerics: the points stay within +-2 so the transforms' entries are
 * small (B^T's rows sum to at most 10 in absolute value, A^T's to 7); the
 * error is that of the direct sum times a small constant (the unit test
 * states and checks the bound). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "trainer/conv-winograd.h"
#include "trainer/gemm.h"

#include "util/banned.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* Only called where conv_direct_isa() found AVX2 and FMA. */
#include <immintrin.h>
#define WINO_X86 1
#define WINO_VEC __attribute__((target("avx2,fma")))
#endif

/* Widest padded plane the transforms handle (their row buffers are on the
 * stack); wider layers take the direct path. */
#define WINO_WMAX 512

int wino_applies(int k, int stride, int C, int M, int OW)
{
	/* opt-in: the cnn's 5-epoch seed-1 accuracy, which the direct
	 * kernels bring to 0.9103, came to 0.9080 this way (a trajectory
	 * moved by other roundings, but under the 0.91 imc-train promises) */
	const char *e = getenv("IMC_TRAIN_WINOGRAD");
	if (!e || strcmp(e, "1") != 0)
		return 0;
	/* Few channels make short products whose cost is the transforms'. */
#ifndef WINO_X86
	(void)k; (void)stride; (void)C; (void)M; (void)OW;
	return 0;
#else
	return k == WINO_K && stride == 1 && C >= 8 && M >= 8 &&
	       2 * ((OW + 1) / 2) + WINO_K - 1 <= WINO_WMAX &&
	       conv_direct_isa() != CONV_DIRECT_NONE;
#endif
}

void wino_plane_dims(int OH, int OW, int *HP, int *WP)
{
	*HP = 2 * ((OH + 1) / 2) + WINO_K - 1;
	*WP = 2 * ((OW + 1) / 2) + WINO_K - 1;
}

void wino_init(struct wino *w, int C, int M, int OH, int OW, int HP, int WP)
{
	memset(w, 0, sizeof(*w));
	w->C = C;
	w->M = M;
	w->OH = OH;
	w->OW = OW;
	w->HP = HP;
	w->WP = WP;
	w->TH = (OH + 1) / 2;
	w->TW = (OW + 1) / 2;
	w->nt = w->TH * w->TW;
	/* whole 24-column blocks, and room for 8 columns of spill */
	w->NV = (WINO_GROUP * w->nt + 8 + 23) / 24 * 24;
	w->M8 = (M + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
	w->MW = (M + 31) / 32 * 32;
}

void wino_grad_init(struct wino *w, int C, int M, int OH, int OW, int HP, int WP)
{
	wino_init(w, C, M, OH, OW, HP, WP);
	/* one example per product: the reduction over its tiles is long
	 * enough, and the transforms stay small */
	w->NV = (w->nt + 8 + 23) / 24 * 24;
}

size_t wino_gt_floats(const struct wino *w)
{
	return (size_t)2 * w->TH * 2 * w->TW * w->MW;
}

size_t wino_gy_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->nt * w->MW;
}

size_t wino_gz_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->C * w->MW;
}

size_t wino_u_floats(const struct wino *w)
{
	return WINO_P * gemm_pa_floats(w->M, w->C);
}

size_t wino_v_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->C * w->NV;
}

size_t wino_x_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->M8 * 24;
}

static const float G[WINO_A][WINO_K] = {
	{ 1.0f / 4, 0, 0, 0, 0 },
	{ 1.0f / 6, 1.0f / 6, 1.0f / 6, 1.0f / 6, 1.0f / 6 },
	{ 1.0f / 6, -1.0f / 6, 1.0f / 6, -1.0f / 6, 1.0f / 6 },
	{ 1.0f / 24, 1.0f / 12, 1.0f / 6, 1.0f / 3, 2.0f / 3 },
	{ 1.0f / 24, -1.0f / 12, 1.0f / 6, -1.0f / 3, 2.0f / 3 },
	{ 0, 0, 0, 0, 1 },
};

void wino_weights(const struct wino *w, const float *g, float *U)
{
	int M = w->M, C = w->C;
	size_t pa = gemm_pa_floats(M, C);
	for (int m = 0; m < M; m++)
		for (int c = 0; c < C; c++) {
			const float *k = g + ((size_t)m * C + c) * WINO_K * WINO_K;
			float t[WINO_A][WINO_K]; /* G g */
			for (int a = 0; a < WINO_A; a++)
				for (int j = 0; j < WINO_K; j++) {
					float s = 0.0f;
					for (int i = 0; i < WINO_K; i++)
						s += G[a][i] * k[i * WINO_K + j];
					t[a][j] = s;
				}
			/* (G g G^T)[a][b] into row m, column c of point a*6+b's
			 * packed operand (gemm.h's 8-row panels) */
			size_t at = (size_t)(m / GEMM_MR) * GEMM_MR * C + (size_t)c * GEMM_MR + m % GEMM_MR;
			for (int a = 0; a < WINO_A; a++)
				for (int b = 0; b < WINO_A; b++) {
					float s = 0.0f;
					for (int j = 0; j < WINO_K; j++)
						s += t[a][j] * G[b][j];
					U[(size_t)(a * WINO_A + b) * pa + at] = s;
				}
		}
}

void wino_grad_weights(const struct wino *w, const float *Z, float *dw)
{
	int M = w->M, C = w->C, MW = w->MW;
	size_t ps = (size_t)C * MW;
	for (int c = 0; c < C; c++)
		for (int m = 0; m < M; m++) {
			const float *z = Z + (size_t)c * MW + m;
			float t[WINO_A][WINO_K]; /* Z G */
			for (int a = 0; a < WINO_A; a++)
				for (int j = 0; j < WINO_K; j++) {
					float s = 0.0f;
					for (int b = 0; b < WINO_A; b++)
						s += z[(size_t)(a * WINO_A + b) * ps] * G[b][j];
					t[a][j] = s;
				}
			float *k = dw + ((size_t)m * C + c) * WINO_K * WINO_K;
			for (int i = 0; i < WINO_K; i++)
				for (int j = 0; j < WINO_K; j++) {
					float s = 0.0f;
					for (int a = 0; a < WINO_A; a++)
						s += G[a][i] * t[a][j];
					k[i * WINO_K + j] = s;
				}
		}
}

#ifdef WINO_X86
/* B^T applied to six vectors (x[0..5] -> r[0..5]), lane by lane. */
WINO_VEC
static inline void bt6(const __m256 *x, __m256 *r)
{
	const __m256 two = _mm256_set1_ps(2.0f), four = _mm256_set1_ps(4.0f);
	const __m256 five = _mm256_set1_ps(5.0f);
	__m256 d42 = _mm256_sub_ps(x[4], x[2]);
	r[0] = _mm256_fmadd_ps(four, x[0], _mm256_fnmadd_ps(five, x[2], x[4]));
	r[1] = _mm256_fmsub_ps(four, _mm256_add_ps(x[1], x[2]), _mm256_add_ps(x[3], x[4]));
	r[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(x[2], x[1]), _mm256_sub_ps(x[3], x[4]));
	r[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(x[3], x[1]), d42);
	r[4] = _mm256_fmadd_ps(two, _mm256_sub_ps(x[1], x[3]), d42);
	r[5] = _mm256_fmadd_ps(four, x[1], _mm256_fnmadd_ps(five, x[3], x[5]));
}

/* A^T applied to six vectors: two results. */
WINO_VEC
static inline void at6(const __m256 *x, __m256 *r0, __m256 *r1)
{
	*r0 = _mm256_add_ps(_mm256_add_ps(x[0], _mm256_add_ps(x[1], x[2])),
			    _mm256_add_ps(x[3], x[4]));
	*r1 = _mm256_add_ps(_mm256_fmadd_ps(_mm256_set1_ps(2.0f), _mm256_sub_ps(x[3], x[4]),
					    _mm256_sub_ps(x[1], x[2])),
			    x[5]);
}

/* Eight even and eight odd columns of the 16 floats at p. */
WINO_VEC
static inline void deinterleave(const float *p, __m256 *even, __m256 *odd)
{
	__m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
	*even = _mm256_castpd_ps(_mm256_permute4x64_pd(
		_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))), 0xd8));
	*odd = _mm256_castpd_ps(_mm256_permute4x64_pd(
		_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))), 0xd8));
}

/* The transforms work on eight tiles of a tile row at a time: a tile row
 * of TW tiles takes ceil(TW/8) vectors, whose lanes past TW are computed
 * from whatever follows and stored into the next columns of V, which the
 * next tile row or example overwrites (the columns are written in
 * increasing order) or which lie past the last example's (NV leaves room
 * for 8 more). The input planes are read up to 14 floats past their last
 * row, within the CONV_DIRECT_SLACK the planes carry. */
#define WINO_HALF (WINO_WMAX / 2 + 16)

WINO_VEC
void wino_input(const struct wino *w, const float *P, int slot, float *V)
{
	int C = w->C, WP = w->WP, TW = w->TW, NV = w->NV;
	int nx = (TW + 2 + 7) / 8; /* vectors of even (odd) columns per row */
	size_t ps = (size_t)C * NV; /* stride between points in V */
	/* T = B^T (six plane rows), split into even and odd columns */
	float E[WINO_A][WINO_HALF], O[WINO_A][WINO_HALF];
	memset(E, 0, sizeof(E));
	memset(O, 0, sizeof(O));
	for (int c = 0; c < C; c++) {
		const float *plane = P + (size_t)c * w->HP * WP;
		float *vc = V + (size_t)c * NV + (size_t)slot * w->nt;
		for (int th = 0; th < w->TH; th++) {
			const float *d = plane + (size_t)2 * th * WP;
			for (int q = 0; q < nx; q++) {
				__m256 xe[WINO_A], xo[WINO_A], re[WINO_A], ro[WINO_A];
				for (int r = 0; r < WINO_A; r++)
					deinterleave(d + (size_t)r * WP + 16 * q, &xe[r], &xo[r]);
				bt6(xe, re);
				bt6(xo, ro);
				for (int a = 0; a < WINO_A; a++) {
					_mm256_storeu_ps(&E[a][8 * q], re[a]);
					_mm256_storeu_ps(&O[a][8 * q], ro[a]);
				}
			}
			/* columns: tile tw reads T columns 2tw .. 2tw+5, that is
			 * E[tw], O[tw], E[tw+1], O[tw+1], E[tw+2], O[tw+2] */
			float *v = vc + (size_t)th * TW;
			for (int a = 0; a < WINO_A; a++) {
				float *va = v + (size_t)a * WINO_A * ps;
				for (int tw = 0; tw < TW; tw += 8) {
					__m256 x[WINO_A], r[WINO_A];
					for (int j = 0; j < 3; j++) {
						x[2 * j] = _mm256_loadu_ps(&E[a][tw + j]);
						x[2 * j + 1] = _mm256_loadu_ps(&O[a][tw + j]);
					}
					bt6(x, r);
					for (int b = 0; b < WINO_A; b++)
						_mm256_storeu_ps(va + b * ps + tw, r[b]);
				}
			}
		}
	}
}

/* X[i..i+4)[0..24) = sum_k A[i..i+4)[k] * B[k][0..24) for the packed A
 * (a: row i's entry of k = 0, 8 floats per k) and B rows ldb apart. */
WINO_VEC
static void gemm4x24(int K, const float *a, const float *b, int ldb, float *c, int ldc)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c02 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(), c12 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c22 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c32 = _mm256_setzero_ps();
	for (int k = 0; k < K; k++) {
		const float *bk = b + (size_t)k * ldb, *ak = a + (size_t)k * GEMM_MR;
		__m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8);
		__m256 b2 = _mm256_loadu_ps(bk + 16), av;
		av = _mm256_broadcast_ss(ak);
		c00 = _mm256_fmadd_ps(av, b0, c00);
		c01 = _mm256_fmadd_ps(av, b1, c01);
		c02 = _mm256_fmadd_ps(av, b2, c02);
		av = _mm256_broadcast_ss(ak + 1);
		c10 = _mm256_fmadd_ps(av, b0, c10);
		c11 = _mm256_fmadd_ps(av, b1, c11);
		c12 = _mm256_fmadd_ps(av, b2, c12);
		av = _mm256_broadcast_ss(ak + 2);
		c20 = _mm256_fmadd_ps(av, b0, c20);
		c21 = _mm256_fmadd_ps(av, b1, c21);
		c22 = _mm256_fmadd_ps(av, b2, c22);
		av = _mm256_broadcast_ss(ak + 3);
		c30 = _mm256_fmadd_ps(av, b0, c30);
		c31 = _mm256_fmadd_ps(av, b1, c31);
		c32 = _mm256_fmadd_ps(av, b2, c32);
	}
	_mm256_storeu_ps(c, c00);
	_mm256_storeu_ps(c + 8, c01);
	_mm256_storeu_ps(c + 16, c02);
	c += ldc;
	_mm256_storeu_ps(c, c10);
	_mm256_storeu_ps(c + 8, c11);
	_mm256_storeu_ps(c + 16, c12);
	c += ldc;
	_mm256_storeu_ps(c, c20);
	_mm256_storeu_ps(c + 8, c21);
	_mm256_storeu_ps(c + 16, c22);
	c += ldc;
	_mm256_storeu_ps(c, c30);
	_mm256_storeu_ps(c + 8, c31);
	_mm256_storeu_ps(c + 16, c32);
}

/* The same for 8 columns: the last block of a group, whose columns past
 * the tiles would otherwise be computed for nothing (for the cnn's conv2,
 * 2 examples of 49 tiles leave 2 columns in a fifth block of 24). */
WINO_VEC
static void gemm4x8(int K, const float *a, const float *b, int ldb, float *c, int ldc)
{
	__m256 c0 = _mm256_setzero_ps(), c1 = _mm256_setzero_ps();
	__m256 c2 = _mm256_setzero_ps(), c3 = _mm256_setzero_ps();
	for (int k = 0; k < K; k++) {
		const float *ak = a + (size_t)k * GEMM_MR;
		__m256 b0 = _mm256_loadu_ps(b + (size_t)k * ldb);
		c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(ak), b0, c0);
		c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(ak + 1), b0, c1);
		c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(ak + 2), b0, c2);
		c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(ak + 3), b0, c3);
	}
	_mm256_storeu_ps(c, c0);
	_mm256_storeu_ps(c + ldc, c1);
	_mm256_storeu_ps(c + 2 * (size_t)ldc, c2);
	_mm256_storeu_ps(c + 3 * (size_t)ldc, c3);
}

/* The inverse transform of the products of 24 columns (tiles) j .. j+23
 * (those below cols): Xb[p][m][0..24) -> the tiles' 2x2 outputs. */
WINO_VEC
static void out_block(const struct wino *w, const float *Xb, int j, int cols, float *out,
		      size_t out_stride)
{
	int M = w->M, OW = w->OW;
	size_t ps = (size_t)w->M8 * 24, plane = (size_t)w->OH * OW;
	for (int q = 0; q < 24 && j + q < cols; q += 8) {
		/* where each lane's tile goes: its top-left output, and
		 * whether its second column / row are inside the plane */
		size_t at[8];
		int right[8], below[8], full = 0;
		int lanes = cols - (j + q) < 8 ? cols - (j + q) : 8;
		for (int l = 0; l < lanes; l++) {
			int n = j + q + l, e = n / w->nt, t = n % w->nt;
			int th = t / w->TW, tw = t % w->TW;
			at[l] = (size_t)e * out_stride + (size_t)2 * th * OW + 2 * tw;
			right[l] = 2 * tw + 1 < OW;
			below[l] = 2 * th + 1 < w->OH;
			full += right[l] && below[l];
		}
		full = full == 8;
		for (int m = 0; m < M; m++) {
			const float *x = Xb + (size_t)m * 24 + q;
			__m256 s0[WINO_A], s1[WINO_A], y[4];
			for (int b = 0; b < WINO_A; b++) {
				__m256 v[WINO_A];
				for (int a = 0; a < WINO_A; a++)
					v[a] = _mm256_loadu_ps(x + (size_t)(a * WINO_A + b) * ps);
				at6(v, &s0[b], &s1[b]);
			}
			at6(s0, &y[0], &y[1]);
			at6(s1, &y[2], &y[3]);
			float *o = out + (size_t)m * plane;
			if (full) {
				/* (y0, y1) pairs of lanes 0 1 4 5 and 2 3 6 7: each
				 * pair is two adjacent outputs */
				__m256 t0 = _mm256_unpacklo_ps(y[0], y[1]);
				__m256 t1 = _mm256_unpackhi_ps(y[0], y[1]);
				__m256 b0 = _mm256_unpacklo_ps(y[2], y[3]);
				__m256 b1 = _mm256_unpackhi_ps(y[2], y[3]);
				__m128 h[4][2] = {
					{ _mm256_castps256_ps128(t0), _mm256_castps256_ps128(b0) },
					{ _mm256_castps256_ps128(t1), _mm256_castps256_ps128(b1) },
					{ _mm256_extractf128_ps(t0, 1), _mm256_extractf128_ps(b0, 1) },
					{ _mm256_extractf128_ps(t1, 1), _mm256_extractf128_ps(b1, 1) },
				};
				for (int g = 0; g < 4; g++) {
					float *d0 = o + at[2 * g], *d1 = o + at[2 * g + 1];
					_mm_storel_pi((__m64 *)d0, h[g][0]);
					_mm_storel_pi((__m64 *)(d0 + OW), h[g][1]);
					_mm_storeh_pi((__m64 *)d1, h[g][0]);
					_mm_storeh_pi((__m64 *)(d1 + OW), h[g][1]);
				}
				continue;
			}
			float buf[4][8];
			for (int i = 0; i < 4; i++)
				_mm256_storeu_ps(buf[i], y[i]);
			for (int l = 0; l < lanes; l++) {
				float *d = o + at[l];
				d[0] = buf[0][l];
				if (right[l])
					d[1] = buf[1][l];
				if (below[l]) {
					d[OW] = buf[2][l];
					if (right[l])
						d[OW + 1] = buf[3][l];
				}
			}
		}
	}
}

void wino_output(const struct wino *w, const float *U, const float *V, int n, float *X,
		 float *out, size_t out_stride)
{
	int C = w->C, M = w->M, NV = w->NV, cols = n * w->nt;
	size_t pa = gemm_pa_floats(M, C), ps = (size_t)w->M8 * 24;
	/* 24 columns at a time, so that their 36 products stay in cache
	 * until transformed back. 4-row blocks stay within U's 8-row panels
	 * (zero past M); X has room for the rows past M. */
	for (int j = 0; j < cols; j += 24) {
		for (int p = 0; p < WINO_P; p++) {
			const float *Up = U + (size_t)p * pa, *Vp = V + (size_t)p * C * NV + j;
			for (int i = 0; i < M; i += 4) {
				const float *a = Up + (size_t)(i / GEMM_MR) * GEMM_MR * C + i % GEMM_MR;
				if (cols - j <= 8)
					gemm4x8(C, a, Vp, NV, X + p * ps + (size_t)i * 24, 24);
				else
					gemm4x24(C, a, Vp, NV, X + p * ps + (size_t)i * 24, 24);
			}
		}
		out_block(w, X, j, cols, out, out_stride);
	}
}

/* A dy for a 2-point dy (d0, d1) -> six values: A^T's columns. */
WINO_VEC
static inline void a6(__m256 d0, __m256 d1, __m256 *r)
{
	const __m256 two = _mm256_set1_ps(2.0f);
	r[0] = d0;
	r[1] = _mm256_add_ps(d0, d1);
	r[2] = _mm256_sub_ps(d0, d1);
	r[3] = _mm256_fmadd_ps(two, d1, d0);
	r[4] = _mm256_fnmadd_ps(two, d1, d0);
	r[5] = d1;
}

WINO_VEC
void wino_grad_dy(const struct wino *w, const float *dy, float *T, float *Y)
{
	int M = w->M, OH = w->OH, OW = w->OW, MW = w->MW, W2 = 2 * w->TW;
	size_t ps = (size_t)w->nt * MW;
	/* T[h][x][m]: the gradient with m innermost, so that the transform
	 * runs over eight outputs at a time; past the plane it stays 0 */
	for (int m = 0; m < M; m++)
		for (int h = 0; h < OH; h++) {
			const float *src = dy + ((size_t)m * OH + h) * OW;
			float *dst = T + (size_t)h * W2 * MW + m;
			for (int x = 0; x < OW; x++)
				dst[(size_t)x * MW] = src[x];
		}
	for (int th = 0; th < w->TH; th++)
		for (int tw = 0; tw < w->TW; tw++) {
			const float *t0 = T + ((size_t)2 * th * W2 + 2 * tw) * MW;
			const float *t1 = t0 + (size_t)W2 * MW;
			float *y = Y + ((size_t)th * w->TW + tw) * MW;
			for (int m0 = 0; m0 < MW; m0 += 8) {
				__m256 c0[WINO_A], c1[WINO_A], r[WINO_A];
				/* rows: A (2 x 2 block) per column, then columns */
				a6(_mm256_load_ps(t0 + m0), _mm256_load_ps(t1 + m0), c0);
				a6(_mm256_load_ps(t0 + MW + m0), _mm256_load_ps(t1 + MW + m0), c1);
				for (int a = 0; a < WINO_A; a++) {
					a6(c0[a], c1[a], r);
					for (int b = 0; b < WINO_A; b++)
						_mm256_store_ps(y + (size_t)(a * WINO_A + b) * ps + m0, r[b]);
				}
			}
		}
}

/* Z[r][0..16) += sum_t v[r][t] * y[t][0..16) for six rows r (rows of them
 * stored; v[] repeats a row past them), y rows ldy apart. */
WINO_VEC
static void zk6(int nt, const float *const *v, const float *y, int ldy, float *z, int ldz,
		int rows)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	__m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
	__m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	const float *v0 = v[0], *v1 = v[1], *v2 = v[2], *v3 = v[3], *v4 = v[4], *v5 = v[5];
	for (int t = 0; t < nt; t++) {
		const float *yt = y + (size_t)t * ldy;
		__m256 b0 = _mm256_load_ps(yt), b1 = _mm256_load_ps(yt + 8), a;
		a = _mm256_broadcast_ss(v0 + t);
		c00 = _mm256_fmadd_ps(a, b0, c00);
		c01 = _mm256_fmadd_ps(a, b1, c01);
		a = _mm256_broadcast_ss(v1 + t);
		c10 = _mm256_fmadd_ps(a, b0, c10);
		c11 = _mm256_fmadd_ps(a, b1, c11);
		a = _mm256_broadcast_ss(v2 + t);
		c20 = _mm256_fmadd_ps(a, b0, c20);
		c21 = _mm256_fmadd_ps(a, b1, c21);
		a = _mm256_broadcast_ss(v3 + t);
		c30 = _mm256_fmadd_ps(a, b0, c30);
		c31 = _mm256_fmadd_ps(a, b1, c31);
		a = _mm256_broadcast_ss(v4 + t);
		c40 = _mm256_fmadd_ps(a, b0, c40);
		c41 = _mm256_fmadd_ps(a, b1, c41);
		a = _mm256_broadcast_ss(v5 + t);
		c50 = _mm256_fmadd_ps(a, b0, c50);
		c51 = _mm256_fmadd_ps(a, b1, c51);
	}
	__m256 acc[6][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 },
			     { c30, c31 }, { c40, c41 }, { c50, c51 } };
	for (int r = 0; r < rows; r++) {
		float *zr = z + (size_t)r * ldz;
		_mm256_store_ps(zr, _mm256_add_ps(_mm256_load_ps(zr), acc[r][0]));
		_mm256_store_ps(zr + 8, _mm256_add_ps(_mm256_load_ps(zr + 8), acc[r][1]));
	}
}

/* The same for two rows (rows of them stored) and 32 columns. */
WINO_VEC
static void zk2(int nt, const float *const *v, const float *y, int ldy, float *z, int ldz,
		int rows)
{
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c02 = _mm256_setzero_ps(), c03 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c12 = _mm256_setzero_ps(), c13 = _mm256_setzero_ps();
	const float *v0 = v[0], *v1 = v[1];
	for (int t = 0; t < nt; t++) {
		const float *yt = y + (size_t)t * ldy;
		__m256 b0 = _mm256_load_ps(yt), b1 = _mm256_load_ps(yt + 8);
		__m256 b2 = _mm256_load_ps(yt + 16), b3 = _mm256_load_ps(yt + 24), a;
		a = _mm256_broadcast_ss(v0 + t);
		c00 = _mm256_fmadd_ps(a, b0, c00);
		c01 = _mm256_fmadd_ps(a, b1, c01);
		c02 = _mm256_fmadd_ps(a, b2, c02);
		c03 = _mm256_fmadd_ps(a, b3, c03);
		a = _mm256_broadcast_ss(v1 + t);
		c10 = _mm256_fmadd_ps(a, b0, c10);
		c11 = _mm256_fmadd_ps(a, b1, c11);
		c12 = _mm256_fmadd_ps(a, b2, c12);
		c13 = _mm256_fmadd_ps(a, b3, c13);
	}
	__m256 acc[2][4] = { { c00, c01, c02, c03 }, { c10, c11, c12, c13 } };
	for (int r = 0; r < rows; r++)
		for (int h = 0; h < 4; h++) {
			float *zr = z + (size_t)r * ldz + 8 * h;
			_mm256_store_ps(zr, _mm256_add_ps(_mm256_load_ps(zr), acc[r][h]));
		}
}

void wino_grad_acc(const struct wino *w, const float *V, const float *Y, float *Z)
{
	int C = w->C, MW = w->MW, nt = w->nt;
	for (int p = 0; p < WINO_P; p++) {
		const float *Vp = V + (size_t)p * C * w->NV, *Yp = Y + (size_t)p * nt * MW;
		float *Zp = Z + (size_t)p * C * MW;
		for (int c0 = 0; c0 < C; c0 += 6) {
			int rows = C - c0 < 6 ? C - c0 : 6;
			const float *v[6];
			for (int r = 0; r < 6; r++)
				v[r] = Vp + (size_t)(c0 + (r < rows ? r : 0)) * w->NV;
			float *z = Zp + (size_t)c0 * MW;
			if (rows > 2)
				for (int m0 = 0; m0 < MW; m0 += 16)
					zk6(nt, v, Yp + m0, MW, z + m0, MW, rows);
			else
				for (int m0 = 0; m0 < MW; m0 += 32)
					zk2(nt, v, Yp + m0, MW, z + m0, MW, rows);
		}
	}
}
#else
void wino_grad_dy(const struct wino *w, const float *dy, float *T, float *Y)
{
	(void)w; (void)dy; (void)T; (void)Y;
}

void wino_grad_acc(const struct wino *w, const float *V, const float *Y, float *Z)
{
	(void)w; (void)V; (void)Y; (void)Z;
}

void wino_input(const struct wino *w, const float *P, int slot, float *V)
{
	(void)w; (void)P; (void)slot; (void)V;
}

void wino_output(const struct wino *w, const float *U, const float *V, int n, float *X,
		 float *out, size_t out_stride)
{
	(void)w; (void)U; (void)V; (void)n; (void)X; (void)out; (void)out_stride;
}
#endif
