/* tests.c: the tests of the templating engine (`x is name(args)`), which
 * registry.c lists:
 * Jinja2's builtin tests plus Ansible's result tests (succeeded, failed,
 * changed, skipped, finished...) with Ansible's exact rules — a skipped task
 * counts as succeeded, which the thesis's async polling relies on — and the
 * `version` test with LooseVersion ordering, and Ansible's
 * path, set, URL (urlsplit from filters-path.c) and NaN tests. The
 * filter and test tests ask the context's registry. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ARG(i, n) arg_get(args, kw, (i), (n))

TEST_FN(defined) { (void)ev; (void)args; (void)kw; (void)pos; *res = in != NULL; return 0; }
TEST_FN(undefined) { (void)ev; (void)args; (void)kw; (void)pos; *res = in == NULL; return 0; }
TEST_FN(none) { (void)ev; (void)args; (void)kw; (void)pos; *res = json_is_null(in); return 0; }

static int need_dict(struct ev *ev, json_t *in, const char *test, size_t pos)
{
	if (json_is_object(in))
		return 0;
	ev_error(ev, TMPL_ERR_TYPE, pos, "The '%s' test expects a dictionary", test);
	return -1;
}

static bool is_failed(json_t *r) { return val_truthy(json_object_get(r, "failed")); }

TEST_FN(failed)
{
	if (need_dict(ev, in, "failed", pos) < 0)
		return -1;
	*res = is_failed(in);
	return 0;
}

TEST_FN(succeeded)
{
	if (need_dict(ev, in, "succeeded", pos) < 0)
		return -1;
	*res = !is_failed(in);
	return 0;
}

TEST_FN(changed)
{
	if (need_dict(ev, in, "changed", pos) < 0)
		return -1;
	json_t *c = json_object_get(in, "changed");
	if (c) {
		*res = val_truthy(c);
		return 0;
	}
	*res = false;
	json_t *rs = json_object_get(in, "results");
	for (size_t i = 0; json_is_array(rs) && i < json_array_size(rs); i++)
		if (val_truthy(json_object_get(json_array_get(rs, i), "changed")))
			*res = true;
	return 0;
}

TEST_FN(skipped)
{
	if (need_dict(ev, in, "skipped", pos) < 0)
		return -1;
	*res = val_truthy(json_object_get(in, "skipped"));
	return 0;
}

TEST_FN(finished)
{
	if (need_dict(ev, in, "finished", pos) < 0)
		return -1;
	json_t *f = json_object_get(in, "finished");
	*res = !f || (val_is_int(f) && val_int(f) == 1) || (json_is_real(f) && json_real_value(f) == 1);
	return 0;
}

TEST_FN(started)
{
	if (need_dict(ev, in, "started", pos) < 0)
		return -1;
	json_t *f = json_object_get(in, "started");
	*res = !f || (val_is_int(f) && val_int(f) == 1) || (json_is_real(f) && json_real_value(f) == 1);
	return 0;
}

TEST_FN(unreachable)
{
	if (need_dict(ev, in, "unreachable", pos) < 0)
		return -1;
	*res = val_truthy(json_object_get(in, "unreachable"));
	return 0;
}

TEST_FN(reachable)
{
	if (need_dict(ev, in, "reachable", pos) < 0)
		return -1;
	*res = !val_truthy(json_object_get(in, "unreachable"));
	return 0;
}

/* ---- version (LooseVersion) -------------------------------------------- */

static json_t *loose_parts(const char *s)
{
	json_t *l = json_array();
	const char *p = s;
	while (*p) {
		if (isdigit((unsigned char)*p)) {
			const char *q = p;
			while (isdigit((unsigned char)*q))
				q++;
			char *num = xstrndup(p, (size_t)(q - p));
			json_array_append_new(l, json_integer(strtoll(num, NULL, 10)));
			free(num);
			p = q;
		} else if (isalpha((unsigned char)*p)) {
			const char *q = p;
			while (isalpha((unsigned char)*q))
				q++;
			json_array_append_new(l, json_stringn_nocheck(p, (size_t)(q - p)));
			p = q;
		} else if (*p == '.') {
			p++;
		} else {
			json_array_append_new(l, json_stringn_nocheck(p, 1));
			p++;
		}
	}
	return l;
}

