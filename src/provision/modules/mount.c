/* mount.c: the `mount` module (ansible.posix.mount) for its fstab states,
 * as on Linux: present writes the line "SRC PATH FSTYPE OPTS DUMP PASSNO"
 * (spaces, "&" and backslashes escaped octal as fstab wants) to the file
 * fstab names (default /etc/fstab), rewriting the entry of the same path,
 * or appending it; absent (and absent_from_fstab) removes that entry, and
 * absent then removes the mount point directory as Ansible does. A missing
 * fstab is created. Returns changed and Ansible's arguments echo (name,
 * src, fstype, opts, dump, passno, fstab, boot, backup_file).
 * unmounted where nothing is mounted changes nothing. The states that
 * mount (mounted, remounted, ephemeral), and absent or unmounted on a path
 * that is mounted, are not implemented: they stop with an "unsupported"
 * error naming the state. Check mode is native, as Ansible's: a missing
 * fstab is still created (the module does it before looking at the
 * state), nothing else is written, changed says what would change. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { M_SRC, M_NAME, M_FSTYPE, M_OPTS, M_DUMP, M_PASSNO, M_N };

/* fstab's escapes for a field: backslash, space and ampersand. */
static char *esc(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	for (; v && *v; v++) {
		if (*v == '\\')
			strbuf_addstr(&sb, "\\134");
		else if (*v == ' ')
			strbuf_addstr(&sb, "\\040");
		else if (*v == '&')
			strbuf_addstr(&sb, "\\046");
		else
			strbuf_addch(&sb, *v);
	}
	return strbuf_detach(&sb);
}

/* str.split(): fields separated by runs of whitespace. */
static size_t split_ws(char *s, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t\n\r\f\v", &save); t; t = strtok_r(NULL, " \t\n\r\f\v", &save)) {
		if (n < max)
			f[n] = t;
		n++;
	}
	return n;
}

static bool blank_or_comment(const char *line)
{
	const char *p = line + strspn(line, " \t\n\r\f\v");
	return !*p || *p == '#';
}

/* Ansible's set_mount (present) or unset_mount (absent) over the file's
 * lines; *changed says whether out differs. want holds escaped fields. */
static void edit(const char *data, size_t len, char *const *want, bool has_src, bool present,
		 struct strbuf *out, bool *changed)
{
	bool exists = false;
	*changed = false;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - data) + 1 : len;
		char *line = xstrndup(data + at, end - at);
		at = end;
		if (blank_or_comment(line)) {
			strbuf_addstr(out, line);
			if (present && !nl)
				strbuf_addch(out, '\n');
			free(line);
			continue;
		}
		char *copy = xstrdup(line), *f[M_N] = { 0 };
		size_t nf = split_ws(copy, f, M_N);
		bool shape = present ? nf >= 4 && nf <= 6 : nf == 6;
		bool other = !shape || strcmp(f[M_NAME], want[M_NAME]) ||
			     (has_src && !strcmp(f[M_NAME], "none") && !strcmp(f[M_FSTYPE], "swap") &&
			      strcmp(f[M_SRC], want[M_SRC]));
		if (other) {
			strbuf_addstr(out, line);
			if (present && !nl)
				strbuf_addch(out, '\n');
		} else if (!present) {
			*changed = true;
		} else {
			exists = true;
			/* a 4- or 5-field line lacks dump or passno: Ansible's
			 * integer default never equals the string given */
			for (int k = M_SRC; k < M_N; k++) {
				if (k == M_NAME)
					continue;
				if ((size_t)k >= nf || strcmp(f[k], want[k])) {
					f[k] = want[k];
					*changed = true;
				}
			}
			if (*changed)
				strbuf_addf(out, "%s %s %s %s %s %s\n", f[M_SRC], f[M_NAME], f[M_FSTYPE],
					    f[M_OPTS], f[M_DUMP], f[M_PASSNO]);
			else
				strbuf_addf(out, "%s%s", line, nl ? "" : "\n");
		}
		free(copy);
		free(line);
	}
	if (present && !exists) {
		strbuf_addf(out, "%s %s %s %s %s %s\n", want[M_SRC], want[M_NAME], want[M_FSTYPE],
			    want[M_OPTS], want[M_DUMP], want[M_PASSNO]);
		*changed = true;
	}
}

