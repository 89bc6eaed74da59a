/* user.c: the `user` module as Ansible 2.14's on Linux: one look-up of
 * the account (passwd, shadow, the groups named and those listing the
 * user), then the one useradd, usermod or userdel command Ansible's module
 * would build from what differs, a missing home made (skeleton copied,
 * login.defs' UMASK, owned by the user), an ssh key generated, and chage
 * for password_expire_min/max. The result holds what Ansible's does: name,
 * state, changed, the command's stdout/stderr, the account's uid, group,
 * comment, home and shell while it exists, system/create_home after a
 * creation, append/move_home after a modification, force/remove after a
 * removal, the ssh key's file, fingerprint and public key.
 * Check mode is native, as Ansible's module does it: adding or removing
 * an account is reported changed alone (the module exits there); a
 * modification, a missing home, a key to generate or a password age to
 * set are reported changed with the account as it is, and nothing is
 * run. Parameters of other platforms (local, seuser, login_class, hidden,
 * profile, role, authorization) and ssh_key_passphrase are not
 * implemented: such a task goes to Ansible. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "provision/module.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The account as the node's NSS has it; strings malloc'd. */
struct user_acct {
	bool exists;
	char *pw[7];                  /* passwd fields */
	char *hash;                   /* shadow hash, "" without shadow entry */
	bool shadow;                  /* a shadow entry was read */
	long long expire, min, max;   /* shadow; -1 when empty */
	json_t *member;               /* groups listing the user (names) */
	json_t *gids;                 /* per named group: its gid, or -1 */
	bool has_append;              /* usermod knows -a */
	bool home_param_exists;       /* the home parameter's path exists */
	bool home_parent_isdir;       /* its parent is a directory */
	bool home_exists;             /* the account's home exists */
	bool user_group;              /* a group of the user's name exists */
	char *hostname;
};

/* The arguments, parsed and checked as AnsibleModule's argument spec. */
struct user_args {
	const char *name, *state, *group, *comment, *home, *shell, *password;
	const char *skeleton, *umask, *ssh_type, *ssh_file, *ssh_comment, *update_password;
	long long uid, ssh_bits, exp_min, exp_max;
	bool has_uid, has_min, has_max;
	bool non_unique, force, remove, create_home, system, move_home, append;
	bool sshkeygen;
	int password_lock;            /* -1 not given */
	bool has_expires;
	double expires;
	json_t *groups;               /* list of stripped names, or NULL (not given) */
	bool groups_empty;            /* groups given and joined to '' */
	json_t *named;                /* group, then groups: the names looked up */
};

static void acct_release(struct user_acct *a)
{
	for (int i = 0; i < 7; i++)
		free(a->pw[i]);
	free(a->hash);
	free(a->hostname);
	json_decref(a->member);
	json_decref(a->gids);
	memset(a, 0, sizeof(*a));
}

/* field i (0-based) of a ':'-separated line, malloc'd ("" past the end) */
static char *field(const char *line, int i)
{
	while (i-- > 0) {
		line = strchr(line, ':');
		if (!line)
			return xstrdup("");
		line++;
	}
	return xstrndup(line, strcspn(line, ":\n"));
}

/* a shadow number field: -1 when empty, as Python's spwd gives it */
static long long shadow_num(const char *line, int i)
{
	char *f = field(line, i);
	long long v = *f ? strtoll(f, NULL, 10) : -1;
	free(f);
	return v;
}

/* Python's os.path.dirname: what precedes the last '/', trailing slashes
 * stripped unless it is all slashes; malloc'd */
static char *py_dirname(const char *p)
{
	const char *s = strrchr(p, '/');
	if (!s)
		return xstrdup("");
	size_t n = (size_t)(s - p) + 1;
	size_t k = n;
	while (k > 0 && p[k - 1] == '/')
		k--;
	return xstrndup(p, k ? k : n);
}

/* Looks the account up on the node in one round trip. 0, or -1
 * unreachable (*res set). */