/* Strict versions: N.N[.N][{a|b}N]. Returns parts or NULL. */
static json_t *strict_parts(const char *s)
{
	long long v[3] = { 0, 0, 0 };
	int n = 0;
	const char *p = s;
	while (n < 3) {
		if (!isdigit((unsigned char)*p))
			return NULL;
		char *e;
		v[n++] = strtoll(p, &e, 10);
		p = e;
		if (*p != '.')
			break;
		p++;
	}
	if (n < 2)
		return NULL;
	json_t *l = json_pack("[III]", v[0], v[1], v[2]);
	if (*p == 'a' || *p == 'b') {
		json_array_append_new(l, json_stringn_nocheck(p, 1));
		p++;
		if (!isdigit((unsigned char)*p)) {
			json_decref(l);
			return NULL;
		}
		char *e;
		json_array_append_new(l, json_integer(strtoll(p, &e, 10)));
		p = e;
	} else {
		json_array_append_new(l, json_string("~")); /* final release sorts after pre-releases */
	}
	if (*p) {
		json_decref(l);
		return NULL;
	}
	return l;
}

TEST_FN(version)
{
	json_t *want = ARG(0, "version");
	json_t *jop = ARG(1, "operator");
	json_t *strict = ARG(2, "strict");
	json_t *vtype = ARG(3, "version_type");
	if (!want) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Version parameter to compare against cannot be empty");
		return -1;
	}
	const char *op = json_is_string(jop) ? json_string_value(jop) : "eq";
	char *a = val_to_cstr(in), *b = val_to_cstr(want);
	bool use_strict = val_truthy(strict) || (json_is_string(vtype) && !strcmp(json_string_value(vtype), "strict"));
	json_t *pa = use_strict ? strict_parts(a) : loose_parts(a);
	json_t *pb = use_strict ? strict_parts(b) : loose_parts(b);
	int rc = 0, c = 0;
	if (!pa || !pb) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Version comparison failed: invalid version number '%s'", pa ? b : a);
		rc = -1;
	} else if (val_compare(pa, pb, &c) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Version comparison failed: '<' not supported between instances of 'int' and 'str'");
		rc = -1;
	}
	if (rc == 0) {
		if (!strcmp(op, "==") || !strcmp(op, "=") || !strcmp(op, "eq"))
			*res = c == 0;
		else if (!strcmp(op, "<") || !strcmp(op, "lt"))
			*res = c < 0;
		else if (!strcmp(op, "<=") || !strcmp(op, "le"))
			*res = c <= 0;
		else if (!strcmp(op, ">") || !strcmp(op, "gt"))
			*res = c > 0;
		else if (!strcmp(op, ">=") || !strcmp(op, "ge"))
			*res = c >= 0;
		else if (!strcmp(op, "!=") || !strcmp(op, "<>") || !strcmp(op, "ne"))
			*res = c != 0;
		else {
			ev_error(ev, TMPL_ERR_TYPE, pos, "Invalid operator type (%s)", op);
			rc = -1;
		}
	}
	json_decref(pa);
	json_decref(pb);
	free(a);
	free(b);
	return rc;
}

/* ---- regex ---------------------------------------------------------------- */

static int rx_test(struct ev *ev, json_t *in, json_t *args, json_t *kw, size_t pos, bool *res, int mode)
{
	json_t *pat = ARG(0, "pattern");
	int flags = 0;
	if (val_truthy(ARG(1, "ignorecase")))
		flags |= 1;
	if (val_truthy(ARG(2, "multiline")))
		flags |= 2;
	if (mode == 2) {
		json_t *mt = ARG(3, "match_type");
		mode = json_is_string(mt) && !strcmp(json_string_value(mt), "match") ? 0 : 1;
	}
	if (!json_is_string(pat)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "the regex pattern must be a string");
		return -1;
	}
	char *s = val_to_cstr(in);
	size_t n = json_is_string(in) ? json_string_length(in) : strlen(s);
	int r = regex_search(ev, json_string_value(pat), flags, s, n, mode == 0, pos);
	free(s);
	if (r < 0)
		return -1;
	*res = r == 1;
	return 0;
}

