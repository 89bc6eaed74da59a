/* diag.h: diagnostics. Library functions return 0 or -1 and record what went
 * wrong in the struct diag they were given; only main() prints and picks the
 * exit status (the codes of util/exitcode.h).
 *
 * A diag owns its items and copies every string it is given. Input files can
 * be registered with diag_add_source() so that printing shows the offending
 * line with a caret under the column (jq's locfile.c). */
#ifndef IMC_DIAG_H
#define IMC_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>

#include "util/exitcode.h"

/* A position in an input file: 1-based physical line and column.
 * line == 0 means "no position" (file-level or no file at all). */
struct src_loc {
	const char *file; /* borrowed: must outlive the diag (e.g. a source name) */
	int line;
	int col;
};

enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

struct diag_item {
	enum diag_level level;
	char *file; /* NULL when the message is not about an input file */
	int line, col;
	char *msg;
};

struct diag_source {
	char *file;
	char *text;
	size_t len;
};

struct diag {
	struct diag_item *items;
	size_t n, alloc;
	size_t nerrors;
	enum imc_exit code;  /* exit status suggested by the first error */
	struct diag_source *src;
	size_t nsrc;
};

#define DIAG_INIT { 0 }

void diag_init(struct diag *d);
void diag_release(struct diag *d);
/* Keep a copy of an input so errors in it can show the source line. */
void diag_add_source(struct diag *d, const char *file, const char *text, size_t len);

/* Appends the items (and sources) of from to d, in order, and empties
 * from: for messages collected aside until the caller knows they stand. */
void diag_move(struct diag *d, struct diag *from);

/* Record an error at loc (may be NULL); code is the exit status it implies.
 * Messages pass through the secret redaction layer when printed. */
void diag_error(struct diag *d, enum imc_exit code, const struct src_loc *loc,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_verror(struct diag *d, enum imc_exit code, const struct src_loc *loc,
		 const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
void diag_warning(struct diag *d, const struct src_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A note attached to the previous error ("note: '(' opened here"). */
void diag_note(struct diag *d, const struct src_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline int diag_has_errors(const struct diag *d) { return d->nerrors > 0; }
/* First error's message, or "" (for tests and one-line reports). */
const char *diag_first_message(const struct diag *d);

/* Print every item as "imc: error: msg" or "file:line:col: error: msg" plus
 * the source line and a caret when the source is known. */
void diag_print(const struct diag *d, FILE *fp);
/* Print every item as ansible-playbook prints a playbook's errors:
 * "ERROR! msg", then "The error appears to be in 'file': line L, column C"
 * and the source line; warnings as "[WARNING]: msg". For imc play, whose
 * users and scripts read Ansible's output (grep "ERROR! ..."). */
void diag_print_ansible(const struct diag *d, FILE *fp);
/* The program named in messages without a file ("imc: error: ...") and in
 * log lines; imc-train sets its own. Default "imc". */
void diag_set_program(const char *name);
const char *diag_program(void);
/* Print items as a JSON array value (for --json error reports). */
char *diag_to_json(const struct diag *d);

#endif