static int acct_lookup(struct exec_ctx *x, const struct user_args *ua, struct user_acct *a,
		       json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "u=");
	sh_quote(&c, ua->name);
	strbuf_addstr(&c, "; ent=$(getent passwd \"$u\"); printf 'P=%s\\n' \"$ent\"; "
			  "s=$(getent shadow \"$u\" 2>/dev/null) && printf 'S=%s\\n' \"$s\"; ");
	size_t i;
	json_t *e;
	json_array_foreach(ua->named, i, e) {
		strbuf_addstr(&c, "printf 'N=%s\\n' \"$(getent group ");
		sh_quote(&c, json_string_value(e));
		strbuf_addstr(&c, " | cut -d: -f3)\"; ");
	}
	strbuf_addstr(&c, "getent group | awk -F: -v u=\"$u\" '{n=split($4,m,\",\"); for(i=1;i<=n;i++) if(m[i]==u) print \"M=\" $1}'; "
			  "getent group \"$u\" >/dev/null && echo UG=1; "
			  "usermod --help 2>&1 | grep -q '^ *-a, --append' && echo A=1; "
			  "h=$(printf %s \"$ent\" | cut -d: -f6); [ -n \"$h\" ] && [ -e \"$h\" ] && echo HE=1; ");
	if (ua->home) {
		char *parent = py_dirname(ua->home);
		strbuf_addstr(&c, "[ -e ");
		sh_quote(&c, ua->home);
		strbuf_addstr(&c, " ] && echo HP=1; [ -d ");
		sh_quote(&c, *parent ? parent : ".");
		strbuf_addstr(&c, " ] && echo HD=1; ");
		free(parent);
	}
	strbuf_addstr(&c, "echo \"H=$(uname -n)\"; exit 0");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc < 0)
		goto out;
	acct_release(a);
	a->member = json_array();
	a->gids = json_array();
	a->expire = a->min = a->max = -1;
	for (const char *l = strbuf_str(&cr.out); *l; ) {
		size_t n = strcspn(l, "\n");
		char *line = xstrndup(l, n);
		if (!strncmp(line, "P=", 2) && line[2]) {
			a->exists = true;
			for (int k = 0; k < 7; k++)
				a->pw[k] = field(line + 2, k);
		} else if (!strncmp(line, "S=", 2)) {
			a->shadow = true;
			a->hash = field(line + 2, 1);
			a->min = shadow_num(line + 2, 3);
			a->max = shadow_num(line + 2, 4);
			a->expire = shadow_num(line + 2, 7);
		} else if (!strncmp(line, "N=", 2))
			json_array_append_new(a->gids, json_integer(line[2] ? strtoll(line + 2, NULL, 10) : -1));
		else if (!strncmp(line, "M=", 2))
			json_array_append_new(a->member, json_string(line + 2));
		else if (!strcmp(line, "A=1"))
			a->has_append = true;
		else if (!strcmp(line, "UG=1"))
			a->user_group = true;
		else if (!strcmp(line, "HE=1"))
			a->home_exists = true;
		else if (!strcmp(line, "HP=1"))
			a->home_param_exists = true;
		else if (!strcmp(line, "HD=1"))
			a->home_parent_isdir = true;
		else if (!strncmp(line, "H=", 2)) {
			free(a->hostname);
			a->hostname = xstrdup(line + 2);
		}
		free(line);
		l += n;
		if (*l)
			l++;
	}
	if (!a->hash)
		a->hash = xstrdup("");
	if (a->exists && strlen(a->pw[1]) > 1) {
		/* user_info: the passwd field when it holds the hash */
		free(a->hash);
		a->hash = xstrdup(a->pw[1]);
	}
	if (!a->hostname)
		a->hostname = xstrdup("");
out:
	conn_result_release(&cr);
	return rc;
}

/* An argument of Ansible's int type: 0 (absent: *has false), or the
 * failure Ansible gives a value it cannot convert (new reference). */
static json_t *int_arg(json_t *args, const char *key, long long *out, bool *has)
{
	json_t *v = json_object_get(args, key);
	*has = false;
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_integer(v)) {
		*out = (long long)json_integer_value(v);
		*has = true;
		return NULL;
	}
	const char *s = json_string_value(v);
	char *end = NULL;
	if (s && *s && (*out = strtoll(s, &end, 10), !*end)) {
		*has = true;
		return NULL;
	}
	const char *t = s ? "<class 'str'>" : json_is_real(v) ? "<class 'float'>" : "<class 'bool'>";
	return res_fail("argument '%s' is of type %s and we were unable to convert to int: %s cannot be "
			"converted to an int", key, t, t);
}

/* The value of a choice argument, or the failure naming the choices. */
static json_t *choice_arg(json_t *args, const char *key, const char *dflt, const char *a,
			  const char *b, const char **out)
{
	const char *v = args_str(args, key);
	*out = v ? v : dflt;
	if (strcmp(*out, a) && strcmp(*out, b))
		return res_fail("value of %s must be one of: %s, %s, got: %s", key, a, b, *out);
	return NULL;
}

static void args_release(struct user_args *ua)
{
	json_decref(ua->groups);
	json_decref(ua->named);
}

/* Parses args into ua as Ansible's argument spec does; NULL, or the
 * failure (new reference). */
