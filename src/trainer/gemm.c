/* gemm.c: a packed single-precision matrix product with an AVX-512
 * micro-kernel (8 rows x 32 columns of C in 16 zmm accumulators), used for
 * the convolutions' three products per example. op(A) is packed once per
 * call into 8-row panels, op(B) one 32-column panel at a time; ragged
 * edges are handled with AVX-512 masks. Without AVX-512 (or with
 * IMC_TRAIN_GEMM=blas) every call goes to cblas_sgemm. */
#include "config.h"

#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/gemm.h"
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_OWN_KERNEL 1
#include <immintrin.h>
#endif

#include "util/banned.h"


#define MR 8
#define NR 32

size_t gemm_ws_floats(int M, int N, int K)
{
	(void)N;
	size_t mp = ((size_t)M + MR - 1) / MR * MR;
	return mp * (size_t)K + (size_t)K * NR + 32;
}

static int own_state = -1;
static bool forced_off;

void gemm_set_own_kernel(bool on)
{
	own_state = -1;
	forced_off = !on;
	if (on)
		(void)gemm_own_kernel();
	else
		own_state = 0;
}

bool gemm_kernels_allowed(void)
{
	const char *e = getenv("IMC_TRAIN_GEMM");
	return !forced_off && !(e && strcmp(e, "blas") == 0);
}

size_t gemm_pa_floats(int M, int K)
{
	return ((size_t)M + MR - 1) / MR * MR * (size_t)K;
}

size_t gemm_pb_floats(int N, int K)
{
	return ((size_t)N + NR - 1) / NR * NR * (size_t)K;
}

bool gemm_own_kernel(void)
{
	if (own_state < 0) {
		int ok = 0;
#ifdef HAVE_OWN_KERNEL
		const char *e = getenv("IMC_TRAIN_GEMM");
		__builtin_cpu_init();
		ok = __builtin_cpu_supports("avx512f") && !(e && strcmp(e, "blas") == 0);
#endif
		own_state = ok;
	}
	return own_state == 1;
}

#ifdef HAVE_OWN_KERNEL
/* Ap[p][k][r] = op(A)[p*MR + r][k], zero past M. */
static void pack_a(bool trans, int M, int K, const float *A, int lda, float *Ap)
{
	for (int i0 = 0; i0 < M; i0 += MR) {
		int mr = M - i0 < MR ? M - i0 : MR;
		float *dst = Ap + (size_t)i0 * K;
		if (!trans) {
			for (int r = 0; r < MR; r++) {
				const float *src = A + (size_t)(i0 + r) * lda;
				if (r < mr)
					for (int k = 0; k < K; k++)
						dst[(size_t)k * MR + r] = src[k];
				else
					for (int k = 0; k < K; k++)
						dst[(size_t)k * MR + r] = 0.0f;
			}
		} else {
			for (int k = 0; k < K; k++) {
				const float *src = A + (size_t)k * lda + i0;
				float *d = dst + (size_t)k * MR;
				int r = 0;
				for (; r < mr; r++)
					d[r] = src[r];
				for (; r < MR; r++)
					d[r] = 0.0f;
			}
		}
	}
}

/* Bp[k][j] = op(B)[k][n0 + j], zero past N. */
static void pack_b(bool trans, int N, int K, const float *B, int ldb, int n0, float *Bp)
{
	int nr = N - n0 < NR ? N - n0 : NR;
	if (!trans) {
		for (int k = 0; k < K; k++) {
			const float *src = B + (size_t)k * ldb + n0;
			float *d = Bp + (size_t)k * NR;
			int j = 0;
			for (; j < nr; j++)
				d[j] = src[j];
			for (; j < NR; j++)
				d[j] = 0.0f;
		}
	} else {
		if (nr < NR)
			memset(Bp, 0, (size_t)K * NR * sizeof(float));
		for (int j = 0; j < nr; j++) {
			const float *src = B + (size_t)(n0 + j) * ldb;
			for (int k = 0; k < K; k++)
				Bp[(size_t)k * NR + j] = src[k];
		}
	}
}

