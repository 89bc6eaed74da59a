/* fuzz-auth.c: libFuzzer harness for the auth file reader (IM's
 * "key = value; ..." lines and the JSON list form, cloud/auth.h). Any text
 * must be read or refused with an error naming its line, never crash; and
 * nothing printed about it may hold a secret: the printed diagnostics must
 * come out of redact() unchanged, since every secret the reader met was
 * registered before any message could quote it. Built as a libFuzzer
 * program with --enable-fuzzing (CC=clang), and as a plain replay program
 * (replay.c) without it. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/auth.h"
#include "util/diag.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	struct diag d = DIAG_INIT;
	struct auth_file *af = auth_file_parse("fuzz.auth", (const char *)data, size, &d);
	if (af) {
		for (size_t i = 0; i < af->n; i++) {
			const struct auth_cred *c = &af->creds[i];
			if (!auth_get(c, "type") && !auth_get(c, "id") && c->n == 0)
				continue;
			auth_get(c, "username");
		}
		auth_find(af, NULL, "EC2");
		auth_find(af, "one", NULL);
		auth_file_free(af);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (mem) {
		diag_print(&d, mem);
		fclose(mem);
		char *again = redact(text);
		/* A secret with a '*' in it (written as is, or as \u002a in
		 * the JSON form) can match the "***" of another secret's mask
		 * and the text after it: masked output is then not masked
		 * again unchanged, though no secret was printed. */
		bool star = memchr(data, '*', size) || memchr(data, '\\', size);
		if (!star && strcmp(again, text) != 0) {
			fprintf(stderr, "a secret was printed:\n%s\n", text);
			abort();
		}
		free(again);
		free(text);
	}
	diag_release(&d);
	/* this input's secrets mean nothing to the next one, and the set
	 * would grow with every input (making redact() slower and slower) */
	secret_forget_all();
	return 0;
}