static json_t *args_parse(json_t *args, struct user_args *ua)
{
	json_t *r;
	memset(ua, 0, sizeof(*ua));
	ua->named = json_array();
	ua->name = args_str(args, "name");
	if (!ua->name)
		ua->name = args_str(args, "user");
	if (!ua->name)
		return res_fail("missing required arguments: name");
	if ((r = choice_arg(args, "state", "present", "absent", "present", &ua->state)) ||
	    (r = choice_arg(args, "update_password", "always", "always", "on_create", &ua->update_password)))
		return r;
	if ((r = int_arg(args, "uid", &ua->uid, &ua->has_uid)) ||
	    (r = int_arg(args, "ssh_key_bits", &ua->ssh_bits, &(bool){ false })) ||
	    (r = int_arg(args, "password_expire_min", &ua->exp_min, &ua->has_min)) ||
	    (r = int_arg(args, "password_expire_max", &ua->exp_max, &ua->has_max)))
		return r;
	bool lock = false;
	if ((r = mod_bool_arg(args, "non_unique", false, &ua->non_unique)) ||
	    (r = mod_bool_arg(args, "force", false, &ua->force)) ||
	    (r = mod_bool_arg(args, "remove", false, &ua->remove)) ||
	    (r = mod_bool_arg(args, json_object_get(args, "create_home") ? "create_home" : "createhome",
			      true, &ua->create_home)) ||
	    (r = mod_bool_arg(args, "system", false, &ua->system)) ||
	    (r = mod_bool_arg(args, "move_home", false, &ua->move_home)) ||
	    (r = mod_bool_arg(args, "append", false, &ua->append)) ||
	    (r = mod_bool_arg(args, "generate_ssh_key", false, &ua->sshkeygen)) ||
	    (r = mod_bool_arg(args, "password_lock", false, &lock)))
		return r;
	json_t *pl = json_object_get(args, "password_lock");
	ua->password_lock = pl && !json_is_null(pl) ? lock : -1;
	const char *const paths[] = { "home", "ssh_key_file", NULL };
	if ((r = mod_unexpanded("user", args, paths)))
		return r;
	ua->group = args_str(args, "group");
	ua->comment = args_str(args, "comment");
	ua->home = args_str(args, "home");
	ua->shell = args_str(args, "shell");
	ua->password = args_str(args, "password");
	ua->skeleton = args_str(args, "skeleton");
	ua->umask = args_str(args, "umask");
	ua->ssh_type = args_str(args, "ssh_key_type");
	if (!ua->ssh_type)
		ua->ssh_type = "rsa";
	ua->ssh_file = args_str(args, "ssh_key_file");
	ua->ssh_comment = args_str(args, "ssh_key_comment");
	json_t *ev = json_object_get(args, "expires");
	if (ev && !json_is_null(ev)) {
		const char *s = json_string_value(ev);
		char *end = NULL;
		if (json_is_number(ev))
			ua->expires = json_number_value(ev);
		else if (!s || (ua->expires = strtod(s, &end), !*s || *end))
			return res_fail("argument 'expires' is of type <class '%s'> and we were unable to "
					"convert to float: <class '%s'> cannot be converted to a float",
					s ? "str" : "bool", s ? "str" : "bool");
		ua->has_expires = true;
	}
	if (ua->group)
		json_array_append_new(ua->named, json_string(ua->group));
	json_t *gv = json_object_get(args, "groups");
	if (gv && !json_is_null(gv)) {
		/* Ansible joins the list with ',' and splits it again, the
		 * names stripped, empty ones left out, each once */
		json_t *l = mod_list(gv);
		ua->groups = json_array();
		size_t i, j;
		json_t *e, *f;
		struct strbuf joined = STRBUF_INIT;
		json_array_foreach(l, i, e) {
			const char *s = json_string_value(e);
			strbuf_addstr(&joined, s);
			char *t = mod_strip(s, strlen(s));
			bool dup = !*t;
			json_array_foreach(ua->groups, j, f)
				dup = dup || !strcmp(json_string_value(f), t);
			if (!dup) {
				json_array_append_new(ua->groups, json_string(t));
				json_array_append_new(ua->named, json_string(t));
			}
			free(t);
		}
		ua->groups_empty = joined.len == 0;
		strbuf_release(&joined);
		json_decref(l);
	}
	if (ua->password)
		secret_register(ua->password);
	return NULL;
}

/* Ansible's fail_json(name=..., msg=err, rc=rc) after a command failed */
static json_t *cmd_fail(const char *name, const struct conn_result *cr)
{
	json_t *r = res_fail("%s", strbuf_str(&cr->err));
	json_object_set_new(r, "name", json_string(name));
	json_object_set_new(r, "rc", json_integer(cr->rc));
	return r;
}

/* Runs cmd on the node, its status and output in cr (released first):
 * 0 when it succeeded, else -1 with *res set: unreachable, or the
 * failure of a non-zero status (cmd_fail's when name, else the
 * message alone). */
