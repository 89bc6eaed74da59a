/* conv-direct.h: im2col-free ("implicit GEMM") kernels for stride-1
 * convolutions (conv-direct.c), in AVX-512 and in AVX2+FMA; both give
 * bit-identical results. The input is zero-padded once per example into a
 * plane P[c][HP][WP]; the product's B operand is then read straight out of
 * P, 16 output columns per half-tile, so no im2col matrix is ever built.
 * The same forward kernel computes the input gradient (a convolution of the
 * padded output gradient with the flipped, transposed weights); the weight
 * gradient has its own kernel. Only valid when conv_direct_isa() is not
 * CONV_DIRECT_NONE; the operands are packed with gemm_pack_a/gemm_pack_b. */
#ifndef IMC_TRAINER_CONV_DIRECT_H
#define IMC_TRAINER_CONV_DIRECT_H

#include <stdint.h>

/* Which kernels run: AVX-512 where the CPU has it (IMC_TRAIN_DIRECT_ISA=avx2
 * picks the AVX2 ones anyway, to compare them), else AVX2+FMA; NONE without
 * either, or when gemm_kernels_allowed() is false. */
enum { CONV_DIRECT_NONE, CONV_DIRECT_AVX2, CONV_DIRECT_AVX512 };
int conv_direct_isa(void);

/* Two half-tiles of up to 16 output columns each (same or next row). */
struct conv_tile {
	int in0, in1;       /* offsets of the half-tiles' first pixel in P */
	int out0, out1;     /* offsets in the output plane */
	uint16_t m0, m1;    /* lane masks */
};

/* Tiles covering an OH x OW output read from a plane WP wide; returns the
 * count (tiles: room for OH * ((OW + 15) / 16) entries). */
int conv_tiles(int OH, int OW, int WP, struct conv_tile *tiles);

/* out[i][t] = sum_k Ap(i, k) * P[off[k] + pixel t], i < M, over all tiles.
 * Ap: gemm_pack_a layout of the M x K weights; ldo: output plane size.
 * P must be readable for CONV_DIRECT_SLACK floats past the planes (the
 * AVX2 kernels load whole vectors there and discard the lanes). */
#define CONV_DIRECT_SLACK 16
void conv_direct_fwd(int M, int K, const float *Ap, const int *off, const float *P,
		     const struct conv_tile *tiles, int ntiles, float *out, int ldo);

/* dwT[f][m] += sum_n P[off[f] + pos(n)] * dy[m][n], f < K, m < M, where
 * n = oh*OW + ow and pos(n) = oh*WP + ow. dyTp: gemm_pack_b(true, M, OH*OW,
 * dy, OH*OW, .) layout. */
void conv_direct_dw(int K, int M, const int *off, const float *P, int OH, int OW, int WP,
		    const float *dyTp, float *dwT);

#endif