TEST_FN(match) { return rx_test(ev, in, args, kw, pos, res, 0); }
TEST_FN(search) { return rx_test(ev, in, args, kw, pos, res, 1); }
TEST_FN(regex) { return rx_test(ev, in, args, kw, pos, res, 2); }

/* ---- comparisons and types ----------------------------------------------- */

static int cmp_test(struct ev *ev, json_t *in, json_t *args, size_t pos, bool *res, int op)
{
	json_t *o = json_array_get(args, 0);
	if (!o) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "comparison test needs an argument");
		return -1;
	}
	if (op == 0) {
		*res = val_equal(in, o);
		return 0;
	}
	if (op == 1) {
		*res = !val_equal(in, o);
		return 0;
	}
	int c;
	int ord = val_compare(in, o, &c);
	if (ord < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'<' not supported between instances of '%s' and '%s'", val_typename(in),
			 val_typename(o));
		return -1;
	}
	/* a NaN is unordered: each comparison is false */
	*res = ord == 0 && (op == 2 ? c < 0 : op == 3 ? c <= 0 : op == 4 ? c > 0 : c >= 0);
	return 0;
}

TEST_FN(eq) { (void)kw; return cmp_test(ev, in, args, pos, res, 0); }
TEST_FN(ne) { (void)kw; return cmp_test(ev, in, args, pos, res, 1); }
TEST_FN(lt) { (void)kw; return cmp_test(ev, in, args, pos, res, 2); }
TEST_FN(le) { (void)kw; return cmp_test(ev, in, args, pos, res, 3); }
TEST_FN(gt) { (void)kw; return cmp_test(ev, in, args, pos, res, 4); }
TEST_FN(ge) { (void)kw; return cmp_test(ev, in, args, pos, res, 5); }

TEST_FN(in)
{
	(void)kw;
	json_t *seq = json_array_get(args, 0);
	if (!seq || val_contains(seq, in, res) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "argument of type '%s' is not iterable", val_typename(seq));
		return -1;
	}
	return 0;
}

TEST_FN(contains)
{
	(void)kw;
	json_t *x = json_array_get(args, 0);
	if (!x || val_contains(in, x, res) < 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "argument of type '%s' is not iterable", val_typename(in));
		return -1;
	}
	return 0;
}

/* Python's value % num for Jinja's odd, even and divisibleby, which test
 * its result: integers stay exact, a float takes Python's float modulo
 * (the sign of num; NaN for an infinite value); text is '%' formatting,
 * which fails. 0 and *m, or -1 with the error. */
static int py_mod(struct ev *ev, json_t *in, json_t *num, size_t pos, double *m)
{
	if (!(json_is_number(in) || json_is_boolean(in)) || !(json_is_number(num) || json_is_boolean(num))) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "not all arguments converted during string formatting");
		return -1;
	}
	if (val_is_int(in) && val_is_int(num)) {
		long long v = val_int(in), d = val_int(num);
		if (d == 0) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "integer modulo by zero");
			return -1;
		}
		long long r = d == -1 ? 0 : v % d;
		if (r != 0 && ((r < 0) != (d < 0)))
			r += d;
		*m = (double)r;
		return 0;
	}
	double x, y;
	val_num(in, &x);
	val_num(num, &y);
	if (y == 0) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "float modulo");
		return -1;
	}
	double r = fmod(x, y);
	if (r != 0 && ((r < 0) != (y < 0)))
		r += y;
	*m = r;
	return 0;
}

TEST_FN(odd)
{
	(void)args; (void)kw;
	json_t *two = json_integer(2);
	double m;
	int rc = py_mod(ev, in, two, pos, &m);
	json_decref(two);
	*res = rc == 0 && m == 1;
	return rc;
}

