/* copy.c: the `copy` module (content or controller src, dest directory
 * rules, force, mode/owner/group, backup) and the write path that
 * `template` shares: compare the SHA-1 of the wanted content with the
 * node's file, write atomically only when it differs, then apply
 * attributes; the result carries Ansible's keys (checksum, md5sum on a
 * write, path when only attributes were looked at). */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Ansible's MAX_FILE_SIZE_FOR_DIFF default */
#define DIFF_MAX 104448

/* The diff Ansible's copy and template actions return in diff mode (the
 * diff keyword) when the content changes: the old content (or why it is
 * left out) and the new. Ansible's after_header names a temporary file on
 * the controller; imc names the src argument, or "dynamically generated". */
static json_t *put_diff(struct exec_ctx *x, json_t *args, const char *dest,
			const struct node_stat *st, const void *data, size_t len)
{
	json_t *d = json_object();
	if (!st->exists)
		json_object_set_new(d, "before", json_string(""));
	else if (st->size > DIFF_MAX)
		json_object_set_new(d, "dst_larger", json_integer(DIFF_MAX));
	else {
		struct strbuf old = STRBUF_INIT;
		bool exists;
		json_t *ignored = NULL;
		if (mod_read(x, dest, &old, &exists, &ignored) == 0 && exists) {
			if (memchr(old.buf ? old.buf : "", 0, old.len < 8192 ? old.len : 8192))
				json_object_set_new(d, "dst_binary", json_integer(1));
			else {
				json_object_set_new(d, "before_header", json_string(dest));
				json_object_set_new(d, "before", json_stringn(old.buf ? old.buf : "", old.len));
			}
		}
		json_decref(ignored);
		strbuf_release(&old);
	}
	if (len > DIFF_MAX)
		json_object_set_new(d, "src_larger", json_integer(DIFF_MAX));
	else if (memchr(data, 0, len))
		json_object_set_new(d, "src_binary", json_integer(1));
	else {
		const char *src = args_str(args, "src");
		json_object_set_new(d, "after_header", json_string(src ? src : "dynamically generated"));
		json_object_set_new(d, "after", json_stringn(data, len));
	}
	json_t *list = json_array();
	json_array_append_new(list, d);
	return list;
}

/* dest, when a link, becomes an empty file, as Ansible's module does before
 * it validates or renames over a link; -1 with *res. */
static int link_to_empty_file(struct exec_ctx *x, const char *dest, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; if [ -L \"$p\" ]; then rm -f -- \"$p\" && : > \"$p\"; fi");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	conn_result_release(&cr);
	return rc;
}

/* validate with a mode neither octal nor symbolic: Ansible's module gives
 * the mode to its temporary copy of the content before it validates, and
 * fails there, on that file (as its action uploaded it: the umask's mode
 * plus u+x); imc's temporary copy stands for it and is removed. */
static json_t *tmp_mode_error(struct exec_ctx *x, const void *data, size_t len, json_t *mode)
{
	json_t *res = NULL;
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, "t=$(mktemp) && cat > \"$t\" && chmod \"$(printf '%o' $((0666 & ~0$(umask))))\" \"$t\" && "
		   "chmod u+x \"$t\" && printf '%s' \"$t\"", data, len, &cr, &res) < 0)
		goto out;
	if (cr.rc != 0 || !cr.out.len) {
		res = res_fail("cannot write a temporary file to validate: %s", strbuf_str(&cr.err));
		goto out;
	}
	res = mod_mode_error(x, strbuf_str(&cr.out), mode);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "rm -f -- ");
	sh_quote(&c, strbuf_str(&cr.out));
	conn_result_release(&cr);
	conn_result_init(&cr);
	json_t *unreach = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &unreach) < 0) {
		json_decref(res);
		res = unreach;
	}
	strbuf_release(&c);
out:
	conn_result_release(&cr);
	return res;
}

/* The copy module's failure when validate's command fails, with the lines
 * Ansible's action adds to it. */
