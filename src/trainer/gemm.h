/* gemm.h: the matrix product behind the convolutions. On CPUs with
 * AVX-512 it is imc-train's own packed kernel (gemm.c), which does not
 * depend on which kernels OpenBLAS was told to use (Debian's environment
 * may pin OpenBLAS to its AVX2 "Haswell" kernels); elsewhere it is
 * cblas_sgemm. Row-major, like cblas_sgemm with CblasRowMajor:
 *     C[M x N] = beta*C + op(A)[M x K] * op(B)[K x N],  beta 0 or 1.
 * ws: scratch of gemm_ws_floats(M, N, K) floats (per thread). */
#ifndef IMC_TRAINER_GEMM_H
#define IMC_TRAINER_GEMM_H

#include <stdbool.h>
#include <stddef.h>

size_t gemm_ws_floats(int M, int N, int K);
void gemm(bool trans_a, bool trans_b, int M, int N, int K, const float *A, int lda,
	  const float *B, int ldb, float beta, float *C, int ldc, float *ws);
/* True when the own AVX-512 kernel is in use (IMC_TRAIN_GEMM=blas turns it
 * off, for comparisons; gemm_set_own_kernel() too, for tests). */
bool gemm_own_kernel(void);
void gemm_set_own_kernel(bool on);
/* False when IMC_TRAIN_GEMM=blas or gemm_set_own_kernel(false) asked for
 * cblas_sgemm everywhere (the direct convolution kernels included). */
bool gemm_kernels_allowed(void);

/* Pre-packed operands, for callers that reuse one (the convolution's
 * weights) or can produce the packed layout directly (im2col). Only valid
 * when gemm_own_kernel() is true.
 *   A packed: gemm_pa_floats(M, K) floats, 8-row panels: Ap[i/8][k][i%8]
 *   B packed: gemm_pb_floats(N, K) floats, 32-column panels: Bp[j/32][k][j%32]
 * (rows/columns past M/N zero). Pointers must be 64-byte aligned. */
#define GEMM_MR 8
#define GEMM_NR 32
size_t gemm_pa_floats(int M, int K);
size_t gemm_pb_floats(int N, int K);
void gemm_pack_a(bool trans_a, int M, int K, const float *A, int lda, float *Ap);
void gemm_pack_b(bool trans_b, int N, int K, const float *B, int ldb, float *Bp);
void gemm_packed(int M, int N, int K, const float *Ap, const float *Bp, float beta, float *C,
		 int ldc);

#endif