TEST_FN(even)
{
	(void)args; (void)kw;
	json_t *two = json_integer(2);
	double m;
	int rc = py_mod(ev, in, two, pos, &m);
	json_decref(two);
	*res = rc == 0 && m == 0;
	return rc;
}

TEST_FN(divisibleby)
{
	json_t *jd = ARG(0, "num");
	double m;
	if (!jd) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "test_divisibleby() missing 1 required positional argument: 'num'");
		return -1;
	}
	if (py_mod(ev, in, jd, pos, &m) < 0)
		return -1;
	*res = m == 0;
	return 0;
}

#define TYPE_TEST(name, expr) \
	TEST_FN(name) { (void)ev; (void)args; (void)kw; (void)pos; *res = (expr); return 0; }

TYPE_TEST(string, json_is_string(in))
TYPE_TEST(number, json_is_number(in) || json_is_boolean(in))
TYPE_TEST(integer, json_is_integer(in))
TYPE_TEST(float, json_is_real(in))
TYPE_TEST(boolean, json_is_boolean(in))
TYPE_TEST(mapping, json_is_object(in))
TYPE_TEST(sequence, json_is_array(in) || json_is_string(in) || json_is_object(in))
TYPE_TEST(iterable, json_is_array(in) || json_is_string(in) || json_is_object(in))
TYPE_TEST(is_true, json_is_true(in))
TYPE_TEST(is_false, json_is_false(in))
TYPE_TEST(truthy, val_truthy(in))
TYPE_TEST(falsy, !val_truthy(in))
TYPE_TEST(callable, false)
TYPE_TEST(escaped, false)

TEST_FN(sameas)
{
	(void)kw;
	json_t *o = json_array_get(args, 0);
	(void)ev;
	(void)pos;
	/* Python `is`: singletons compare by value, others by identity */
	if (json_is_boolean(in) || json_is_null(in))
		*res = o && json_typeof(in) == json_typeof(o);
	else
		*res = in == o;
	return 0;
}

static int case_test(struct ev *ev, json_t *in, size_t pos, bool *res, bool upper)
{
	(void)ev;
	(void)pos;
	char *s = val_to_cstr(in);
	bool cased = false, ok = true;
	for (const char *p = s; *p; p++) {
		if (islower((unsigned char)*p)) {
			cased = true;
			if (upper)
				ok = false;
		} else if (isupper((unsigned char)*p)) {
			cased = true;
			if (!upper)
				ok = false;
		}
	}
	free(s);
	*res = ok && cased;
	return 0;
}

TEST_FN(lower) { (void)args; (void)kw; return case_test(ev, in, pos, res, false); }
TEST_FN(upper) { (void)args; (void)kw; return case_test(ev, in, pos, res, true); }

TEST_FN(subset)
{
	(void)kw;
	json_t *big = json_array_get(args, 0);
	json_t *a = val_iter_list(in), *b = big ? val_iter_list(big) : NULL;
	if (!a || !b) {
		json_decref(a);
		json_decref(b);
		ev_error(ev, TMPL_ERR_TYPE, pos, "subset/superset tests need two lists");
		return -1;
	}
	/* Ansible builds Python sets of both sides */
	for (size_t i = 0; i < json_array_size(a) + json_array_size(b); i++) {
		json_t *x = i < json_array_size(a) ? json_array_get(a, i) : json_array_get(b, i - json_array_size(a));
		if (json_is_array(x) || json_is_object(x)) {
			ev_error(ev, TMPL_ERR_TYPE, pos, "unhashable type: '%s'", val_typename(x));
			json_decref(a);
			json_decref(b);
			return -1;
		}
	}
	*res = true;
	for (size_t i = 0; i < json_array_size(a) && *res; i++) {
		bool f;
		val_contains(b, json_array_get(a, i), &f);
		*res = f;
	}
	json_decref(a);
	json_decref(b);
	return 0;
}

