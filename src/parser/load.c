/* load.c: reading a RADL or RADL-JSON file into a document, with the format
 * chosen by content: IM accepts both wherever it takes RADL, and so do the
 * commands of imc (validate, radl, plan, create ...). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* JSON when the first non-blank character opens an array or an object; RADL
 * text never starts with either. */
static bool looks_like_json(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
			continue;
		return s[i] == '[' || s[i] == '{';
	}
	return false;
}

struct radl_doc *radl_load_file(const char *path, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		int err = errno;
		struct src_loc loc = { path, 0, 0 };
		diag_error(d, err == ENOENT || err == ENOTDIR ? IMC_EXIT_NOINPUT : IMC_EXIT_IOERR,
			   &loc, "cannot read '%s': %s", path, strerror(err));
		strbuf_release(&sb);
		return NULL;
	}
	struct radl_doc *doc;
	if (looks_like_json(sb.buf ? sb.buf : "", sb.len))
		doc = radl_parse_json(path, strbuf_str(&sb), sb.len, d);
	else
		doc = radl_parse(path, strbuf_str(&sb), sb.len, d);
	strbuf_release(&sb);
	return doc;
}