static int run(struct exec_ctx *x, const char *cmd, const char *name, struct conn_result *cr,
	       json_t **res)
{
	conn_result_release(cr);
	conn_result_init(cr);
	if (mod_sh(x, cmd, NULL, 0, cr, res) < 0)
		return -1;
	if (cr->rc != 0) {
		*res = name ? cmd_fail(name, cr) : res_fail("%s", strbuf_str(&cr->err));
		return -1;
	}
	return 0;
}

/* gid of named group i (ua->named's order), -1 when it does not exist */
static long long named_gid(const struct user_acct *a, size_t i)
{
	return json_integer_value(json_array_get(a->gids, i));
}

/* " -e DATE" of expires as Ansible's useradd/usermod get it */
static void add_expires(struct strbuf *c, double expires)
{
	strbuf_addstr(c, " -e ");
	if (expires < 0) {
		strbuf_addstr(c, "''");
		return;
	}
	time_t t = (time_t)expires;
	struct tm tm;
	char d[32];
	gmtime_r(&t, &tm);
	strftime(d, sizeof(d), "%Y-%m-%d", &tm);
	sh_quote(c, d);
}

/* " -p HASH" (locked with '!' when password_lock) */
static void add_password(struct strbuf *c, const struct user_args *ua)
{
	strbuf_addstr(c, " -p ");
	if (ua->password_lock == 1) {
		char *p = xasprintf("!%s", ua->password);
		sh_quote(c, p);
		free(p);
	} else
		sh_quote(c, ua->password);
}

/* The first named group (from index from) that does not exist: the
 * failure Ansible gives, else NULL. */
static json_t *missing_group(const struct user_args *ua, const struct user_acct *a, size_t from)
{
	for (size_t i = from; i < json_array_size(ua->named); i++)
		if (named_gid(a, i) < 0)
			return res_fail("Group %s does not exist", json_string_value(json_array_get(ua->named, i)));
	return NULL;
}

/* The home created as Ansible's create_homedir (the skeleton copied, or
 * an empty directory, mode from login.defs' UMASK), then owned by uid:gid
 * throughout when chown */
static void add_homedir(struct strbuf *c, const struct user_args *ua, const char *home, bool chown,
			const char *uid, const char *gid)
{
	strbuf_addstr(c, "h=");
	sh_quote(c, home);
	strbuf_addstr(c, "; k=");
	sh_quote(c, ua->skeleton ? ua->skeleton : "/etc/skel");
	strbuf_addstr(c, "; if [ ! -e \"$h\" ]; then if [ -e \"$k\" ]; then mkdir -p \"$(dirname \"$h\")\" && cp -R -P -p \"$k\" \"$h\"; "
			  "else mkdir -p \"$h\"; fi || exit 1; "
			  "m=$(sed -n 's/^UMASK[[:space:]][[:space:]]*\\([0-9][0-9]*\\)$/\\1/p' /etc/login.defs 2>/dev/null | tail -n 1); "
			  "[ -z \"$m\" ] || chmod \"$(printf %o $((0777 & ~0$m)))\" \"$h\" || exit 1; fi; ");
	if (chown) {
		strbuf_addstr(c, "chown -R -h ");
		struct strbuf o = STRBUF_INIT;
		strbuf_addf(&o, "%s:%s", uid, gid);
		sh_quote(c, o.buf);
		strbuf_release(&o);
		strbuf_addstr(c, " \"$h\" || exit 1; ");
	}
}

/* The useradd command Ansible's create_user_useradd builds; NULL, or a
 * failure (new reference). */
static json_t *build_useradd(struct strbuf *c, const struct user_args *ua, const struct user_acct *a,
			     bool parent_missing)
{
	json_t *r;
	size_t first_groups = ua->group ? 1 : 0;
	if (parent_missing)
		add_homedir(c, ua, ua->home, false, NULL, NULL);
	strbuf_addstr(c, "useradd");
	if (ua->has_uid)
		strbuf_addf(c, " -u %lld%s", ua->uid, ua->non_unique ? " -o" : "");
	if (ua->group) {
		if (named_gid(a, 0) < 0)
			return res_fail("Group %s does not exist", ua->group);
		strbuf_addstr(c, " -g ");
		sh_quote(c, ua->group);
	} else if (a->user_group) {
		/* a group of the user's name exists: -N, so useradd does not
		 * try to create it (USERGROUPS_ENAB) */
		strbuf_addstr(c, " -N");
	}
	if (json_array_size(ua->groups)) {
		if ((r = missing_group(ua, a, first_groups)))
			return r;
		strbuf_addstr(c, " -G ");
		struct strbuf g = STRBUF_INIT;
		size_t i;
		json_t *e;
		json_array_foreach(ua->groups, i, e)
			strbuf_addf(&g, "%s%s", i ? "," : "", json_string_value(e));
		sh_quote(c, g.buf);
		strbuf_release(&g);
	}
	if (ua->comment) {
		strbuf_addstr(c, " -c ");
		sh_quote(c, ua->comment);
	}
	if (ua->home) {
		strbuf_addstr(c, " -d ");
		sh_quote(c, ua->home);
	}
	if (ua->shell) {
		strbuf_addstr(c, " -s ");
		sh_quote(c, ua->shell);
	}
	if (ua->has_expires)
		add_expires(c, ua->expires);
	if (ua->password)
		add_password(c, ua);
	if (ua->create_home) {
		strbuf_addstr(c, " -m");
		if (ua->skeleton) {
			strbuf_addstr(c, " -k ");
			sh_quote(c, ua->skeleton);
		}
		if (ua->umask) {
			strbuf_addstr(c, " -K ");
			char *u = xasprintf("UMASK=%s", ua->umask);
			sh_quote(c, u);
			free(u);
		}
	} else
		strbuf_addstr(c, " -M");
	if (ua->system)
		strbuf_addstr(c, " -r");
	return NULL;
}

