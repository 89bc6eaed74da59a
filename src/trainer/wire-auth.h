/* wire-auth.h: the authenticated wire of imc-train (parameter-server
 * protocol and ring all-reduce alike): a per-job secret shared by every
 * task, a mutual HMAC-SHA256 challenge-response when a connection opens,
 * and a GMAC tag (AES-256-GCM with the frame as additional data and no
 * plaintext) on every frame afterwards. OpenSSL's libcrypto does the
 * cryptography (HMAC, AES-GCM, RAND_bytes, CRYPTO_memcmp); nothing here is
 * a cipher of its own. Frames are authenticated, not encrypted: gradients and
 * parameters are not secret, their origin and integrity are.
 *
 * Handshake (the connecting side is the client):
 *   client -> server  Nc (32 random bytes)
 *   server -> client  Ns (32 random bytes), HMAC(K, "imc-train server" | Nc | Ns)
 *   client -> server  HMAC(K, "imc-train client" | Ns | Nc)
 * Each side checks the other's proof with a constant-time compare, so each
 * proves it holds K over a nonce the other just chose: a recorded handshake
 * cannot be replayed. Then each direction gets its own key,
 *   K_c2s = HMAC(K, "imc-train c2s" | Nc | Ns),  K_s2c likewise,
 * and every frame is followed by its 16-byte tag
 *   GMAC(K_dir, IV = u64le(seq) | 0x00000000, frame bytes),
 * seq counting that direction's frames from 0: a frame replayed, dropped,
 * reordered or moved to another connection fails its tag. GMAC rather than
 * HMAC-SHA256 because it runs at several GB/s (AES-NI and carry-less
 * multiply) where HMAC-SHA256 ran at 1.5 GB/s even with the SHA
 * extensions, and every byte of a model is tagged on each side of each
 * exchange; its one requirement, an IV never repeated under a key, holds
 * because each K_dir is fresh per connection (new nonces) and serves one
 * direction, whose counter only grows. (The ring's all-gather frames are
 * the one exception: they carry their owner's tag under a key every rank
 * holds, with an IV of their own, ring.c.) Against ChaCha20-Poly1305 used
 * the same way (the frame as additional data, 128-bit tag, 256-bit key),
 * bench/wire_mac measured 0.16-0.21 ms of CPU per MiB for both at frames
 * of 16 KiB to 4 MiB (AMD EPYC with AES-NI and VPCLMULQDQ, OpenSSL 3.0):
 * no gain worth a wire change, and where a CPU has AES and carry-less
 * multiply (x86-64, arm64's crypto extensions) GMAC is the one libcrypto
 * accelerates. What does cost is per frame, not per byte: the tag context
 * is keyed once per direction (struct wire_mac), and the ring's frames are
 * 512 KiB. Tags over the frame rather than encryption, because encrypting
 * cost 2x (AES-GCM) to 3x (ChaCha20-Poly1305) the tag alone and the floats
 * are not secret.
 *
 * The secret file must not be readable by group or others; its bytes are
 * the key (any length from 16 bytes; a trailing newline is dropped), and
 * they are never logged. */
#ifndef IMC_TRAINER_WIRE_AUTH_H
#define IMC_TRAINER_WIRE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "util/diag.h"

#define WIRE_AUTH_NONCE 32
#define WIRE_AUTH_TAG 32 /* a proof, and a key */
#define WIRE_FRAME_TAG 16 /* a frame's tag */
#define WIRE_MAC_IV 12
#define WIRE_SECRET_MIN 16
#define WIRE_SECRET_MAX 4096

struct wire_secret {
	unsigned char *key; /* NULL: no secret (--insecure) */
	size_t len;
};

/* An incremental frame tag (below): an OpenSSL context that keeps its key
 * from one frame to the next, so a frame costs a new IV, not a new AES key
 * schedule and GHASH key. Zeroed to start; release frees it. */