TEST_FN(superset)
{
	json_t *small = json_array_get(args, 0);
	if (!small) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "subset/superset tests need two lists");
		return -1;
	}
	json_t *swapped = json_pack("[O]", in);
	int rc = test_subset(ev, small, swapped, kw, pos, res);
	json_decref(swapped);
	return rc;
}

TEST_FN(all)
{
	(void)args; (void)kw;
	json_t *l = val_iter_list(in);
	if (!l) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object is not iterable", val_typename(in));
		return -1;
	}
	*res = true;
	for (size_t i = 0; i < json_array_size(l); i++)
		if (!val_truthy(json_array_get(l, i)))
			*res = false;
	json_decref(l);
	return 0;
}

TEST_FN(any)
{
	(void)args; (void)kw;
	json_t *l = val_iter_list(in);
	if (!l) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "'%s' object is not iterable", val_typename(in));
		return -1;
	}
	*res = false;
	for (size_t i = 0; i < json_array_size(l); i++)
		if (val_truthy(json_array_get(l, i)))
			*res = true;
	json_decref(l);
	return 0;
}

static int path_test(json_t *in, bool *res, int kind)
{
	struct stat st;
	const char *p = json_string_value(in);
	if (!p) {
		*res = false;
		return 0;
	}
	if (kind == 4) {
		*res = p[0] == '/';
		return 0;
	}
	int r = kind == 3 ? lstat(p, &st) : stat(p, &st);
	if (r < 0) {
		*res = false;
		return 0;
	}
	switch (kind) {
	case 0: *res = true; break;
	case 1: *res = S_ISREG(st.st_mode); break;
	case 2: *res = S_ISDIR(st.st_mode); break;
	case 3: *res = S_ISLNK(st.st_mode); break;
	}
	return 0;
}

TEST_FN(exists) { (void)ev; (void)args; (void)kw; (void)pos; return path_test(in, res, 0); }
TEST_FN(file) { (void)ev; (void)args; (void)kw; (void)pos; return path_test(in, res, 1); }
TEST_FN(directory) { (void)ev; (void)args; (void)kw; (void)pos; return path_test(in, res, 2); }
TEST_FN(link) { (void)ev; (void)args; (void)kw; (void)pos; return path_test(in, res, 3); }
TEST_FN(abs) { (void)ev; (void)args; (void)kw; (void)pos; return path_test(in, res, 4); }

/* Python's math.isnan: true only for a float NaN; other types are not
 * numbers to it (TypeError, which Ansible's test turns into false). */
TEST_FN(nan)
{
	(void)ev; (void)args; (void)kw; (void)pos;
	*res = json_is_real(in) && isnan(json_real_value(in));
	return 0;
}

/* os.lstat's TypeError, which these tests do not catch. */
static int need_path(struct ev *ev, const json_t *in, size_t pos)
{
	if (json_is_string(in))
		return 0;
	ev_error(ev, TMPL_ERR_TYPE, pos, "lstat: path should be string, bytes or os.PathLike, not %s", val_typename(in));
	return -1;
}

/* os.path.lexists: the path names something, a dangling link included. */
TEST_FN(link_exists)
{
	(void)args; (void)kw;
	struct stat st;
	if (need_path(ev, in, pos) < 0)
		return -1;
	*res = lstat(json_string_value(in), &st) == 0;
	return 0;
}

/* os.path.ismount: an existing path, not a symlink, on another device
 * than its parent or the same inode as it (the root). */
TEST_FN(mount)
{
	(void)args; (void)kw;
	struct stat st, pst;
	*res = false;
	if (need_path(ev, in, pos) < 0)
		return -1;
	if (lstat(json_string_value(in), &st) < 0 || S_ISLNK(st.st_mode))
		return 0;
	char *parent = xasprintf("%s/..", json_string_value(in));
	char *real = realpath(parent, NULL);
	if (real && lstat(real, &pst) == 0)
		*res = st.st_dev != pst.st_dev || st.st_ino == pst.st_ino;
	free(real);
	free(parent);
	return 0;
}