static json_t *validate_failed(const struct conn_result *cr)
{
	json_t *res = res_fail("failed to validate");
	json_object_set_new(res, "exit_status", json_integer(cr->rc));
	json_object_set_new(res, "stdout", json_string(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr", json_string(strbuf_str(&cr->err)));
	json_object_set_new(res, "stdout_lines", mod_splitlines(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr_lines", mod_splitlines(strbuf_str(&cr->err)));
	return res;
}

static json_t *put_content(struct exec_ctx *x, json_t *args, const char *dest, const char *given,
			   const void *data, size_t len)
{
	json_t *res = NULL;
	struct node_stat st;
	if (mod_stat(x, dest, true, true, &st, &res) < 0)
		return res;
	if (st.notdir) /* the action's stat of dest fails: no "changed" */
		return json_pack("{s:b, s:s++}", "failed", 1, "msg", "Failed to get information on remote file (",
				 dest, "): Not a directory");
	if (st.exists && st.isdir)
		return res_fail("dest '%s' is a directory", dest);
	bool force = args_bool(json_object_get(args, "force"), true);
	/* in check mode Ansible's action stops before its module looks at
	 * the parent of a missing dest; else Ansible's module makes no
	 * missing parent of dest: checked here, or, when nothing runs on the
	 * node before the write (no validate), by the write's own script */
	bool parent_at_write = !st.exists && !x->check_mode && !args_str(args, "validate");
	if (!st.exists && !x->check_mode && !parent_at_write) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "p=$(dirname -- ");
		sh_quote(&c, dest);
		strbuf_addstr(&c, "); [ -e \"$p\" ] || { printf '%s' \"$p\"; exit 4; }");
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		if (rc == 0 && cr.rc == 4)
			res = res_fail("Destination directory %s does not exist", strbuf_str(&cr.out));
		conn_result_release(&cr);
		if (res)
			return res;
	}
	/* Ansible's copy action skips an existing dest without force and
	 * answers with the dest it was given, not the file in it; its stat
	 * follows a link only under follow, so a dangling link is there */
	bool there = st.exists;
	if (!force && !there && !args_bool(json_object_get(args, "follow"), false)) {
		struct node_stat ls;
		if (mod_stat(x, dest, false, false, &ls, &res) < 0)
			return res;
		there = ls.exists;
	}
	if (there && !force)
		return json_pack("{s:b, s:s, s:s}", "changed", 0, "dest", given, "src", "<controller>");
	char sum[41], md5[33];
	char *backup_file = NULL;
	hash_sha1_hex(data, len, sum);
	bool changed = false;
	bool wrote = false;
	json_t *diff = NULL;
	if (!st.exists || strcmp(sum, st.sha1)) {
		long mode = -1;
		json_t *mv = json_object_get(args, "mode");
		/* a mode neither octal nor symbolic fails only once the file
		 * is written and owned, as Ansible applies it last */
		bool bad_mode = false;
		if (mv) {
			mode = args_mode(mv, st.exists ? st.mode : 0644);
			bad_mode = mode == -2;
			if (bad_mode)
				mode = -1;
		}
		if (x->check_mode) {
			/* Ansible's copy action stops here in check mode: no
			 * backup, validation or write, and only these keys */
			if (mod_diff_wanted(x))
				diff = put_diff(x, args, dest, &st, data, len);
			return json_pack("{s:b, s:o}", "changed", 1, "diff", diff ? diff : json_array());
		}
		/* as Ansible's copy: the backup is made before the validation */
		if (st.exists && args_bool(json_object_get(args, "backup"), false) &&
		    mod_backup(x, dest, &backup_file, &res) < 0)
			return res;
		const char *validate = args_str(args, "validate");
		if (validate) {
			/* Ansible's module replaces a link by an empty file
			 * first: a failed validation leaves that file */
			struct conn_result cr;
			if (link_to_empty_file(x, dest, &res) < 0) {
				free(backup_file);
				return res;
			}
			if (bad_mode) {
				free(backup_file);
				return tmp_mode_error(x, data, len, mv);
			}
			conn_result_init(&cr);
			if (mod_validate(x, validate, data, len, &cr, &res) < 0) {
				conn_result_release(&cr);
				free(backup_file);
				return res;
			}
			if (cr.rc != 0) {
				res = validate_failed(&cr);
				conn_result_release(&cr);
				free(backup_file);
				return res;
			}
			conn_result_release(&cr);
		}
		if (mod_diff_wanted(x))
			diff = put_diff(x, args, dest, &st, data, len);
		char *parent = NULL;
		int wr = parent_at_write
				 ? mod_write_stat_new(x, dest, data, len, mode, args_str(args, "owner"),
						      args_str(args, "group"), &st, &parent, &res)
				 : mod_write_stat(x, dest, data, len, mode, args_str(args, "owner"),
						  args_str(args, "group"), &st, &res);
		if (wr == 1)
			res = res_fail("Destination directory %s does not exist", parent);
		free(parent);
		if (wr != 0) {
			free(backup_file);
			json_decref(diff);
			return res;
		}
		if (bad_mode) {
			free(backup_file);
			json_decref(diff);
			return mod_mode_error(x, dest, mv);
		}
		changed = true;
		wrote = true;
	} else {
		/* unchanged content: the action runs the file module, whose
		 * diff records the attributes it changes (or would) */
		diff = json_pack("{s:{s:s}, s:{s:s}}", "before", "path", dest, "after", "path", dest);
		if (mod_attrs_st_diff(x, dest, args, &st, &changed, diff, &res) < 0) {
			json_decref(diff);
			return res;
		}
	}
	res = res_new(changed);
	json_object_set_new(res, "checksum", json_string(sum));
	json_object_set_new(res, "dest", json_string(dest));
	mod_file_result(res, &st, dest);
	if (wrote) {
		hash_md5_hex(data, len, md5);
		json_object_set_new(res, "md5sum", json_string(md5));
		json_object_set_new(res, "src", json_string("<controller>"));
		if (backup_file && *backup_file)
			json_object_set_new(res, "backup_file", json_string(backup_file));
		free(backup_file);
		/* Ansible's copy action: a list, empty outside diff mode */
		json_object_set_new(res, "diff", diff ? diff : json_array());
	} else {
		json_object_set_new(res, "path", json_string(dest));
		json_object_set_new(res, "diff", diff);
	}
	return res;
}

void copy_sum_failure(json_t *res, const void *data, size_t len)
{
	if (json_is_true(json_object_get(res, "failed")) && !json_object_get(res, "checksum")) {
		char sum[41];
		hash_sha1_hex(data, len, sum);
		json_object_set_new(res, "checksum", json_string(sum));
	}
}

json_t *copy_put_content(struct exec_ctx *x, json_t *args, const char *dest, const char *given,
			 const void *data, size_t len)
{
	json_t *res = put_content(x, args, dest, given, data, len);
	/* Ansible's copy action (template's too) puts the checksum of what
	 * it meant to write in whatever the module returned, a failure too
	 * (not in the action's own errors, which have no "changed") */
	if (json_object_get(res, "changed"))
		copy_sum_failure(res, data, len);
	return res;
}

/* The largest content sent with the stat of its dest whatever that
 * answers (an unchanged file then has it sent for nothing) */
#define WRITE_IN_STAT_MAX 65536

/* Whether put_content's write of len bytes with args can ride in the
 * stat of dest (mod_stat_write): when what it decides between them
 * depends on that stat alone (no check mode, backup, validate or diff,
 * each of which runs something first; force; a mode that is the same
 * whatever the file's was), *mode then the mode it writes with. */
static bool write_in_stat(struct exec_ctx *x, json_t *args, size_t len, long *mode)
{
	if (x->check_mode || len > WRITE_IN_STAT_MAX ||
	    !args_bool(json_object_get(args, "force"), true) || args_str(args, "validate") ||
	    args_bool(json_object_get(args, "backup"), false) || mod_diff_wanted(x))
		return false;
	json_t *mv = json_object_get(args, "mode");
	*mode = -1;
	if (!mv)
		return true;
	*mode = args_mode(mv, 0);
	return *mode >= 0 && *mode == args_mode(mv, 07777);
}

/* The first stat of dest (following links, with the checksum put_content
 * then asks for, which the stat memo answers), carrying put_content's
 * write of data when it can (write_in_stat; data NULL: never). */
static int stat_dest(struct exec_ctx *x, json_t *args, const char *dest, const void *data,
		     size_t len, struct node_stat *st, json_t **res)
{
	long mode;
	if (data && write_in_stat(x, args, len, &mode))
		return mod_stat_write(x, dest, data, len, mode, args_str(args, "owner"),
				      args_str(args, "group"), st, res);
	return mod_stat(x, dest, true, true, st, res);
}

/* The shell that makes a dest $d ending in "/" when it is missing, as
 * Ansible's copy module does: os.makedirs, then directory_mode ($dm),
 * owner ($o) and group ($g) given to each directory it created; exit 13
 * when os.makedirs would raise (a dangling link or a file in the way), as
 * the module then dies. */
#define NEW_DEST_DIRS "case $d in */) dn=${d%/}; if [ ! -e \"$dn\" ]; then x=$dn; new=; " \
	"while [ -n \"$x\" ] && [ ! -e \"$x\" ]; do new=\"$x\n$new\"; x=$(dirname -- \"$x\"); done; " \
	"mkdir -p -- \"$dn\" 2>/dev/null || exit 13; printf '%b' \"$new\" | while IFS= read -r y; do " \
	"[ -n \"$y\" ] || continue; [ -z \"$dm\" ] || chmod \"$dm\" \"$y\"; " \
	"[ -z \"$o\" ] || chown \"$o\" \"$y\"; [ -z \"$g\" ] || chgrp \"$g\" \"$y\"; done; fi;; esac; "

/* dest ending in '/' or naming a directory -> dest/basename(src) */
char *copy_final_dest(struct exec_ctx *x, json_t *args, const char *dest, const char *src, json_t **res)
{
	return copy_final_dest_put(x, dest, src, args, NULL, 0, res);
}

char *copy_final_dest_put(struct exec_ctx *x, const char *dest, const char *src, json_t *args,
			  const void *data, size_t len, json_t **res)
{
	size_t n = strlen(dest);
	const char *base = src ? strrchr(src, '/') : NULL;
	base = base ? base + 1 : src;
	if (n && dest[n - 1] == '/' && src && x->check_mode)
		return xasprintf("%s%s", dest, base); /* creates nothing */
	if (n && dest[n - 1] == '/' && src) {
		const char *dm = args ? args_str(args, "directory_mode") : NULL;
		const char *owner = args ? args_str(args, "owner") : NULL;
		const char *group = args ? args_str(args, "group") : NULL;
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "d=");
		sh_quote(&c, dest);
		strbuf_addstr(&c, "; dm=");
		sh_quote(&c, dm ? dm : "");
		strbuf_addstr(&c, "; o=");
		sh_quote(&c, owner ? owner : "");
		strbuf_addstr(&c, "; g=");
		sh_quote(&c, group ? group : "");
		strbuf_addstr(&c, "; " NEW_DEST_DIRS);
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
		int st = cr.rc;
		conn_result_release(&cr);
		strbuf_release(&c);
		if (rc < 0)
			return NULL;
		if (st == 13) { /* os.makedirs raising: the module dies */
			*res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
			json_object_set_new(*res, "rc", json_integer(1));
			return NULL;
		}
		return xasprintf("%s%s", dest, base);
	}
	if (src) {
		struct node_stat st;
		if (stat_dest(x, args, dest, data, len, &st, res) < 0)
			return NULL;
		if (st.exists && st.isdir)
			return xasprintf("%s/%s", dest, base);
	}
	return xstrdup(dest);
}

static json_t *copy_tree(struct exec_ctx *x, json_t *args, const char *src, const char *dest,
			 bool *changed);

/* dest is a file or a link: Ansible's module backs it up, replaces a link
 * by an empty file, validates with src (after giving src the mode, owner
 * and group), gives src dest's mode and owner, then cannot rename a
 * directory over a file. */
static json_t *replace_by_dir(struct exec_ctx *x, json_t *args, const char *src, const char *dest)
{
	json_t *res = NULL;
	char *bak = NULL;
	if (args_bool(json_object_get(args, "backup"), false) && mod_backup(x, dest, &bak, &res) < 0)
		return res;
	free(bak);
	if (link_to_empty_file(x, dest, &res) < 0)
		return res;
	struct strbuf c;
	struct conn_result cr;
	int rc;
	const char *validate = args_str(args, "validate");
	if (validate) {
		bool ch = false;
		if (mod_attrs(x, src, args, &ch, &res) < 0)
			return res;
		if (!strstr(validate, "%s"))
			return res_fail("validate must contain %%s: %s", validate);
		c = (struct strbuf)STRBUF_INIT;
		const char *pct = strstr(validate, "%s");
		strbuf_add(&c, validate, (size_t)(pct - validate));
		strbuf_addstr(&c, src);
		strbuf_addstr(&c, pct + 2);
		conn_result_init(&cr);
		rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		if (rc == 0 && cr.rc != 0)
			res = validate_failed(&cr);
		conn_result_release(&cr);
		if (rc < 0 || res)
			return res;
	}
	/* the move gives src dest's mode and owner before the rename fails */
	c = (struct strbuf)STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; s=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; [ -e \"$p\" ] && chmod --reference=\"$p\" -- \"$s\" && chown --reference=\"$p\" -- \"$s\"");
	conn_result_init(&cr);
	rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
	strbuf_release(&c);
	conn_result_release(&cr);
	if (rc < 0)
		return res;
	return res_fail("Could not replace file: b'%s' to %s: [Errno 20] Not a directory: b'%s' -> b'%s'", src,
			dest, src, dest);
}

/* The shell that puts the directory $1 (src with "/" at its end) into $2 as
 * Ansible's copy module merges them: what differs or is in $1 only is
 * copied (contents and mode, links as links), subdirectories in common are
 * merged, what differs in type is left; prints CHANGED when it copied. */
#define MERGE_FN "merge() { diff -rq --no-dereference -- \"$1\" \"$2\" 2>/dev/null | " \
	"while IFS= read -r l; do case $l in " \
	"'Files '*' differ') a=${l#Files }; a=${a%% and *}; b=$2${a#$1}; " \
	"cp -P --preserve=mode,timestamps -- \"$a\" \"$b\" && echo CHANGED;; " \
	"'Symbolic links '*' differ') a=${l#Symbolic links }; a=${a%% and *}; b=$2${a#$1}; " \
	"rm -f -- \"$b\"; cp -P -- \"$a\" \"$b\" && echo CHANGED;; " \
	"\"Only in $1\"*) a=${l#Only in }; n=${a#*: }; a=${a%%: *}; b=$2${a#$1}; " \
	"cp -R -P --preserve=mode,timestamps -- \"$a/$n\" \"$b/$n\" && echo CHANGED;; " \
	"esac; done; }; "

/* Ansible's copy of a directory on the node (remote_src, src a
 * directory), in its order: dest ending in "/" made with directory_mode;
 * dest an existing directory gets src's basename appended; an existing
 * dest that is a file or a link (dangling too) cannot be replaced by a
 * directory (a link is first replaced by an empty file, and validate runs
 * on src); otherwise src's contents (src ending in "/") or src itself is
 * merged into the dest as given, every entry then owned by owner/group;
 * mode/owner/group apply to dest. */
static json_t *copy_remote_dir(struct exec_ctx *x, json_t *args, const char *src, const char *dest0)
{
	json_t *res = NULL;
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	const char *dm = args_str(args, "directory_mode");
	const char *owner = args_str(args, "owner"), *group = args_str(args, "group");
	bool force = args_bool(json_object_get(args, "force"), true);
	char *dest = NULL;
	bool changed = false;
	strbuf_addstr(&c, "s=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; d=");
	sh_quote(&c, dest0);
	strbuf_addstr(&c, "; dm=");
	sh_quote(&c, dm ? dm : "");
	strbuf_addstr(&c, "; o=");
	sh_quote(&c, owner ? owner : "");
	strbuf_addstr(&c, "; g=");
	sh_quote(&c, group ? group : "");
	/* dest/ missing: made, the directories created given directory_mode,
	 * owner and group */
	strbuf_addstr(&c, "; " NEW_DEST_DIRS
			 /* the dest the module settles on */
			 "t=$d; if [ -d \"$t\" ]; then b=${s##*/}; case $t in */) t=$t$b;; *) t=$t/$b;; esac; fi; "
			 "printf '%s\\n' \"$t\"; "
			 "if [ -e \"$t\" ]; then ");
	if (!force)
		strbuf_addstr(&c, "exit 10; ");
	strbuf_addstr(&c, "[ -f \"$t\" ] && exit 12; [ -L \"$t\" ] && exit 12; "
			 "else [ -L \"$t\" ] && exit 12; p=$(dirname -- \"$t\"); [ -e \"$p\" ] || { printf '%s' \"$p\"; exit 11; }; fi; "
			 MERGE_FN
			 "chown_r() { [ -z \"$o\" ] || { [ -z \"$(find \"$1\" ! -user \"$o\" -print -quit)\" ] || echo CHANGED; "
			 "chown -R -h \"$o\" -- \"$1\"; }; [ -z \"$g\" ] || { [ -z \"$(find \"$1\" ! -group \"$g\" -print -quit)\" ] || "
			 "echo CHANGED; chgrp -R -h \"$g\" -- \"$1\"; }; }; "
			 "case $s in */) if [ -d \"$d\" ]; then merge \"$s\" \"$d/\"; chown_r \"$d\"; "
			 "elif [ ! -e \"$d\" ]; then { [ -e \"${d%/}\" ] || [ -L \"${d%/}\" ]; } && exit 13; "
			 "cp -R -P --preserve=mode,timestamps -- \"$s\" \"$d/\" && echo CHANGED; chown_r \"$t\"; fi;; "
			 "*) b=${s##*/}; if [ -d \"$d\" ]; then if [ ! -e \"$d/$b\" ]; then "
			 "cp -R -P --preserve=mode,timestamps -- \"$s\" \"$d/$b\" && echo CHANGED; chown_r \"$t\"; fi; "
			 "merge \"$s/\" \"$d/$b/\"; chown_r \"$d/$b\"; "
			 "elif [ ! -e \"$d\" ]; then mkdir -p -- \"$d/$b\" 2>/dev/null || exit 13; merge \"$s/\" \"$d/$b/\"; "
			 "chown_r \"$d/$b\"; fi;; esac");
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	dest = xstrndup(o, strcspn(o, "\n"));
	changed = strstr(o, "CHANGED") != NULL;
	if (cr.rc == 10) {
		res = res_new(false);
		json_object_set_new(res, "msg", json_string("file already exists"));
		json_object_set_new(res, "src", json_string(src));
		json_object_set_new(res, "dest", json_string(dest));
		mod_path_info(x, res);
		goto out;
	}
	if (cr.rc == 11) {
		const char *nl = strchr(o, '\n');
		res = res_fail("Destination directory %s does not exist", nl ? nl + 1 : "");
		goto out;
	}
	if (cr.rc == 12) {
		res = replace_by_dir(x, args, src, dest);
		goto out;
	}
	if (cr.rc == 13) { /* os.makedirs (copytree's too) raising: the module dies */
		res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(res, "rc", json_integer(1));
		goto out;
	}
	if (cr.rc != 0) {
		res = res_fail("failed to copy: %s to %s: %s", src, dest, strbuf_str(&cr.err));
		goto out;
	}
	if (mod_attrs(x, dest, args, &changed, &res) < 0)
		goto out;
	res = res_new(changed);
	json_object_set_new(res, "dest", json_string(dest));
	json_object_set_new(res, "src", json_string(src));
	json_object_set_new(res, "md5sum", json_null());
	json_object_set_new(res, "checksum", json_null());
	mod_path_info(x, res);
out:
	free(dest);
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}


/* Python's os.path.dirname as a shell function: what precedes the last
 * "/", its trailing slashes dropped ("a/dest/" -> "a/dest"). */
#define PDIR_FN "pdir() { h=${1%/*}; while [ \"${h%/}\" != \"$h\" ] && [ -n \"${h%/}\" ]; do h=${h%/}; done; " \
	"printf '%s' \"${h:-/}\"; }; "

/* The failure of a node src check (exit 20, 21 or 22 of the remote_src
 * scripts), in the words of Ansible's copy module. */
static json_t *src_check_failure(int rc, const char *src)
{
	if (rc == 20)
		return res_fail("Source %s not found", src);
	if (rc == 21)
		return res_fail("Source %s not readable", src);
	return res_fail("Cannot copy invalid source '%s': not a file", src);
}

/* Ansible's copy of a file on the node (remote_src, src a file), in its
 * module's order: src found, readable and a regular file; dest ending in
 * "/" made when missing (the new directories given directory_mode, owner
 * and group); an existing directory dest gets src's basename appended;
 * then force, follow, a missing parent, a parent not writable. When the
 * checksums differ or dest is a link: backup, a link replaced by an empty
 * file, validate run on src itself after giving src mode, owner and group,
 * then a temporary copy beside dest renamed over it (an existing dest's
 * mode and owner kept, a new one the umask's mode); then mode, owner and
 * group on dest. */
static json_t *copy_remote_file(struct exec_ctx *x, json_t *args, const char *src, const char *dest0)
{
	json_t *res = NULL;
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	const char *dm = args_str(args, "directory_mode");
	const char *owner = args_str(args, "owner"), *group = args_str(args, "group");
	char *dest = NULL, *backup_file = NULL;
	strbuf_addstr(&c, "s=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; d=");
	sh_quote(&c, dest0);
	strbuf_addstr(&c, "; dm=");
	sh_quote(&c, dm ? dm : "");
	strbuf_addstr(&c, "; o=");
	sh_quote(&c, owner ? owner : "");
	strbuf_addstr(&c, "; g=");
	sh_quote(&c, group ? group : "");
	strbuf_addf(&c, "; force=%s; follow=%s; ", args_bool(json_object_get(args, "force"), true) ? "1" : "",
		    args_bool(json_object_get(args, "follow"), false) ? "1" : "");
	strbuf_addstr(&c, PDIR_FN
		"[ -e \"$s\" ] || exit 20; [ -r \"$s\" ] || exit 21; [ -f \"$s\" ] || exit 22; "
		"cs=$(sha1sum < \"$s\") && md=$(md5sum < \"$s\") || exit 1; cs=${cs%% *}; md=${md%% *}; "
		"case $d in */*) ;; *) d=./$d;; esac; "
		/* dest/ missing: made, the directories created given
		 * directory_mode, owner and group (a dangling link in the way
		 * makes os.makedirs raise: the module dies) */
		NEW_DEST_DIRS
		"if [ -d \"$d\" ]; then b=${s##*/}; case $d in */) d=$d$b;; *) d=$d/$b;; esac; fi; "
		"cd=; if [ -e \"$d\" ]; then "
		"if [ -L \"$d\" ] && [ -n \"$follow\" ]; then d=$(realpath -- \"$d\"); fi; "
		"[ -n \"$force\" ] || { printf '%s\\n' \"$d\"; exit 10; }; "
		"if [ -r \"$d\" ] && [ -f \"$d\" ]; then cd=$(sha1sum < \"$d\") || exit 1; cd=${cd%% *}; fi; "
		"else p=$(pdir \"$d\"); [ -e \"$p\" ] || { printf '%s\\n' \"$p\"; exit 11; }; fi; "
		"p=$(pdir \"$d\"); [ -w \"$p\" ] || { printf '%s\\n' \"$p\"; exit 24; }; "
		"ch=; { [ \"$cs\" != \"$cd\" ] || [ -L \"$d\" ]; } && ch=1; "
		"printf '%s\\n%s\\n%s\\n%s\\n' \"$d\" \"$cs\" \"$md\" \"$ch\"");
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	size_t n = strcspn(o, "\n");
	switch (cr.rc) {
	case 0:
		break;
	case 20:
	case 21:
	case 22:
		res = src_check_failure(cr.rc, src);
		goto out;
	case 10:
		res = res_new(false);
		json_object_set_new(res, "msg", json_string("file already exists"));
		json_object_set_new(res, "src", json_string(src));
		json_object_set_new(res, "dest", json_stringn(o, n));
		mod_path_info(x, res);
		goto out;
	case 11:
		res = res_fail("Destination directory %.*s does not exist", (int)n, o);
		goto out;
	case 24:
		res = res_fail("Destination %.*s not writable", (int)n, o);
		goto out;
	default: /* os.makedirs raising (13), or sha1sum failing */
		res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(res, "rc", json_integer(1));
		goto out;
	}
	/* dest, sha1, md5, changed: one a line */
	dest = xstrndup(o, n);
	const char *l2 = o + n + (o[n] ? 1 : 0);
	size_t n2 = strcspn(l2, "\n");
	const char *l3 = l2 + n2 + (l2[n2] ? 1 : 0);
	size_t n3 = strcspn(l3, "\n");
	const char *l4 = l3 + n3 + (l3[n3] ? 1 : 0);
	bool changed = *l4 == '1';
	json_t *sum = json_stringn(l2, n2), *md5 = json_stringn(l3, n3);
	if (changed) {
		if (args_bool(json_object_get(args, "backup"), false) && mod_backup(x, dest, &backup_file, &res) < 0)
			goto out_sums;
		if (link_to_empty_file(x, dest, &res) < 0)
			goto out_sums;
		const char *validate = args_str(args, "validate");
		if (validate) {
			bool ch = false;
			if (mod_attrs(x, src, args, &ch, &res) < 0)
				goto out_sums;
			if (!strstr(validate, "%s")) {
				res = res_fail("validate must contain %%s: %s", validate);
				goto out_sums;
			}
			strbuf_reset(&c);
			const char *pct = strstr(validate, "%s");
			strbuf_add(&c, validate, (size_t)(pct - validate));
			strbuf_addstr(&c, src);
			strbuf_addstr(&c, pct + 2);
			conn_result_release(&cr);
			conn_result_init(&cr);
			if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
				goto out_sums;
			if (cr.rc != 0) {
				res = validate_failed(&cr);
				goto out_sums;
			}
		}
		/* mkstemp beside dest, then atomic_move: over an existing dest
		 * with its mode and owner, else the umask's mode */
		strbuf_reset(&c);
		strbuf_addstr(&c, "s=");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; d=");
		sh_quote(&c, dest);
		strbuf_addstr(&c, "; " PDIR_FN "t=$(mktemp -p \"$(pdir \"$d\")\" tmpXXXXXXXX 2>/dev/null) || exit 14; "
				 "cat -- \"$s\" > \"$t\" || { rm -f -- \"$t\"; exit 14; }; "
				 "if [ -e \"$d\" ]; then chmod --reference=\"$d\" -- \"$t\" && chown --reference=\"$d\" -- \"$t\" && "
				 "mv -f -T -- \"$t\" \"$d\" 2>/dev/null || { rm -f -- \"$t\"; exit 15; }; "
				 "else mv -f -T -- \"$t\" \"$d\" && chmod \"$(printf '%o' $((0666 & ~0$(umask))))\" -- \"$d\"; fi");
		conn_result_release(&cr);
		conn_result_init(&cr);
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
			goto out_sums;
		if (cr.rc == 14) {
			res = res_fail("failed to copy: %s to %s", src, dest);
			goto out_sums;
		}
		if (cr.rc != 0) {
			res = res_fail("Could not replace file: %s to %s", src, dest);
			goto out_sums;
		}
	}
	if (mod_attrs(x, dest, args, &changed, &res) < 0)
		goto out_sums;
	res = res_new(changed);
	json_object_set_new(res, "dest", json_string(dest));
	json_object_set_new(res, "src", json_string(src));
	json_object_set_new(res, "md5sum", json_incref(md5));
	json_object_set_new(res, "checksum", json_incref(sum));
	if (backup_file && *backup_file)
		json_object_set_new(res, "backup_file", json_string(backup_file));
	mod_path_info(x, res);
out_sums:
	json_decref(sum);
	json_decref(md5);
out:
	free(dest);
	free(backup_file);
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

/* Ansible's copy module with remote_src in check mode, which looks and
 * changes nothing: the dest it settles on (dest/ missing: "would be
 * created"; an existing directory: src's basename appended; follow: a
 * link's target), force, a missing parent, then changed when the
 * checksums differ or dest is a link, or, for a directory src, when the
 * copy would bring something (filecmp's dircmp: a file that differs or
 * is in src only, in common subdirectories too; owner/group differing
 * anywhere under dest); then the attributes it would change. The script
 * prints the dest, the checksums (sha1, md5) of a file src, and CHANGED. */
static json_t *copy_remote_check(struct exec_ctx *x, json_t *args, const char *src, const char *dest0)
{
	json_t *res = NULL;
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	const char *owner = args_str(args, "owner"), *group = args_str(args, "group");
	strbuf_addstr(&c, "s=");
	sh_quote(&c, src);
	strbuf_addstr(&c, "; D=");
	sh_quote(&c, dest0);
	strbuf_addstr(&c, "; o=");
	sh_quote(&c, owner ? owner : "");
	strbuf_addstr(&c, "; g=");
	sh_quote(&c, group ? group : "");
	strbuf_addf(&c, "; force=%s; follow=%s; ", args_bool(json_object_get(args, "force"), true) ? "1" : "",
		    args_bool(json_object_get(args, "follow"), false) ? "1" : "");
	strbuf_addstr(&c,
		"[ -e \"$s\" ] || exit 20; [ -r \"$s\" ] || exit 21; cs=; md=; "
		"if [ -f \"$s\" ]; then cs=$(sha1sum < \"$s\") && md=$(md5sum < \"$s\") || exit 1; "
		"cs=${cs%% *}; md=${md%% *}; elif [ ! -d \"$s\" ]; then exit 22; fi; "
		"d=$D; case $d in */*) ;; *) d=./$d;; esac; "
		"case $d in */) [ -e \"${d%/}\" ] || { printf '%s' \"${d%/}\"; exit 23; };; esac; "
		"if [ -d \"$d\" ]; then b=${s##*/}; case $d in */) d=$d$b;; *) d=$d/$b;; esac; fi; "
		"cd=; if [ -e \"$d\" ]; then "
		"if [ -L \"$d\" ] && [ -n \"$follow\" ]; then d=$(realpath -- \"$d\"); fi; "
		"[ -n \"$force\" ] || { printf '%s\\n' \"$d\"; exit 10; }; "
		"if [ -r \"$d\" ] && [ -f \"$d\" ]; then cd=$(sha1sum < \"$d\") || exit 1; cd=${cd%% *}; fi; "
		"else p=$(dirname -- \"$d\"); [ -e \"$p\" ] || { printf '%s' \"$p\"; exit 11; }; fi; "
		"[ -w \"$(dirname -- \"$d\")\" ] || { dirname -- \"$d\"; exit 24; }; "
		"ch=; { [ \"$cs\" != \"$cd\" ] || [ -L \"$d\" ]; } && ch=1; "
		/* what a merge of $1 into $2 would bring */
		"brings() { a=${1%/}; diff -rq -- \"$1\" \"$2\" 2>/dev/null | { while IFS= read -r l; do case $l in "
		"'Files '*' differ'|\"Only in $a\"[/:]*) exit 0;; esac; done; exit 1; }; }; "
		"owned() { if [ -n \"$o\" ]; then u=$(id -u -- \"$o\") || exit 1; find \"$1\" | while IFS= read -r y; do "
		"[ \"$(stat -L -c %u -- \"$y\" 2>/dev/null)\" = \"$u\" ] || exit 1; done || return 0; fi; "
		"if [ -n \"$g\" ]; then n=$(getent group -- \"$g\" | cut -d: -f3); [ -n \"$n\" ] || exit 1; "
		"find \"$1\" | while IFS= read -r y; do [ \"$(stat -L -c %g -- \"$y\" 2>/dev/null)\" = \"$n\" ] || exit 1; done || "
		"return 0; fi; return 1; }; "
		"if [ -z \"$cs\" ] && [ -z \"$cd\" ] && [ -d \"$s\" ]; then b=${s##*/}; case $s in "
		"*/) if [ -d \"$D\" ]; then { brings \"$s\" \"$D\" || owned \"$D\"; } && ch=1; "
		"elif [ ! -e \"$D\" ]; then ch=1; fi;; "
		"*) if [ -e \"$D\" ] && [ ! -d \"$D\" ]; then :; elif [ ! -e \"$D/$b\" ]; then ch=1; "
		"elif [ -d \"$D\" ]; then { brings \"$s/\" \"$D/$b\" || owned \"$D/$b\"; } && ch=1; fi;; esac; fi; "
		"printf '%s\\n%s\\n%s\\n%s\\n' \"$d\" \"$cs\" \"$md\" \"$ch\"");
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	size_t n = strcspn(o, "\n");
	switch (cr.rc) {
	case 0:
		break;
	case 20:
	case 21:
	case 22:
		res = src_check_failure(cr.rc, src);
		goto out;
	case 23:
		res = json_pack("{s:b, s:s++, s:s}", "changed", 1, "msg", "dest directory ", o, " would be created",
				"src", src);
		goto out;
	case 10:
		res = res_new(false);
		json_object_set_new(res, "msg", json_string("file already exists"));
		json_object_set_new(res, "src", json_string(src));
		json_object_set_new(res, "dest", json_stringn(o, n));
		mod_path_info(x, res);
		goto out;
	case 11:
		res = res_fail("Destination directory %s does not exist", o);
		goto out;
	case 24:
		res = res_fail("Destination %.*s not writable", (int)n, o);
		goto out;
	default:
		res = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
		json_object_set_new(res, "rc", json_integer(1));
		goto out;
	}
	/* dest, sha1, md5, CHANGED: one a line */
	char *dest = xstrndup(o, n);
	const char *l2 = o + n + (o[n] ? 1 : 0);
	size_t n2 = strcspn(l2, "\n");
	const char *l3 = l2 + n2 + (l2[n2] ? 1 : 0);
	size_t n3 = strcspn(l3, "\n");
	const char *l4 = l3 + n3 + (l3[n3] ? 1 : 0);
	bool changed = *l4 == '1';
	if (mod_attrs(x, dest, args, &changed, &res) < 0) {
		free(dest);
		goto out;
	}
	res = res_new(changed);
	json_object_set_new(res, "dest", json_string(dest));
	json_object_set_new(res, "src", json_string(src));
	json_object_set_new(res, "md5sum", n3 ? json_stringn(l3, n3) : json_null());
	json_object_set_new(res, "checksum", n2 ? json_stringn(l2, n2) : json_null());
	mod_path_info(x, res);
	free(dest);
out:
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

/* mode=preserve of a controller file: Ansible's copy action sends the
 * file's own mode ('0%03o' of its S_IMODE) instead (a new reference). */
static json_t *preserve_mode(json_t *args, const char *local)
{
	struct stat sb;
	if (strcmp(args_str(args, "mode") ? args_str(args, "mode") : "", "preserve") || stat(local, &sb) < 0)
		return json_incref(args);
	json_t *a = json_deep_copy(args);
	json_object_set_new(a, "mode", json_sprintf("0%03o", (unsigned)(sb.st_mode & 07777)));
	return a;
}

static json_t *copy_run(struct exec_ctx *x, json_t *args)
{
	/* the checks of Ansible's copy action, in its order, before anything
	 * is looked at: an empty src is none, a null content none */
	const char *dest0 = args_str(args, "dest");
	json_t *content = json_object_get(args, "content");
	if (json_is_null(content))
		content = NULL;
	const char *src = args_str(args, "src");
	if (src && !*src)
		src = NULL;
	json_t *res = NULL;
	if (!src && !content)
		return res_fail("src (or content) is required");
	if (!dest0 || !*dest0)
		return res_fail("dest is required");
	if (content && src)
		return res_fail("src and content are mutually exclusive");
	size_t dl0 = strlen(dest0);
	if (content && dl0 && dest0[dl0 - 1] == '/')
		return res_fail("can not use content with a dir as dest");
	/* the paths as Ansible reads them: with remote_src its copy module
	 * alone, src and dest expanded on the node; else its copy action
	 * first expands dest's ~ to the user's passwd home */
	static const char *const both[] = { "src", "dest", NULL }, *const dest_key[] = { "dest", NULL };
	bool remote_src = args_bool(json_object_get(args, "remote_src"), false) && src;
	if ((!remote_src && mod_expand_action_home(x, args, dest_key, &res) < 0) ||
	    mod_expand_paths(x, args, remote_src ? both : dest_key, &res) < 0)
		return res;
	src = args_str(args, "src");
	dest0 = args_str(args, "dest");
	/* mode=preserve with remote_src: the copy module takes src's mode */
	if (remote_src && !strcmp(args_str(args, "mode") ? args_str(args, "mode") : "", "preserve")) {
		struct node_stat ps;
		if (mod_stat(x, src, true, false, &ps, &res) < 0)
			return res;
		if (ps.exists)
			json_object_set_new(args, "mode", json_sprintf("0%03o", (unsigned)(ps.mode & 07777)));
	}
	if (args_bool(json_object_get(args, "remote_src"), false) && src && x->check_mode)
		return copy_remote_check(x, args, src, dest0);
	if (args_bool(json_object_get(args, "remote_src"), false) && src) {
		struct node_stat sst;
		if (mod_stat(x, src, true, false, &sst, &res) < 0)
			return res;
		if (sst.isdir)
			return copy_remote_dir(x, args, src, dest0);
		return copy_remote_file(x, args, src, dest0);
	}
	if (content) {
		char *own = json_is_string(content) ? NULL
						    : json_dumps(content, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
		const char *data = own ? own : json_string_value(content);
		size_t len = own ? strlen(own) : json_string_length(content);
		/* the action's own error on a directory dest (stat_dest) */
		struct node_stat dst;
		char *dest = NULL;
		if (stat_dest(x, args, dest0, data, len, &dst, &res) < 0)
			goto content_out;
		if (dst.exists && dst.isdir) {
			res = res_fail("can not use content with a dir as dest");
			goto content_out;
		}
		dest = copy_final_dest(x, args, dest0, NULL, &res);
		if (dest)
			res = copy_put_content(x, args, dest, dest0, data, len);
content_out:
		free(dest);
		free(own);
		return res;
	}
	if (!src)
		return res_fail("src (or content) is required");
	char *path = mod_find_src(x, "files", src);
	if (!path)
		return res_fail("Could not find or access '%s' on the Ansible Controller.", src);
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && x->check_mode) {
		free(path);
		return mod_check_unsupported(x, "copy", args, "a directory src");
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		size_t sl = strlen(src);
		bool contents = sl && src[sl - 1] == '/';
		char *dest;
		if (contents)
			dest = xstrdup(dest0);
		else {
			char *p2 = xstrdup(path);
			size_t l2 = strlen(p2);
			while (l2 > 1 && p2[l2 - 1] == '/')
				p2[--l2] = 0;
			const char *b = strrchr(p2, '/');
			size_t dl = strlen(dest0);
			dest = xasprintf("%s%s%s", dest0, dl && dest0[dl - 1] == '/' ? "" : "/",
					 b ? b + 1 : p2);
			free(p2);
		}
		bool changed = false;
		res = copy_tree(x, args, path, dest, &changed);
		if (!res) {
			res = res_new(changed);
			json_object_set_new(res, "dest", json_string(dest0));
			json_object_set_new(res, "src", json_string(path));
		}
		free(dest);
		free(path);
		return res;
	}
	struct strbuf data = STRBUF_INIT;
	if (mod_read_src(path, &data, &res) < 0) {
		if (!res)
			res = res_fail("Could not read '%s'", path);
		goto out;
	}
	json_t *fargs = preserve_mode(args, path);
	char *dest = copy_final_dest_put(x, dest0, src, fargs, data.buf ? data.buf : "", data.len, &res);
	if (!dest) {
		copy_sum_failure(res, data.buf ? data.buf : "", data.len);
		json_decref(fargs);
		goto out;
	}
	res = copy_put_content(x, fargs, dest, dest0, data.buf ? data.buf : "", data.len);
	json_decref(fargs);
	/* skipped without force: Ansible's action answers with the src it
	 * found on the controller, not a file it sent */
	if (!json_object_get(res, "checksum") && !json_object_get(res, "failed") &&
	    !strcmp(args_str(res, "src") ? args_str(res, "src") : "", "<controller>"))
		json_object_set_new(res, "src", json_string(path));
	free(dest);
out:
	strbuf_release(&data);
	free(path);
	return res;
}

/* Recursive copy of a controller directory; NULL on success. */
static json_t *copy_tree(struct exec_ctx *x, json_t *args, const char *src, const char *dest,
			 bool *changed)
{
	json_t *res = NULL;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "[ -d ");
	sh_quote(&c, dest);
	strbuf_addstr(&c, " ] && exit 3; mkdir -p -- ");
	sh_quote(&c, dest);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
	strbuf_release(&c);
	if (rc < 0) {
		conn_result_release(&cr);
		return res;
	}
	if (cr.rc == 0)
		*changed = true;
	conn_result_release(&cr);
	DIR *dir = opendir(src);
	if (!dir)
		return res_fail("cannot open '%s'", src);
	struct dirent *de;
	json_t *sub = json_object_get(args, "mode") ? json_deep_copy(args) : json_incref(args);
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sp = xasprintf("%s/%s", src, de->d_name);
		char *dp = xasprintf("%s/%s", dest, de->d_name);
		struct stat sb;
		if (stat(sp, &sb) == 0 && S_ISDIR(sb.st_mode))
			res = copy_tree(x, args, sp, dp, changed);
		else {
			struct strbuf data = STRBUF_INIT;
			if (mod_read_src(sp, &data, &res) < 0) {
				if (!res)
					res = res_fail("cannot read '%s'", sp);
			} else {
				json_t *fa = preserve_mode(sub, sp);
				json_t *r = copy_put_content(x, fa, dp, dp, data.buf ? data.buf : "", data.len);
				json_decref(fa);
				if (json_is_true(json_object_get(r, "failed")))
					res = r;
				else {
					*changed |= json_is_true(json_object_get(r, "changed"));
					json_decref(r);
				}
			}
			strbuf_release(&data);
		}
		free(sp);
		free(dp);
		if (res)
			break;
	}
	closedir(dir);
	json_decref(sub);
	return res;
}

static int copy_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!json_object_get(args, "dest")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "copy: missing required arguments: dest");
		return -1;
	}
	return 0;
}

const struct task_module mod_copy = {
	.name = "copy", .check = copy_check, .run = copy_run, .check_mode_native = true,
};