struct wire_mac {
	void *ctx; /* OpenSSL's EVP_CIPHER_CTX */
	unsigned char key[WIRE_AUTH_TAG]; /* the key ctx holds, when keyed */
	bool keyed;
};

/* One connection's state once authenticated: keys and frame counters per
 * direction, and one tag context per direction (tx for the frames sent,
 * rx for the frames received). on is false on an unauthenticated
 * (--insecure) connection. Starts zeroed; wire_auth_release frees it. */
struct wire_auth {
	bool on;
	unsigned char k_out[WIRE_AUTH_TAG], k_in[WIRE_AUTH_TAG];
	uint64_t seq_out, seq_in;
	struct wire_mac tx, rx;
};

/* Reads the secret file: refused (IMC_EXIT_NOPERM) when group or others
 * may read or write it, (IMC_EXIT_DATAERR) when shorter than 16 bytes.
 * Returns 0 or -1 with d set. */
int wire_secret_load(const char *path, struct wire_secret *s, struct diag *d);
/* Wipes and frees the key. */
void wire_secret_release(struct wire_secret *s);

/* Handshake pieces, for the blocking clients and the PS's state machine. */
int wire_auth_nonce(unsigned char n[WIRE_AUTH_NONCE], struct diag *d);
/* out = HMAC(K, label | a | b), a and b being nonces. */
void wire_auth_proof(const struct wire_secret *s, const char *label,
		     const unsigned char *a, const unsigned char *b,
		     unsigned char out[WIRE_AUTH_TAG]);
/* Constant-time comparison of two proofs (WIRE_AUTH_TAG bytes). */
bool wire_auth_equal(const unsigned char *a, const unsigned char *b);
/* Constant-time comparison of two frame tags (WIRE_FRAME_TAG bytes). */
bool wire_tag_equal(const unsigned char *a, const unsigned char *b);
/* Derives the direction keys (client: out is c2s), zeroes the counters, on.
 * The tag contexts are keyed again at their next frame. */
void wire_auth_keys(const struct wire_secret *s, const unsigned char nc[WIRE_AUTH_NONCE],
		    const unsigned char ns[WIRE_AUTH_NONCE], bool client, struct wire_auth *a);

/* The whole handshake on a blocking (or SO_RCVTIMEO) socket. A failure is
 * IMC_EXIT_NOPERM when the peer's proof was wrong or the peer closed on
 * ours (it holds another secret), else IMC_EXIT_UNAVAILABLE. */
int wire_auth_client(int fd, const struct wire_secret *s, struct wire_auth *a,
		     struct diag *d);
int wire_auth_server(int fd, const struct wire_secret *s, struct wire_auth *a,
		     struct diag *d);

/* Frame tags. An incremental MAC: begin with the direction's key and
 * sequence number, add the frame's bytes, end. The context is keyed on its
 * first frame and whenever the key differs from the last one; other frames
 * only set the IV. */
void wire_mac_begin(struct wire_mac *m, const unsigned char key[WIRE_AUTH_TAG], uint64_t seq);
/* The same with the whole IV given, for a key whose IVs are not one
 * counter (the ring's gather key, ring.c); it must never repeat under
 * the key. */
void wire_mac_begin_iv(struct wire_mac *m, const unsigned char key[WIRE_AUTH_TAG],
		       const unsigned char iv[WIRE_MAC_IV]);
void wire_mac_add(struct wire_mac *m, const void *p, size_t n);
void wire_mac_end(struct wire_mac *m, unsigned char out[WIRE_FRAME_TAG]);
void wire_mac_release(struct wire_mac *m);
/* The tag of the next outgoing frame iov[0..n) (seq_out is advanced),
 * computed with a->tx. */
void wire_auth_tag_out(struct wire_auth *a, const struct iovec *iov, int n,
		       unsigned char out[WIRE_FRAME_TAG]);
/* Frees the tag contexts and wipes the keys (the struct is left zeroed). */
void wire_auth_release(struct wire_auth *a);

#endif
