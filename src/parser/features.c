/* features.c: the table of RADL attributes that IM validates (name, class,
 * type, unit, value check, doc), the unit multipliers, and the check of one
 * feature against the table (tmux options-table.c).
 *
 * Only the attributes listed here are validated, exactly as IM does: any
 * other feature is accepted whatever its value, because recipes use free
 * features (instance_type, gpu.count, ...) that IM passes to clouds as is. */
#include "config.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parser/radl-int.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum atype { A_STRING, A_NUMBER, A_INTEGER, A_STRING_OR_LIST, A_CONTAINS };
enum aunit { U_NONE, U_MEMORY, U_PERF };

/* What a value may be. */
typedef bool value_check_fn(const struct radl_doc *doc, const struct radl_feature *f);

struct attr {
	const char *name;        /* full name, or the suffix after 'disk.N.' etc. */
	enum atype type;
	enum aunit unit;         /* numbers only */
	const char *const *oneof; /* strings: allowed values (any case), or NULL */
	value_check_fn *check;   /* further check, or NULL */
	const char *doc;
};

static const char *const yes_no[] = { "yes", "no", NULL };
static const char *const image_types[] = { "vmdk", "qcow", "qcow2", "raw", NULL };
static const char *const archs[] = { "i386", "x86_64", NULL };
static const char *const os_names[] = { "linux", "windows", "mac os x", NULL };
static const char *const memory_units[] = {
	"", "B", "K", "M", "G", "T", "KB", "MB", "GB", "TB", "KI", "MI", "GI",
	"KIB", "MIB", "GIB", "TIB", NULL };
static const char *const perf_units[] = { "ECU", "GCEU", "HRZ", NULL };

static bool non_negative(const struct radl_doc *doc, const struct radl_feature *f)
{
	(void)doc;
	return f->num.value >= 0;
}

static bool non_empty(const struct radl_doc *doc, const struct radl_feature *f)
{
	(void)doc;
	return f->str[0] != '\0';
}

/* dot-separated digit groups, or empty */
static bool version_like(const struct radl_doc *doc, const struct radl_feature *f)
{
	(void)doc;
	const char *s = f->str;
	if (!*s)
		return true;
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		if (!*s)
			return true;
		if (*s++ != '.')
			return false;
	}
}

/* at least 7 characters, an uppercase letter, a digit and a symbol */
static bool strong_password(const struct radl_doc *doc, const struct radl_feature *f)
{
	(void)doc;
	bool upper = false, digit = false, other = false;
	size_t n = strlen(f->str);
	for (const char *s = f->str; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isupper(c))
			upper = true;
		else if (isdigit(c))
			digit = true;
		else if (!isalpha(c))
			other = true;
	}
	return n >= 7 && upper && digit && other;
}

static bool names_ansible(const struct radl_doc *doc, const struct radl_feature *f)
{
	return radl_find_ansible(doc, f->str) != NULL;
}

static bool names_network(const struct radl_doc *doc, const struct radl_feature *f)
{
	return radl_find_network(doc, f->str) != NULL;
}

static bool outports_ok(const struct radl_doc *doc, const struct radl_feature *f)
{
	(void)doc;
	return radl_outports_valid(f->str, true);
}