static bool in_list(json_t *l, const char *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(l, i, e)
		if (!strcmp(json_string_value(e), s))
			return true;
	return false;
}

/* The usermod options Ansible's modify_user_usermod adds for what
 * differs (c left empty when nothing does); NULL, or a failure. */
static json_t *build_usermod(struct strbuf *c, const struct user_args *ua, const struct user_acct *a)
{
	json_t *r;
	if (ua->has_uid && strtoll(a->pw[2], NULL, 10) != ua->uid)
		strbuf_addf(c, " -u %lld%s", ua->uid, ua->non_unique ? " -o" : "");
	if (ua->group) {
		if (named_gid(a, 0) < 0)
			return res_fail("Group %s does not exist", ua->group);
		if (strtoll(a->pw[3], NULL, 10) != named_gid(a, 0))
			strbuf_addf(c, " -g %lld", named_gid(a, 0));
	}
	if (ua->groups) {
		if ((r = missing_group(ua, a, ua->group ? 1 : 0)))
			return r;
		bool need = false;
		struct strbuf diff = STRBUF_INIT;
		size_t i;
		json_t *e;
		json_array_foreach(a->member, i, e)
			if (!in_list(ua->groups, json_string_value(e)))
				strbuf_addf(&diff, "%s%s", diff.len ? "," : "", json_string_value(e));
		bool wanted_missing = false;
		json_array_foreach(ua->groups, i, e)
			if (!in_list(a->member, json_string_value(e))) {
				strbuf_addf(&diff, "%s%s", diff.len ? "," : "", json_string_value(e));
				wanted_missing = true;
			}
		if (ua->groups_empty)
			need = json_array_size(a->member) && !ua->append;
		else if (diff.len) {
			/* with append, only a wanted group the user lacks */
			need = ua->append ? wanted_missing : true;
			if (ua->append && need && a->has_append)
				strbuf_addstr(c, " -a");
		}
		if (need) {
			if (ua->append && !a->has_append) {
				strbuf_addstr(c, " -A ");
				sh_quote(c, diff.buf);
			} else {
				struct strbuf g = STRBUF_INIT;
				json_array_foreach(ua->groups, i, e)
					strbuf_addf(&g, "%s%s", i ? "," : "", json_string_value(e));
				strbuf_addstr(c, " -G ");
				sh_quote(c, g.buf);
				strbuf_release(&g);
			}
		}
		strbuf_release(&diff);
	}
	if (ua->comment && strcmp(a->pw[4], ua->comment)) {
		strbuf_addstr(c, " -c ");
		sh_quote(c, ua->comment);
	}
	if (ua->home && strcmp(a->pw[5], ua->home)) {
		strbuf_addstr(c, " -d ");
		sh_quote(c, ua->home);
		if (ua->move_home)
			strbuf_addstr(c, " -m");
	}
	if (ua->shell && strcmp(a->pw[6], ua->shell)) {
		strbuf_addstr(c, " -s ");
		sh_quote(c, ua->shell);
	}
	if (ua->has_expires) {
		if (ua->expires < 0) {
			if (a->expire >= 0)
				add_expires(c, ua->expires);
		} else {
			/* compared by year, month and day */
			time_t want = (time_t)ua->expires, cur = (time_t)(a->expire * 86400);
			struct tm tw, tc;
			gmtime_r(&want, &tw);
			gmtime_r(&cur, &tc);
			if (a->expire < 0 || tw.tm_year != tc.tm_year || tw.tm_mon != tc.tm_mon ||
			    tw.tm_mday != tc.tm_mday)
				add_expires(c, ua->expires);
		}
	}
	const char *cur = a->hash;
	size_t before_lock = c->len;
	if (ua->password_lock == 1 && cur[0] != '!')
		strbuf_addstr(c, " -L");
	else if (ua->password_lock == 0 && cur[0] == '!')
		strbuf_addstr(c, " -U");
	if (!strcmp(ua->update_password, "always") && ua->password) {
		const char *p = ua->password;
		while (*p == '!')
			p++;
		while (*cur == '!')
			cur++;
		if (strcmp(cur, p)) {
			/* -p, without the -L/-U it excludes */
			if (c->len > before_lock) {
				c->len = before_lock;
				c->buf[c->len] = 0;
			}
			add_password(c, ua);
		}
	}
	return NULL;
}