static json_t *mount_run(struct exec_ctx *x, json_t *args)
{
	const char *state = args_str(args, "state"), *name = args_str(args, "path");
	if (!name)
		name = args_str(args, "name");
	const char *fstab = args_str(args, "fstab");
	if (!fstab)
		fstab = "/etc/fstab";
	char *v[M_N] = { args_strdup(args, "src"), xstrdup(name ? name : ""),
			 args_strdup(args, "fstype"), args_strdup(args, "opts"),
			 args_strdup(args, "dump"), args_strdup(args, "passno") };
	char *want[M_N] = { 0 };
	json_t *res = NULL, *warnings = json_array();
	struct strbuf data = STRBUF_INIT, out = STRBUF_INIT;
	char *bak = NULL;
	if (!v[M_OPTS])
		v[M_OPTS] = xstrdup("defaults");
	if (!v[M_DUMP])
		v[M_DUMP] = xstrdup("0");
	if (!v[M_PASSNO])
		v[M_PASSNO] = xstrdup("0");
	static const char *const paths[] = { "path", "name", "src", NULL };
	if ((res = mod_unexpanded("mount", args, paths)))
		goto out;
	if (!name || !state) {
		res = res_fail("missing required arguments: %s", !name ? "path" : "state");
		goto out;
	}
	bool present = !strcmp(state, "present");
	bool unmounted = !strcmp(state, "unmounted");
	if (!present && !unmounted && strcmp(state, "absent") && strcmp(state, "absent_from_fstab")) {
		static const char *const known[] = { "mounted", "remounted", "ephemeral", NULL };
		bool isknown = false;
		for (const char *const *k = known; *k; k++)
			isknown |= !strcmp(*k, state);
		if (isknown)
			res = res_fail("mount: unsupported state '%s' (only present, absent and "
				       "absent_from_fstab are implemented)", state);
		else
			res = res_fail("value of state must be one of: absent, absent_from_fstab, "
				       "mounted, present, unmounted, remounted, ephemeral, got: %s",
				       state);
		goto out;
	}
	if (present && (!v[M_SRC] || !v[M_FSTYPE])) {
		res = res_fail("state is present but all of the following are missing: %s",
			       !v[M_SRC] && !v[M_FSTYPE] ? "src, fstype" : !v[M_SRC] ? "src" : "fstype");
		goto out;
	}
	bool boot = args_bool(json_object_get(args, "boot"), true);
	const char *boot_s = "yes";
	{
		/* Ansible's boot: noauto in opts wins; boot=no adds noauto unless
		 * the options are "defaults" */
		char *o = xasprintf(",%s,", v[M_OPTS]);
		if (strstr(o, ",noauto,")) {
			json_array_append_new(warnings,
					      json_string("Ignore the 'boot' due to 'opts' contains 'noauto'."));
		} else if (!boot) {
			boot_s = "no";
			if (strstr(o, ",defaults,")) {
				json_array_append_new(warnings, json_string("Ignore the 'boot' due to "
									    "'opts' contains 'defaults'."));
			} else {
				char *n = xasprintf("%s,noauto", v[M_OPTS]);
				free(v[M_OPTS]);
				v[M_OPTS] = n;
			}
		}
		free(o);
	}
	for (int k = 0; k < M_N; k++)
		want[k] = esc(v[k]);
	bool exists;
	if (mod_read(x, fstab, &data, &exists, &res) < 0)
		goto out;
	if (!exists && mod_mkdir_parent(x, fstab, &res) < 0)
		goto out;
	if (!exists && mod_write(x, fstab, "", 0, -1, &res) < 0)
		goto out;
	bool changed = false;
	/* unmounted leaves fstab as it is (made when missing, above) and
	 * changes nothing where nothing is mounted; unmounting a mount point
	 * or a bind mount is not implemented */
	if (unmounted) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "p=");
		sh_quote(&c, name);
		strbuf_addstr(&c, "; mountpoint -q -- \"$p\" 2>/dev/null && exit 0; "
				 "awk -v p=\"$p\" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo");
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		int mounted = cr.rc == 0;
		conn_result_release(&cr);
		if (rc < 0)
			goto out;
		if (mounted) {
			res = res_fail("mount: unsupported state 'unmounted' on a mounted path (%s): "
				       "unmounting is not implemented", name);
			goto out;
		}
		goto result;
	}
	edit(data.buf ? data.buf : "", data.len, want, v[M_SRC] != NULL, present, &out, &changed);
	if (changed && !present && strcmp(state, "absent_from_fstab") && !x->check_mode) {
		/* absent unmounts a mounted path, which is not implemented */
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "mountpoint -q -- ");
		sh_quote(&c, name);
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		int mounted = cr.rc == 0;
		conn_result_release(&cr);
		if (rc < 0)
			goto out;
		if (mounted) {
			res = res_fail("mount: unsupported state 'absent' on a mounted path (%s): "
				       "unmounting is not implemented", name);
			goto out;
		}
	}
	if (changed && !x->check_mode) {
		if (args_bool(json_object_get(args, "backup"), false) &&
		    mod_backup(x, fstab, &bak, &res) < 0)
			goto out;
		if (mod_write(x, fstab, out.buf ? out.buf : "", out.len, -1, &res) < 0)
			goto out;
	}
	if (changed && !strcmp(state, "absent") && !x->check_mode) {
		/* os.rmdir of the mount point when it exists; its error as Python words it */
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "p=");
		sh_quote(&c, name);
		strbuf_addstr(&c, "; [ -e \"$p\" ] || [ -L \"$p\" ] || exit 0; rmdir -- \"$p\" 2>/dev/null && "
				 "exit 0; if [ ! -d \"$p\" ]; then echo '[Errno 20] Not a directory'; "
				 "elif [ -n \"$(ls -A -- \"$p\")\" ]; then echo '[Errno 39] Directory not "
				 "empty'; else echo '[Errno 1] Operation not permitted'; fi; exit 1");
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		if (rc == 0 && cr.rc != 0) {
			const char *o = strbuf_str(&cr.out);
			res = res_fail("Error rmdir %s: %.*s: '%s'", name, (int)strcspn(o, "\n"), o, name);
		}
		conn_result_release(&cr);
		if (rc < 0 || res)
			goto out;
	}
