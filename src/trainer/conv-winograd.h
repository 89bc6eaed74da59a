/* conv-winograd.h: 5x5 stride-1 convolutions by Winograd's minimal
 * filtering F(2x2, 5x5) (conv-winograd.c): every 2x2 block of outputs
 * costs 36 multiplications instead of 100. The input is cut into 6x6
 * tiles (stride 2) of a zero-padded plane, each tile and each 5x5 kernel
 * is transformed into 36 "points", and for every point the element-wise
 * products summed over input channels are one matrix product
 * (M outputs x C channels) x (C channels x tiles), by an AVX2 kernel of
 * 4 x 24 outputs; the 36 products of a tile are transformed back into its
 * 2x2 outputs.
 *
 * The same routine computes the input gradient: a convolution of the
 * padded output gradient with the flipped, transposed weights. Tiles of up
 * to WINO_GROUP examples are batched into one product per point.
 *
 * The weight gradient is the adjoint of the forward product: with
 * Y = A^T [U . V] A per tile, dL/dU = (A dY A^T) . V and dL/dg = G^T dL/dU G,
 * so for every point the tiles' (transformed output gradient) x
 * (transformed input) products summed over the tiles and examples are one
 * matrix product (channels x tiles) x (tiles x outputs), and the 5x5
 * kernels' gradient comes out of the 36 sums once per step. Only valid
 * when conv_direct_isa() is not CONV_DIRECT_NONE. */
#ifndef IMC_TRAINER_CONV_WINOGRAD_H
#define IMC_TRAINER_CONV_WINOGRAD_H

#include <stddef.h>

#include "trainer/conv-direct.h"

#define WINO_K 5        /* kernel size */
#define WINO_A 6        /* tile size (2 outputs + 5 - 1) */
#define WINO_P 36       /* transform points per tile */
/* Examples per batched product. Two, not four: the transformed inputs of
 * a group (36 x C x tiles floats; for the cnn's conv2 1.0 MB forward and
 * 2.0 MB for the input gradient with four examples, half that with two)
 * are written by the transform and read back by the products, and should
 * stay in L2 (1 MB per core on the machines measured) in between; with
 * four the transform's stores missed it (perf put 37% of the transform's
 * samples on them, the transform at 16-18% of a training step), and the
 * cnn trained at 1087-1121 examples per CPU-second against 1148-1203 with
 * two (1 thread, same minutes, load ~50). */
#define WINO_GROUP 2

/* The shape of one Winograd convolution: C input planes (zero-padded
 * planes of HP x WP, see wino_plane_dims) to M output planes of OH x OW. */
struct wino {
	int C, M, OH, OW;
	int HP, WP;
	int TH, TW, nt;     /* tiles per example: TH x TW = nt */
	int NV;             /* row stride of the transformed planes */
	int M8;             /* M rounded up to gemm.h's 8-row panels */
	int MW;             /* weight gradient: M rounded up to 32 */
};

/* Whether a convolution of C input channels to M output planes OW wide
 * is worth doing this way (kernel 5, stride 1, enough channels to batch
 * over, not wider than the transforms' buffers), and asked for:
 * IMC_TRAIN_WINOGRAD=1 (off by default, see conv-winograd.c). */
int wino_applies(int k, int stride, int C, int M, int OW);

/* The smallest padded plane the tiles of an OH x OW output read: 6x6
 * tiles at stride 2 cover (2*ceil(OH/2) + 4) x (2*ceil(OW/2) + 4). */
void wino_plane_dims(int OH, int OW, int *HP, int *WP);

/* Fills w for planes of HP x WP (at least wino_plane_dims'), which must be
 * readable for CONV_DIRECT_SLACK floats past their end. */
void wino_init(struct wino *w, int C, int M, int OH, int OW, int HP, int WP);

/* Scratch sizes, in floats: transformed weights (shared), transformed
 * inputs and point products (per thread). Allocate 64-byte aligned and
 * zeroed. */
size_t wino_u_floats(const struct wino *w);
size_t wino_v_floats(const struct wino *w);
size_t wino_x_floats(const struct wino *w);

/* U = the transformed kernels g[m][c][5][5] (row-major, m < M, c < C),
 * packed for the products. */
void wino_weights(const struct wino *w, const float *g, float *U);

/* Transforms one example's padded planes P (C x HP x WP) into slot
 * 'slot' (< WINO_GROUP) of V. */
void wino_input(const struct wino *w, const float *P, int slot, float *V);

/* The products for slots [0, n) of V and their inverse transform:
 * out + e*out_stride receives example e's M x OH x OW planes
 * (overwritten). X: product scratch. */
void wino_output(const struct wino *w, const float *U, const float *V, int n, float *X,
		 float *out, size_t out_stride);

/* The weight gradient of the convolution w describes, one example at a
 * time: w from wino_grad_init (same arguments as wino_init), V from
 * wino_input(w, P, 0, V) of the example's padded input planes, its V
 * scratch sized by wino_v_floats(w). */
void wino_grad_init(struct wino *w, int C, int M, int OH, int OW, int HP, int WP);

/* Scratch sizes, in floats, per thread: the transposed output gradient
 * (T), its transform (Y) and the point sums (Z). Allocate 64-byte aligned
 * and zeroed; T's zeros past the output plane are never overwritten. */
size_t wino_gt_floats(const struct wino *w);
size_t wino_gy_floats(const struct wino *w);
size_t wino_gz_floats(const struct wino *w);

/* Transforms one example's output gradient dy (M x OH x OW) into Y, by way
 * of T. */
void wino_grad_dy(const struct wino *w, const float *dy, float *T, float *Y);

/* Z[p][c][m] += sum over the example's tiles of V[p][c][tile] * Y[p][tile][m]. */
void wino_grad_acc(const struct wino *w, const float *V, const float *Y, float *Z);

/* dw[m][c][5][5] = G^T Z[.][c][m] G (overwritten): the weight gradient
 * from the point sums. */
void wino_grad_weights(const struct wino *w, const float *Z, float *dw);

#endif