/* Generates the ssh key as Ansible's ssh_key_gen (check mode aware) and
 * sets ssh_key_file, ssh_fingerprint and ssh_public_key, warnings in warn; *changed set
 * when a key was (or would be) generated. 0, or -1 with *res a failure
 * or unreachable. */
static int ssh_key(struct exec_ctx *x, const struct user_args *ua, const struct user_acct *a,
		   json_t *out, json_t *warn, bool *changed, json_t **res)
{
	char *file = ua->ssh_file ? xstrdup(ua->ssh_file) : xasprintf(".ssh/id_%s", ua->ssh_type);
	char *path;
	if (file[0] == '/')
		path = xstrdup(file);
	else {
		if (!a->home_exists && !x->check_mode) {
			*res = res_fail("User %s home directory does not exist", ua->name);
			json_object_set_new(*res, "name", json_string(ua->name));
			json_object_set_new(*res, "rc", json_integer(1));
			free(file);
			return -1;
		}
		size_t hl = strlen(a->pw[5]);
		path = xasprintf("%s%s%s", a->pw[5], hl && a->pw[5][hl - 1] == '/' ? "" : "/", file);
	}
	free(file);
	char *dir = py_dirname(path);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "k=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; p=\"$k.pub\"; dd=");
	sh_quote(&c, dir);
	struct strbuf own = STRBUF_INIT;
	strbuf_addf(&own, "%s:%s", a->pw[2], a->pw[3]);
	strbuf_addstr(&c, "; o=");
	sh_quote(&c, own.buf);
	strbuf_addf(&c, "; ck=%d; f=%d; g=none; ", x->check_mode, ua->force);
	strbuf_addstr(&c, "if [ ! -e \"$dd\" ]; then if [ $ck = 1 ]; then g=0; else mkdir -m 0700 \"$dd\" && chown \"$o\" \"$dd\" || "
			  "{ echo \"Failed to create $dd\" >&2; exit 1; }; fi; fi; "
			  "if [ $g = none ]; then w=''; "
			  "if [ -e \"$k\" ]; then if [ $f = 1 ]; then w=y; echo W=2; else g=skip; echo W=1; fi; fi; "
			  "if [ $g = none ] && [ -e \"$p\" ]; then if [ $f = 1 ]; then rm -f \"$p\"; echo W=4; else g=skip; echo W=3; fi; fi; "
			  "if [ $g = none ]; then if [ $ck = 1 ]; then g=0; else "
			  "printf %s \"$w\" | ssh-keygen -q -t ");
	sh_quote(&c, ua->ssh_type);
	if (ua->ssh_bits > 0)
		strbuf_addf(&c, " -b %lld", ua->ssh_bits);
	strbuf_addstr(&c, " -C ");
	if (ua->ssh_comment)
		sh_quote(&c, ua->ssh_comment);
	else
		strbuf_addstr(&c, "\"ansible-generated on $(uname -n)\"");
	strbuf_addstr(&c, " -f \"$k\" -N '' >/dev/null; g=$?; [ $g != 0 ] || chown \"$o\" \"$k\" \"$p\"; fi; fi; fi; "
			  "echo \"G=$g\"; [ \"$g\" = none ] || [ \"$g\" = skip ] || [ \"$g\" = 0 ] || exit \"$g\"; "
			  "if [ -e \"$k\" ]; then if fp=$(ssh-keygen -l -f \"$k\" 2>/dev/null); then echo \"F=$fp\"; "
			  "else echo \"F=$(ssh-keygen -l -f \"$k\" 2>&1 >/dev/null)\"; fi; else echo F=; fi; "
			  "[ -r \"$p\" ] && echo \"K=$(cat \"$p\")\"; exit 0");
	strbuf_release(&own);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = run(x, c.buf, ua->name, &cr, res);
	strbuf_release(&c);
	free(dir);
	if (rc < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	const char *g = strstr(o, "G=");
	if (g && !strncmp(g + 2, "0\n", 2))
		*changed = true;
	/* Ansible's warnings about a key file already there */
	for (const char *w = strstr(o, "W="); w; w = strstr(w + 1, "\nW=")) {
		if (*w == '\n')
			w++;
		int n = w[2] - '0';
		json_array_append_new(warn, json_sprintf("%s existing ssh key %s file \"%s%s\"%s",
							 n % 2 ? "Found" : "Overwriting", n < 3 ? "private" : "public",
							 path, n < 3 ? "" : ".pub",
							 n % 2 ? ", no force, so skipping ssh-keygen generation" : ""));
	}
	const char *f = strstr(o, "\nF=");
	char *fp = f ? mod_strip(f + 3, strcspn(f + 3, "\n")) : xstrdup("");
	json_object_set_new(out, "ssh_fingerprint", json_string(fp));
	free(fp);
	json_object_set_new(out, "ssh_key_file", json_string(path));
	const char *k = strstr(o, "\nK=");
	if (k) {
		char *pk = mod_strip(k + 3, strlen(k + 3));
		json_object_set_new(out, "ssh_public_key", json_string(pk));
		free(pk);
	} else
		json_object_set_new(out, "ssh_public_key", json_null());
out:
	conn_result_release(&cr);
	free(path);
	return rc;
}

