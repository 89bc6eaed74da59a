/* udiff.h: the unified diff of two texts, line by line, exactly as
 * Python's difflib.unified_diff computes it (its SequenceMatcher, autojunk
 * included), because ansible-playbook --diff prints that and imc's task log
 * must print the same hunks. */
#ifndef IMC_UTIL_UDIFF_H
#define IMC_UTIL_UDIFF_H

#include <stddef.h>

#include "util/strbuf.h"

/* Appends to out the "--- FROM\n+++ TO\n@@ ... @@\n" hunks turning
 * before into after with n lines of context; nothing when they have the
 * same lines. Lines split as Python's str.splitlines(True) splits them
 * and keep their ends; a last line without one gets "\n\\ No newline at
 * end of file\n" appended first, as Ansible's callback does. */
void udiff(struct strbuf *out, const char *before, size_t blen, const char *after, size_t alen,
	   const char *from, const char *to, int n);

#endif