static const struct attr network_attrs[] = {
	{ "outbound", A_STRING, U_NONE, yes_no, NULL, "whether the network is public" },
	{ "outports", A_STRING, U_NONE, NULL, outports_ok, "ports open to the outside" },
	{ "provider_id", A_STRING, U_NONE, NULL, NULL, "the cloud's name for the network" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr system_attrs[] = {
	{ "spot", A_STRING, U_NONE, yes_no, NULL, "use spot instances" },
	{ "image_type", A_STRING, U_NONE, image_types, NULL, "disk image format" },
	{ "virtual_system_type", A_STRING, U_NONE, NULL, NULL, "hypervisor" },
	{ "price", A_NUMBER, U_NONE, NULL, non_negative, "price per hour" },
	{ "cpu.count", A_NUMBER, U_NONE, NULL, non_negative, "number of CPUs" },
	{ "cpu.arch", A_STRING, U_NONE, archs, NULL, "CPU architecture" },
	{ "cpu.performance", A_NUMBER, U_PERF, NULL, non_negative, "CPU speed (ECU, GCEU, HRZ)" },
	{ "memory.size", A_INTEGER, U_MEMORY, NULL, non_negative, "RAM" },
	{ "disk.0.os.credentials.new.password", A_STRING, U_NONE, NULL, strong_password,
	  "password to set on the VM" },
	{ "ansible_host", A_STRING, U_NONE, NULL, names_ansible, "ansible sentence to use" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr net_if_attrs[] = {
	{ "connection", A_STRING, U_NONE, NULL, names_network, "network of the interface" },
	{ "ip", A_STRING, U_NONE, NULL, NULL, "fixed IP address" },
	{ "dns_name", A_STRING, U_NONE, NULL, NULL, "host name (#N# is the VM number)" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr disk_attrs[] = {
	{ "image.url", A_STRING_OR_LIST, U_NONE, NULL, NULL, "image to boot" },
	{ "image.name", A_STRING, U_NONE, NULL, NULL, "image name" },
	{ "type", A_STRING, U_NONE, NULL, NULL, "disk type" },
	{ "device", A_STRING, U_NONE, NULL, NULL, "device name" },
	{ "mount_path", A_STRING, U_NONE, NULL, NULL, "where to mount it" },
	{ "fstype", A_STRING, U_NONE, NULL, NULL, "file system" },
	{ "size", A_NUMBER, U_MEMORY, NULL, non_negative, "disk size" },
	{ "free_size", A_NUMBER, U_MEMORY, NULL, non_negative, "free space" },
	{ "os.name", A_STRING, U_NONE, os_names, NULL, "operating system" },
	{ "os.flavour", A_STRING, U_NONE, NULL, NULL, "distribution" },
	{ "os.version", A_STRING, U_NONE, NULL, version_like, "OS version" },
	{ "os.credentials.username", A_STRING, U_NONE, NULL, NULL, "login user" },
	{ "os.credentials.password", A_STRING, U_NONE, NULL, NULL, "login password" },
	{ "os.credentials.private_key", A_STRING, U_NONE, NULL, NULL, "login key" },
	{ "os.credentials.public_key", A_STRING, U_NONE, NULL, NULL, "public key" },
	{ "applications", A_CONTAINS, U_NONE, NULL, NULL, "software to install" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr app_attrs[] = {
	{ "name", A_STRING, U_NONE, NULL, non_empty, "application or role name" },
	{ "path", A_STRING, U_NONE, NULL, non_empty, "install path" },
	{ "version", A_STRING, U_NONE, NULL, version_like, "version" },
	{ "preinstalled", A_STRING, U_NONE, yes_no, NULL, "already in the image" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr ansible_attrs[] = {
	{ "host", A_STRING, U_NONE, NULL, NULL, "address of the ansible host" },
	{ "credentials.username", A_STRING, U_NONE, NULL, NULL, "user" },
	{ "credentials.password", A_STRING, U_NONE, NULL, NULL, "password" },
	{ "credentials.private_key", A_STRING, U_NONE, NULL, NULL, "key" },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const struct attr *find_attr(const struct attr *t, const char *name)
{
	for (; t->name; t++)
		if (t->name[0] == name[0] && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static void list_values(struct strbuf *sb, const char *const *v)
{
	for (size_t i = 0; v[i]; i++)
		strbuf_addf(sb, "%s'%s'", i ? ", " : "", v[i]);
}

static bool in_list(const char *s, const char *const *v)
{
	for (size_t i = 0; v[i]; i++)
		if (strcasecmp(s, v[i]) == 0)
			return true;
	return false;
}

static const char *type_name(enum atype t)
{
	switch (t) {
	case A_STRING: return "a string";
	case A_NUMBER: return "a number";
	case A_INTEGER: return "an integer";
	case A_STRING_OR_LIST: return "a string or a list of strings";
	case A_CONTAINS: return "a 'contains' block";
	}
	return "?";
}

/* Type, operator, value and unit of f against a. */
static int check_attr(const struct radl_doc *doc, const struct attr *a,
		      const struct radl_feature *f, struct diag *d)
{
	bool type_ok;
	switch (a->type) {
	case A_STRING: type_ok = f->kind == RADL_V_STRING; break;
	case A_NUMBER: type_ok = f->kind == RADL_V_NUMBER; break;
	case A_INTEGER: type_ok = f->kind == RADL_V_NUMBER && f->num.is_int; break;
	case A_STRING_OR_LIST: type_ok = f->kind == RADL_V_STRING || f->kind == RADL_V_LIST; break;
	case A_CONTAINS: type_ok = f->kind == RADL_V_CONTAINS; break;
	default: type_ok = false;
	}
	if (!type_ok) {
		diag_error(d, IMC_EXIT_DATAERR, &f->loc, "'%s' must be %s", f->name,
			   type_name(a->type));
		return -1;
	}
	if (f->kind == RADL_V_STRING && f->cmp != RADL_EQ && !strstr(f->name, "version")) {
		diag_error(d, IMC_EXIT_DATAERR, &f->loc,
			   "'%s' takes '=' only, not '%s'", f->name, radl_cmp_str(f->cmp));
		return -1;
	}
	if (f->kind == RADL_V_STRING && a->oneof && !in_list(f->str, a->oneof)) {
		struct strbuf sb = STRBUF_INIT;
		list_values(&sb, a->oneof);
		diag_error(d, IMC_EXIT_DATAERR, &f->loc,
			   "invalid value '%s' for '%s': expected one of %s", f->str, f->name,
			   strbuf_str(&sb));
		strbuf_release(&sb);
		return -1;
	}
	if (a->check && !a->check(doc, f)) {
		if (a->check == names_network)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "'%s' names network '%s', which is not defined", f->name, f->str);
		else if (a->check == names_ansible)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "'%s' names ansible host '%s', which is not defined", f->name, f->str);
		else if (a->check == strong_password)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "'%s' is too weak: it needs 7 characters or more, with an uppercase letter, a digit and a symbol",
				   f->name);
		else if (a->check == non_negative)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc, "'%s' cannot be negative", f->name);
		else if (a->check == outports_ok)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "invalid value '%s' for 'outports': expected [CIDR-]PORT[:PORT][/PROTO][-PORT[:PORT][/PROTO]] items separated by ','",
				   f->str);
		else if (a->check == version_like)
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "invalid value '%s' for '%s': expected dot-separated numbers",
				   f->str, f->name);
		else
			diag_error(d, IMC_EXIT_DATAERR, &f->loc, "invalid value for '%s'", f->name);
		return -1;
	}
	if (f->kind == RADL_V_NUMBER) {
		const char *u = f->num.unit;
		if (a->unit == U_NONE && u) {
			diag_error(d, IMC_EXIT_DATAERR, &f->loc, "'%s' takes no unit, not '%s'",
				   f->name, u);
			return -1;
		}
		const char *const *ok = a->unit == U_MEMORY ? memory_units :
					a->unit == U_PERF ? perf_units : NULL;
		if (ok && !in_list(u ? u : "", ok)) {
			struct strbuf sb = STRBUF_INIT;
			list_values(&sb, ok + (ok == memory_units));
			if (u)
				diag_error(d, IMC_EXIT_DATAERR, &f->loc,
					   "invalid unit '%s' for '%s': expected one of %s", u,
					   f->name, strbuf_str(&sb));
			else
				diag_error(d, IMC_EXIT_DATAERR, &f->loc,
					   "'%s' needs a unit: one of %s", f->name, strbuf_str(&sb));
			strbuf_release(&sb);
			return -1;
		}
	}
	return 0;
}

/* 'disk.N.rest' / 'net_interface.N.rest': returns the family table and sets
 * *rest, or NULL when name is not indexed. *index is -1 when the index is
 * not a number. */
const void *radl_indexed(const char *name, long *index, const char **rest)
{
	const struct attr *t;
	const char *p;
	if (strncmp(name, "disk.", 5) == 0) {
		t = disk_attrs;
		p = name + 5;
	} else if (strncmp(name, "net_interface.", 14) == 0) {
		t = net_if_attrs;
		p = name + 14;
	} else {
		return NULL;
	}
	const char *dot = strchr(p, '.');
	const char *seg_end = dot ? dot : p + strlen(p);
	*index = -1;
	if (seg_end > p && seg_end - p < 10) {
		long v = 0;
		const char *q = p;
		while (q < seg_end && isdigit((unsigned char)*q))
			v = v * 10 + (*q++ - '0');
		if (q == seg_end)
			*index = v;
	}
	*rest = dot ? dot + 1 : "";
	return t;
}

/* Whether 'rest' is a known suffix of the family (these count for the
 * contiguous-index and connection rules). */
bool radl_known_suffix(const void *family, const char *rest)
{
	return find_attr(family, rest) != NULL;
}

bool radl_is_net_family(const void *family)
{
	return family == (const void *)net_if_attrs;
}

int radl_check_app_feature(const struct radl_feature *f, struct diag *d)
{
	const struct attr *a = find_attr(app_attrs, f->name);
	return a ? check_attr(NULL, a, f, d) : 0;
}

int radl_check_feature(const struct radl_doc *doc, enum radl_class cls,
		       const struct radl_feature *f, struct diag *d)
{
	const struct attr *a = NULL;
	switch (cls) {
	case RADL_NETWORK:
		a = find_attr(network_attrs, f->name);
		break;
	case RADL_ANSIBLE:
		a = find_attr(ansible_attrs, f->name);
		break;
	case RADL_SYSTEM: {
		a = find_attr(system_attrs, f->name);
		if (a)
			break;
		long idx;
		const char *rest;
		const struct attr *fam = radl_indexed(f->name, &idx, &rest);
		if (!fam)
			break;
		if (idx < 0) {
			diag_error(d, IMC_EXIT_DATAERR, &f->loc,
				   "'%s': expected an index after '%.*s'", f->name,
				   (int)(strchr(f->name, '.') - f->name + 1), f->name);
			return -1;
		}
		a = find_attr(fam, rest);
		break;
	}
	default:
		break;
	}
	if (!a)
		return 0;
	return check_attr(doc, a, f, d);
}

bool radl_simple_attr(enum radl_class cls, const char *name)
{
	switch (cls) {
	case RADL_NETWORK: return find_attr(network_attrs, name) != NULL;
	case RADL_SYSTEM: return find_attr(system_attrs, name) != NULL;
	case RADL_ANSIBLE: return find_attr(ansible_attrs, name) != NULL;
	default: return false;
	}
}

const char *radl_required_unit(const char *name)
{
	const struct attr *a = find_attr(system_attrs, name);
	return a && a->unit == U_PERF ? perf_units[0] : NULL;
}

/* [CIDR-]PORT[:PORT][/PROTO][-PORT[:PORT][/PROTO]], IM's pattern; the
 * remote protocol defaults to the local one, which defaults to tcp, and the
 * two must agree. */
static bool outport_item_valid(const char *s, size_t n)
{
	static const char pat[] =
		"^(([0-9]{1,3}.[0-9]{1,3}.[0-9]{1,3}.[0-9]{1,3}/[0-9]{1,2})-)?"
		"([0-9]+)(:([0-9]+))?(/(tcp|udp|icmp))?"
		"(-([0-9]+)(:([0-9]+))?(/(tcp|udp|icmp))?)?$";
	regex_t re;
	regmatch_t m[15];
	char *item = xstrndup(s, n);
	bool ok = false;
	if (regcomp(&re, pat, REG_EXTENDED) != 0) {
		free(item);
		return false;
	}
	if (regexec(&re, item, 15, m, 0) == 0) {
		char lp[8] = "tcp", rp[8];
		if (m[7].rm_so >= 0) {
			size_t l = (size_t)(m[7].rm_eo - m[7].rm_so);
			memcpy(lp, item + m[7].rm_so, l);
			lp[l] = '\0';
		}
		memcpy(rp, lp, sizeof(rp));
		if (m[13].rm_so >= 0) {
			size_t l = (size_t)(m[13].rm_eo - m[13].rm_so);
			memcpy(rp, item + m[13].rm_so, l);
			rp[l] = '\0';
		}
		ok = strcmp(lp, rp) == 0;
	}
	regfree(&re);
	free(item);
	return ok;
}

bool radl_outports_valid(const char *s, bool lenient)
{
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		const char *p = s;
		if (lenient) {
			while (n && (*p == ' ' || *p == '\t')) {
				p++;
				n--;
			}
			while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
		}
		if (!outport_item_valid(p, n))
			return false;
		if (!comma)
			return true;
		s = comma + 1;
	}
}