/* os.path.samefile: both paths must exist (Python raises otherwise, and
 * so does Ansible's test); same device and inode. */
TEST_FN(same_file)
{
	json_t *other = ARG(0, "f2");
	struct stat a, b;
	if (!json_is_string(in) || !other || !json_is_string(other)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "same_file: expected two paths, got %s and %s", val_typename(in),
			 other ? val_typename(other) : "nothing");
		return -1;
	}
	const char *missing = stat(json_string_value(in), &a) < 0 ? json_string_value(in)
			      : stat(json_string_value(other), &b) < 0 ? json_string_value(other) : NULL;
	if (missing) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "[Errno 2] No such file or directory: '%s'", missing);
		return -1;
	}
	*res = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return 0;
}

/* Ansible's uri test: urllib.parse.urlparse() accepts the value (a string,
 * or a falsy value it reads as an empty one) and, when schemes are given,
 * its scheme is one of them. */
static bool uri_parts(json_t *in, json_t *schemes, struct url_parts *u)
{
	const char *err;
	memset(u, 0, sizeof(*u));
	if (!json_is_string(in) && val_truthy(in))
		return false;
	const char *s = json_is_string(in) ? json_string_value(in) : "";
	if (url_split(s, json_is_string(in) ? json_string_length(in) : 0, u, &err) < 0)
		return false;
	if (!json_is_string(in)) {
		/* Python answers bytes for a non-string: b'' is never 'file' */
		free(u->scheme);
		u->scheme = xstrdup("\x01bytes");
	}
	if (schemes && val_truthy(schemes)) {
		json_t *sj = json_string(u->scheme);
		bool found = false;
		if (!sj || val_contains(schemes, sj, &found) < 0)
			found = false;
		json_decref(sj);
		if (!found) {
			url_parts_release(u);
			return false;
		}
	}
	return true;
}

TEST_FN(uri)
{
	(void)ev; (void)pos;
	struct url_parts u;
	*res = uri_parts(in, ARG(0, "schemes"), &u);
	url_parts_release(&u);
	return 0;
}

/* url: a uri with a netloc, or of scheme 'file'. */
TEST_FN(url)
{
	(void)ev; (void)pos;
	struct url_parts u;
	*res = uri_parts(in, ARG(0, "schemes"), &u) && (*u.netloc || !strcmp(u.scheme, "file"));
	url_parts_release(&u);
	return 0;
}

TEST_FN(urn)
{
	(void)ev; (void)pos; (void)args; (void)kw;
	struct url_parts u;
	json_t *schemes = json_pack("[s]", "urn");
	*res = uri_parts(in, schemes, &u);
	json_decref(schemes);
	url_parts_release(&u);
	return 0;
}

/* Ansible's vault_encrypted: true for a value loaded from a !vault tag
 * (the loader marks them: util/vault.c). */
TEST_FN(vault_encrypted)
{
	(void)ev;
	(void)args;
	(void)kw;
	(void)pos;
	*res = json_is_string(in) && vault_text_marked(json_string_value(in), json_string_length(in));
	return 0;
}

/* Jinja2's `filter` and `test` tests: whether a name is a known filter or
 * test. Under Ansible 2.14 an unknown name is an error (its plugin loader
 * raises instead of answering false), and so is a name that is not a
 * string. */
static int known_name(struct ev *ev, json_t *in, bool found, size_t pos, bool *res)
{
	if (!json_is_string(in)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "key must be a string, got %s instead", val_typename(in));
		return -1;
	}
	if (!found) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "Could not load \"%s\"", json_string_value(in));
		return -1;
	}
	*res = true;
	return 0;
}

TEST_FN(filter)
{
	(void)args; (void)kw;
	return known_name(ev, in, json_is_string(in) && reg_filter(ev->reg, json_string_value(in)), pos, res);
}

TEST_FN(test)
{
	(void)args; (void)kw;
	return known_name(ev, in, json_is_string(in) && reg_test(ev->reg, json_string_value(in)), pos, res);
}