__attribute__((target("avx512f")))
static void kernel_8x32(int K, const float *Ap, const float *Bp, float *C, int ldc, int mr,
			int nr, int accumulate)
{
	__m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();
	__m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
	__m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();
	__m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();
	__m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();
	__m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();
	__m512 c60 = _mm512_setzero_ps(), c61 = _mm512_setzero_ps();
	__m512 c70 = _mm512_setzero_ps(), c71 = _mm512_setzero_ps();
	for (int k = 0; k < K; k++) {
		__m512 b0 = _mm512_load_ps(Bp);
		__m512 b1 = _mm512_load_ps(Bp + 16);
		__m512 a;
		a = _mm512_set1_ps(Ap[0]);
		c00 = _mm512_fmadd_ps(a, b0, c00);
		c01 = _mm512_fmadd_ps(a, b1, c01);
		a = _mm512_set1_ps(Ap[1]);
		c10 = _mm512_fmadd_ps(a, b0, c10);
		c11 = _mm512_fmadd_ps(a, b1, c11);
		a = _mm512_set1_ps(Ap[2]);
		c20 = _mm512_fmadd_ps(a, b0, c20);
		c21 = _mm512_fmadd_ps(a, b1, c21);
		a = _mm512_set1_ps(Ap[3]);
		c30 = _mm512_fmadd_ps(a, b0, c30);
		c31 = _mm512_fmadd_ps(a, b1, c31);
		a = _mm512_set1_ps(Ap[4]);
		c40 = _mm512_fmadd_ps(a, b0, c40);
		c41 = _mm512_fmadd_ps(a, b1, c41);
		a = _mm512_set1_ps(Ap[5]);
		c50 = _mm512_fmadd_ps(a, b0, c50);
		c51 = _mm512_fmadd_ps(a, b1, c51);
		a = _mm512_set1_ps(Ap[6]);
		c60 = _mm512_fmadd_ps(a, b0, c60);
		c61 = _mm512_fmadd_ps(a, b1, c61);
		a = _mm512_set1_ps(Ap[7]);
		c70 = _mm512_fmadd_ps(a, b0, c70);
		c71 = _mm512_fmadd_ps(a, b1, c71);
		Ap += MR;
		Bp += NR;
	}
	__m512 acc[MR][2] = {
		{ c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 },
		{ c40, c41 }, { c50, c51 }, { c60, c61 }, { c70, c71 },
	};
	__mmask16 m0 = nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? (__mmask16)0xffff
				: nr > 16 ? (__mmask16)((1u << (nr - 16)) - 1) : (__mmask16)0;
	for (int r = 0; r < mr; r++) {
		float *c = C + (size_t)r * ldc;
		__m512 v0 = acc[r][0], v1 = acc[r][1];
		if (accumulate) {
			v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, c));
			v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, c + 16));
		}
		_mm512_mask_storeu_ps(c, m0, v0);
		_mm512_mask_storeu_ps(c + 16, m1, v1);
	}
}
#endif

void gemm_pack_a(bool trans_a, int M, int K, const float *A, int lda, float *Ap)
{
#ifdef HAVE_OWN_KERNEL
	pack_a(trans_a, M, K, A, lda, Ap);
#else
	(void)trans_a; (void)M; (void)K; (void)A; (void)lda; (void)Ap;
#endif
}

void gemm_pack_b(bool trans_b, int N, int K, const float *B, int ldb, float *Bp)
{
#ifdef HAVE_OWN_KERNEL
	for (int n0 = 0; n0 < N; n0 += NR)
		pack_b(trans_b, N, K, B, ldb, n0, Bp + (size_t)(n0 / NR) * K * NR);
#else
	(void)trans_b; (void)N; (void)K; (void)B; (void)ldb; (void)Bp;
#endif
}

void gemm_packed(int M, int N, int K, const float *Ap, const float *Bp, float beta, float *C,
		 int ldc)
{
#ifdef HAVE_OWN_KERNEL
	for (int n0 = 0; n0 < N; n0 += NR) {
		int nr = N - n0 < NR ? N - n0 : NR;
		const float *bp = Bp + (size_t)(n0 / NR) * K * NR;
		for (int i0 = 0; i0 < M; i0 += MR)
			kernel_8x32(K, Ap + (size_t)i0 * K, bp, C + (size_t)i0 * ldc + n0, ldc,
				    M - i0 < MR ? M - i0 : MR, nr, beta != 0.0f);
	}
#else
	(void)M; (void)N; (void)K; (void)Ap; (void)Bp; (void)beta; (void)C; (void)ldc;
#endif
}

void gemm(bool trans_a, bool trans_b, int M, int N, int K, const float *A, int lda,
	  const float *B, int ldb, float beta, float *C, int ldc, float *ws)
{
#ifdef HAVE_OWN_KERNEL
	if (gemm_own_kernel() && K > 0) {
		/* 64-byte aligned panels inside ws */
		float *Ap = (float *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
		size_t mp = ((size_t)M + MR - 1) / MR * MR;
		float *Bp = Ap + mp * (size_t)K;
		Bp = (float *)(((uintptr_t)Bp + 63) & ~(uintptr_t)63);
		pack_a(trans_a, M, K, A, lda, Ap);
		for (int n0 = 0; n0 < N; n0 += NR) {
			int nr = N - n0 < NR ? N - n0 : NR;
			pack_b(trans_b, N, K, B, ldb, n0, Bp);
			for (int i0 = 0; i0 < M; i0 += MR)
				kernel_8x32(K, Ap + (size_t)i0 * K, Bp, C + (size_t)i0 * ldc + n0, ldc,
					    M - i0 < MR ? M - i0 : MR, nr, beta != 0.0f);
		}
		return;
	}
#endif
	(void)ws;
	cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
		    trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, A, lda, B, ldb, beta, C,
		    ldc);
}