result:
	res = res_new(changed);
	json_object_set_new(res, "name", json_string(name));
	json_object_set_new(res, "opts", json_string(v[M_OPTS]));
	json_object_set_new(res, "dump", json_string(v[M_DUMP]));
	json_object_set_new(res, "passno", json_string(v[M_PASSNO]));
	json_object_set_new(res, "fstab", json_string(fstab));
	json_object_set_new(res, "boot", json_string(boot_s));
	json_object_set_new(res, "warnings", json_incref(warnings));
	/* absent drops the backup's name, as Ansible's unset_mount does */
	json_object_set_new(res, "backup_file", json_string(bak && present ? bak : ""));
	if (v[M_SRC])
		json_object_set_new(res, "src", json_string(v[M_SRC]));
	if (v[M_FSTYPE])
		json_object_set_new(res, "fstype", json_string(v[M_FSTYPE]));
out:
	for (int k = 0; k < M_N; k++) {
		free(v[k]);
		free(want[k]);
	}
	json_decref(warnings);
	strbuf_release(&data);
	strbuf_release(&out);
	free(bak);
	return res;
}

static int mount_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "path", "name", "src", "fstype", "opts", "dump",
					     "passno", "fstab", "boot", "backup", "state", NULL };
	if (mod_check_params("mount", args, known, d, loc) < 0)
		return -1;
	const char *state = args_str(args, "state");
	static const char *const act[] = { "mounted", "remounted", "ephemeral", NULL };
	for (const char *const *a = act; state && *a; a++) {
		if (!strcmp(*a, state)) {
			diag_error(d, IMC_EXIT_DATAERR, loc, "mount: unsupported state '%s'", state);
			return -1;
		}
	}
	return 0;
}

static const char *const mount_node_paths[] = { "path", "name", "src", NULL };

const struct task_module mod_mount = {
	.name = "mount", .check = mount_check, .run = mount_run,
	.check_mode_native = true,
	.node_paths = mount_node_paths,
};
