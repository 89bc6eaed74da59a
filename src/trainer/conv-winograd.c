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
#include "util/xalloc.h"

#include "util/banned.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* Only called where conv_direct_isa() found AVX2 and FMA. */
#define WINO_VEC __attribute__((target("avx2,fma")))
#else
#define WINO_VEC
#endif

/* Widest padded plane the transforms handle (their row buffers are on the
 * stack); wider layers take the direct path. */
#define WINO_WMAX 512

int wino_applies(int k, int stride, int C, int M, int OW)
{
	const char *e = getenv("IMC_TRAIN_WINOGRAD");
	if (!e || strcmp(e, "1") != 0)
		return 0;
	/* Few channels make short products whose cost is the transforms'. */
	return k == WINO_K && stride == 1 && C >= 8 && M >= 8 &&
	       2 * ((OW + 1) / 2) + WINO_K - 1 <= WINO_WMAX &&
	       conv_direct_isa() != CONV_DIRECT_NONE;
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
	w->NV = (WINO_GROUP * w->nt + 15) / 16 * 16;
	int nmax = C > M ? C : M;
	w->off = xcalloc((size_t)nmax, sizeof(int));
	for (int c = 0; c < nmax; c++)
		w->off[c] = c * w->NV;
	for (int n = 1; n <= WINO_GROUP; n++) {
		int cols = n * w->nt;
		w->tiles[n] = xcalloc((size_t)(cols + 15) / 16 + 1, sizeof(struct conv_tile));
		w->ntiles[n] = conv_tiles(1, cols, w->NV, w->tiles[n]);
	}
}

void wino_free(struct wino *w)
{
	free(w->off);
	for (int n = 1; n <= WINO_GROUP; n++)
		free(w->tiles[n]);
	memset(w, 0, sizeof(*w));
}

size_t wino_u_floats(const struct wino *w)
{
	return WINO_P * gemm_pa_floats(w->M, w->C);
}

size_t wino_v_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->C * w->NV + CONV_DIRECT_SLACK;
}

size_t wino_x_floats(const struct wino *w)
{
	return (size_t)WINO_P * w->M * w->NV;
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

/* B^T x for the six values at x[0], x[s], ..., x[5s], as six results. */
#define BT6(x, s, r0, r1, r2, r3, r4, r5)                                           \
	do {                                                                        \
		float x0_ = (x)[0], x1_ = (x)[s], x2_ = (x)[2 * (s)];                \
		float x3_ = (x)[3 * (s)], x4_ = (x)[4 * (s)], x5_ = (x)[5 * (s)];    \
		r0 = 4.0f * x0_ - 5.0f * x2_ + x4_;                                 \
		r1 = 4.0f * (x1_ + x2_) - (x3_ + x4_);                              \
		r2 = 4.0f * (x2_ - x1_) + (x3_ - x4_);                              \
		r3 = 2.0f * (x3_ - x1_) + (x4_ - x2_);                              \
		r4 = 2.0f * (x1_ - x3_) + (x4_ - x2_);                              \
		r5 = 4.0f * x1_ - 5.0f * x3_ + x5_;                                 \
	} while (0)

WINO_VEC
void wino_input(const struct wino *w, const float *P, int slot, float *V)
{
	int C = w->C, WP = w->WP, TW = w->TW, NV = w->NV;
	int width = 2 * TW + WINO_K - 1;
	size_t ps = (size_t)C * NV; /* stride between points in V */
	float T[WINO_A][WINO_WMAX];
	for (int c = 0; c < C; c++) {
		const float *plane = P + (size_t)c * w->HP * WP;
		float *vc = V + (size_t)c * NV + (size_t)slot * w->nt;
		for (int th = 0; th < w->TH; th++) {
			/* rows: T = B^T (the six plane rows of this tile row) */
			const float *d = plane + (size_t)2 * th * WP;
			for (int x = 0; x < width; x++)
				BT6(d + x, WP, T[0][x], T[1][x], T[2][x], T[3][x], T[4][x], T[5][x]);
			/* columns: (T B)[a][b] of tile tw, over the tile row */
			float *v = vc + (size_t)th * TW;
			for (int a = 0; a < WINO_A; a++) {
				float *va = v + (size_t)a * WINO_A * ps;
				for (int tw = 0; tw < TW; tw++)
					BT6(&T[a][2 * tw], 1, va[tw], va[ps + tw], va[2 * ps + tw],
					    va[3 * ps + tw], va[4 * ps + tw], va[5 * ps + tw]);
			}
		}
	}
}

/* A^T x for six values x[0], x[s], ..., x[5s]: two results. */
#define AT6(x, s, r0, r1)                                                           \
	do {                                                                        \
		float x1_ = (x)[s], x2_ = (x)[2 * (s)], x3_ = (x)[3 * (s)];          \
		float x4_ = (x)[4 * (s)];                                           \
		r0 = (x)[0] + (x1_ + x2_) + (x3_ + x4_);                            \
		r1 = (x1_ - x2_) + 2.0f * (x3_ - x4_) + (x)[5 * (s)];               \
	} while (0)

/* The inverse transform of one output plane's tile row th: x points at
 * tile (th, 0) of point 0, ps apart per point; writes the plane out. */
WINO_VEC
static void output_row(const struct wino *w, const float *x, size_t ps, int th, float *out)
{
	int TW = w->TW, OW = w->OW;
	float s[2][WINO_A][WINO_WMAX / 2];
	float y[2][2][WINO_WMAX / 2];
	/* s = A^T X over the point rows a, for every tile of the row */
	for (int b = 0; b < WINO_A; b++) {
		const float *xb = x + (size_t)b * ps;
		for (int tw = 0; tw < TW; tw++)
			AT6(xb + tw, (ptrdiff_t)WINO_A * ps, s[0][b][tw], s[1][b][tw]);
	}
	for (int i = 0; i < 2; i++)
		for (int tw = 0; tw < TW; tw++)
			AT6(&s[i][0][tw], WINO_WMAX / 2, y[i][0][tw], y[i][1][tw]);
	int rows = 2 * th + 1 < w->OH ? 2 : 1;
	for (int i = 0; i < rows; i++) {
		float *o = out + (size_t)(2 * th + i) * OW;
		int tw = 0;
		for (; 2 * tw + 1 < OW; tw++) {
			o[2 * tw] = y[i][0][tw];
			o[2 * tw + 1] = y[i][1][tw];
		}
		if (2 * tw < OW)
			o[2 * tw] = y[i][0][tw];
	}
}

void wino_output(const struct wino *w, const float *U, const float *V, int n, float *X,
		 float *out, size_t out_stride)
{
	int C = w->C, M = w->M, NV = w->NV;
	size_t pa = gemm_pa_floats(M, C);
	for (int p = 0; p < WINO_P; p++)
		conv_direct_fwd(M, C, U + (size_t)p * pa, w->off, V + (size_t)p * C * NV,
				w->tiles[n], w->ntiles[n], X + (size_t)p * M * NV, NV);
	size_t ps = (size_t)M * NV;
	for (int e = 0; e < n; e++)
		for (int m = 0; m < M; m++) {
			const float *x = X + (size_t)m * NV + (size_t)e * w->nt;
			float *o = out + e * out_stride + (size_t)m * w->OH * w->OW;
			for (int th = 0; th < w->TH; th++)
				output_row(w, x + (size_t)th * w->TW, ps, th, o);
		}
}