/* chage for password_expire_min/max when they differ from the shadow
 * entry's (none: nothing to do); *changed when it ran or would run. 0,
 * or -1 with *res set. */
static int password_age(struct exec_ctx *x, const struct user_args *ua, const struct user_acct *a,
			bool *changed, json_t **res)
{
	bool min = ua->has_min && a->shadow && ua->exp_min != a->min;
	bool max = ua->has_max && a->shadow && ua->exp_max != a->max;
	if (!min && !max)
		return 0;
	*changed = true;
	if (x->check_mode)
		return 0;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "chage");
	if (min)
		strbuf_addf(&c, " -m %lld", ua->exp_min);
	if (max)
		strbuf_addf(&c, " -M %lld", ua->exp_max);
	strbuf_addch(&c, ' ');
	sh_quote(&c, ua->name);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = run(x, c.buf, ua->name, &cr, res);
	conn_result_release(&cr);
	strbuf_release(&c);
	return rc;
}

/* Ansible's check_password_encrypted: the warning for a password that
 * does not look like a crypt hash */
static bool looks_unhashed(const char *p)
{
	if (!strcmp(p, "*") || !strcmp(p, "!") || !strcmp(p, "*************"))
		return false;
	if (strpbrk(p, ":*!") || !strchr(p, '$'))
		return true;
	const char *f1 = strchr(p, '$') + 1;
	const char *last = strrchr(p, '$') + 1;
	if (strchr(f1, '$') == NULL)
		return true;  /* fewer than three fields */
	size_t ll = strlen(last);
	if (strspn(last, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./=") != ll)
		return true;
	size_t id = strcspn(f1, "$");
	return (id == 1 && f1[0] == '1' && ll != 22) || (id == 1 && f1[0] == '5' && ll != 43) ||
	       (id == 1 && f1[0] == '6' && ll != 86);
}

static json_t *user_run(struct exec_ctx *x, json_t *args)
{
	struct user_args ua;
	struct user_acct a = { 0 };
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = args_parse(args, &ua);
	json_t *warn = json_array();
	if (res)
		goto out;
	if (ua.password && looks_unhashed(ua.password))
		json_array_append_new(warn, json_string("The input password appears not to have been hashed. The "
							"'password' argument must be encrypted for this module to work properly."));
	if (!ua.groups && ua.append)
		json_array_append_new(warn, json_string("'append' is set, but no 'groups' are specified. Use 'groups' "
							"for appending new groups.This will change to an error in Ansible 2.14."));
	if (acct_lookup(x, &ua, &a, &res) < 0)
		goto out;
	json_t *r = json_object();
	json_object_set_new(r, "name", json_string(ua.name));
	json_object_set_new(r, "state", json_string(ua.state));
	bool ran = false;  /* Ansible's rc is not None */
	bool absent = !strcmp(ua.state, "absent");
	if (absent && a.exists) {
		if (x->check_mode) {
			json_decref(r);
			res = res_new(true);
			goto out;
		}
		strbuf_addf(&c, "userdel%s%s ", ua.force ? " -f" : "", ua.remove ? " -r" : "");
		json_object_set_new(r, "force", json_boolean(ua.force));
		json_object_set_new(r, "remove", json_boolean(ua.remove));
	} else if (!absent && !a.exists) {
		if (x->check_mode) {
			json_decref(r);
			res = res_new(true);
			goto out;
		}
		bool parent_missing = ua.home && ua.create_home && !a.home_parent_isdir;
		if ((res = build_useradd(&c, &ua, &a, parent_missing))) {
			json_decref(r);
			goto out;
		}
		strbuf_addch(&c, ' ');
		json_object_set_new(r, "system", json_boolean(ua.system));
		json_object_set_new(r, "create_home", json_boolean(ua.create_home));
	} else if (!absent) {
		if ((res = build_usermod(&c, &ua, &a))) {
			json_decref(r);
			goto out;
		}
		if (c.len) {
			if (x->check_mode)
				strbuf_reset(&c), ran = true;
			else {
				char *opts = strbuf_detach(&c);
				strbuf_addf(&c, "usermod%s ", opts);
				free(opts);
			}
		}
		json_object_set_new(r, "append", json_boolean(ua.append));
		json_object_set_new(r, "move_home", json_boolean(ua.move_home));
	}
	if (c.len) {
		sh_quote(&c, ua.name);
		if (ua.home && ua.create_home && !absent && !a.exists && !a.home_parent_isdir) {
			/* the home whose parent Ansible made: owned by the user */
			strbuf_addstr(&c, " && { ");
			strbuf_addstr(&c, "i=$(getent passwd ");
			sh_quote(&c, ua.name);
			strbuf_addstr(&c, " | cut -d: -f3,4) && chown -R -h \"$i\" ");
			sh_quote(&c, ua.home);
			strbuf_addstr(&c, "; true; }");
		}
		json_t *ur = NULL;
		if (run(x, c.buf, ua.name, &cr, &ur) < 0) {
			json_decref(r);
			res = ur;
			goto out;
		}
		ran = true;
		if (cr.out.len) {
			json_object_set_new(r, "stdout", json_string(strbuf_str(&cr.out)));
			json_object_set_new(r, "stdout_lines", mod_splitlines(strbuf_str(&cr.out)));
		}
		if (cr.err.len) {
			json_object_set_new(r, "stderr", json_string(strbuf_str(&cr.err)));
			json_object_set_new(r, "stderr_lines", mod_splitlines(strbuf_str(&cr.err)));
		}
		if (acct_lookup(x, &ua, &a, &res) < 0) {
			json_decref(r);
			goto out;
		}
	}
	if (!absent && ua.password)
		json_object_set_new(r, "password", json_string("NOT_LOGGING_PASSWORD"));
	bool changed = ran;
	res = r;
	if (a.exists && !absent) {
		json_object_set_new(r, "uid", json_integer(strtoll(a.pw[2], NULL, 10)));
		json_object_set_new(r, "group", json_integer(strtoll(a.pw[3], NULL, 10)));
		json_object_set_new(r, "comment", json_string(a.pw[4]));
		json_object_set_new(r, "home", json_string(a.pw[5]));
		json_object_set_new(r, "shell", json_string(a.pw[6]));
		if (ua.groups) {
			/* Ansible's user.groups: the list joined with ',' */
			json_t *l = mod_list(json_object_get(args, "groups"));
			struct strbuf g = STRBUF_INIT;
			size_t i;
			json_t *e;
			json_array_foreach(l, i, e)
				strbuf_addf(&g, "%s%s", i ? "," : "", json_string_value(e));
			json_object_set_new(r, "groups", json_string(strbuf_str(&g)));
			strbuf_release(&g);
			json_decref(l);
		}
		/* a missing home is made (or would be) */
		bool home_missing = ua.home ? !a.home_param_exists : !a.home_exists;
		if (home_missing && ua.create_home) {
			if (!x->check_mode) {
				strbuf_reset(&c);
				add_homedir(&c, &ua, ua.home ? ua.home : a.pw[5], true, a.pw[2], a.pw[3]);
				strbuf_addstr(&c, "exit 0");
				json_t *ur = NULL;
				if (run(x, c.buf, NULL, &cr, &ur) < 0) {
					json_decref(r);
					res = ur;
					goto out;
				}
				a.home_exists = true;
			}
			changed = true;
		}
		json_t *ur = NULL;
		if (ua.sshkeygen && ssh_key(x, &ua, &a, r, warn, &changed, &ur) < 0) {
			json_decref(r);
			res = ur;
			goto out;
		}
		if (password_age(x, &ua, &a, &changed, &ur) < 0) {
			json_decref(r);
			res = ur;
			goto out;
		}
	}
	json_object_set_new(r, "changed", json_boolean(changed));
out:
	if (json_array_size(warn) && res)
		json_object_set(res, "warnings", warn);
	json_decref(warn);
	conn_result_release(&cr);
	strbuf_release(&c);
	acct_release(&a);
	args_release(&ua);
	return res;
}

/* what run implements (module.h) */
static const char *const user_params[] = {
	"append", "comment", "create_home", "createhome", "expires", "force", "generate_ssh_key", "group",
	"groups", "home", "move_home", "name", "non_unique", "password", "password_expire_max",
	"password_expire_min", "password_lock", "remove", "shell", "skeleton", "ssh_key_bits",
	"ssh_key_comment", "ssh_key_file", "ssh_key_type", "state", "system", "uid", "umask",
	"update_password", "user", NULL
};

static const char *const user_node_paths[] = { "home", "ssh_key_file", NULL };

const struct task_module mod_user = {
	.name = "user", .params = user_params, .check_mode_native = true, .run = user_run,
	.node_paths = user_node_paths,
};
