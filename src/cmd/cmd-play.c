/* cmd-play.c: 'imc play PLAYBOOK': runs an Ansible play list with imc's
 * built-in executor, on this machine (--connection local, like
 * `ansible-playbook -c local`) or on SSH hosts given with -H, printing
 * Ansible's output shape and optionally writing the json callback document
 * (--results FILE). The playbook is checked before anything runs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <termios.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmd.h"
#include "cmd/play-settings.h"
#include "deploy/deploy.h"
#include "state/store.h"
#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/inventory.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "provision/provision.h"
#include "util/which.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum {
	OPT_CONNECTION, OPT_EXTRA_VARS, OPT_INVENTORY_HOST, OPT_HOST, OPT_KEY, OPT_KNOWN_HOSTS,
	OPT_GROUP, OPT_FORKS, OPT_RESULTS, OPT_JSON, OPT_QUIET, OPT_TARGET, OPT_NO_FALLBACK,
	OPT_SYNTAX_CHECK, OPT_LIST_MODULES, OPT_CHECK, OPT_DIFF,
	OPT_TAGS, OPT_SKIP_TAGS, OPT_LIST_HOSTS, OPT_LIST_TASKS, OPT_LIST_TAGS, OPT_START_AT_TASK,
	OPT_LIMIT, OPT_VERBOSE, OPT_FORCE_HANDLERS, OPT_VAULT_PASSWORD_FILE, OPT_VAULT_ID,
	OPT_ASK_VAULT_PASS,
};

static const struct cmd_option options[] = {
	[OPT_CONNECTION] = { "connection", 'c', CMD_OPT_VALUE, "local|ssh",
			     "where tasks run (default: ssh with -H, --key or\n"
			     "--target, else local; with an inventory file, for\n"
			     "its hosts that name no ansible_connection: ssh)" },
	[OPT_EXTRA_VARS] = { "extra-vars", 'e', CMD_OPT_LIST, "K=V|JSON|@FILE",
			     "extra variables (repeatable)" },
	[OPT_INVENTORY_HOST] = { "inventory-host", 'i', CMD_OPT_LIST, "FILE|DIR|NAME[,NAME]",
				 "an Ansible inventory (INI or YAML file, or a\n"
				 "directory of them; repeatable, merged), or the\n"
				 "names of local hosts (default localhost; several\n"
				 "run in parallel, each on this machine)" },
	[OPT_HOST] = { "host", 'H', CMD_OPT_LIST, "NAME=USER@ADDR[:PORT]",
		       "an SSH host (repeatable; needs --key;\nimplies --connection ssh)" },
	[OPT_KEY] = { "key", 'k', CMD_OPT_VALUE, "FILE",
		      "private key for SSH hosts (an inventory's: those\n"
		      "without ansible_ssh_private_key_file)" },
	[OPT_KNOWN_HOSTS] = { "known-hosts", 0, CMD_OPT_VALUE, "FILE",
			      "host keys: pinned on first contact (appended as\n"
			      "'NAME TYPE BASE64'), verified afterwards" },
	[OPT_GROUP] = { "group", 'g', CMD_OPT_LIST, "GROUP=NAME[,NAME]",
			"put hosts in a group (repeatable)" },
	[OPT_FORKS] = { "forks", 'f', CMD_OPT_VALUE, "N", "hosts run in parallel (default 16)" },
	[OPT_RESULTS] = { "results", 'r', CMD_OPT_VALUE, "FILE",
			  "write the results as Ansible's json callback" },
	[OPT_JSON] = { "json", 0, CMD_OPT_FLAG, NULL,
		       "print that document on stdout instead of the log" },
	[OPT_QUIET] = { "quiet", 'q', CMD_OPT_FLAG, NULL, "do not print the task log" },
	[OPT_TARGET] = { "target", 't', CMD_OPT_VALUE, "ID[:VM[,VM]]",
			 "the VMs of an existing infrastructure (over SSH with\n"
			 "its key; host keys verified against the pinned ones)" },
	[OPT_NO_FALLBACK] = { "no-fallback", 0, CMD_OPT_FLAG, NULL,
			      "never hand a task or the playbook to Ansible\n"
			      "(as IMC_NO_FALLBACK=1)" },
	[OPT_SYNTAX_CHECK] = { "syntax-check", 0, CMD_OPT_FLAG, NULL,
			       "only load the playbook and report its errors\n"
			       "(with file:line:col); run nothing" },
	[OPT_LIST_MODULES] = { "list-modules", 0, CMD_OPT_FLAG, NULL,
			       "print the modules imc runs itself, and exit" },
	[OPT_CHECK] = { "check", 'C', CMD_OPT_FLAG, NULL,
			"change nothing: report what would change (check\n"
			"mode for every task without check_mode: false)" },
	[OPT_DIFF] = { "diff", 'D', CMD_OPT_FLAG, NULL,
		       "show the changes to files (the diff keyword's\n"
		       "default), in the log and in the results" },
	[OPT_TAGS] = { "tags", 0, CMD_OPT_LIST, "TAG[,TAG]",
		       "only tasks with these tags (repeatable; always,\n"
		       "never, tagged, untagged and all as in Ansible)" },
	[OPT_SKIP_TAGS] = { "skip-tags", 0, CMD_OPT_LIST, "TAG[,TAG]",
			    "not the tasks with these tags (repeatable)" },
	[OPT_LIST_HOSTS] = { "list-hosts", 0, CMD_OPT_FLAG, NULL,
			     "print each play's hosts, run nothing" },
	[OPT_LIST_TASKS] = { "list-tasks", 0, CMD_OPT_FLAG, NULL,
			     "print the tasks that would run, with their tags\n"
			     "(as ansible-playbook), run nothing" },
	[OPT_LIST_TAGS] = { "list-tags", 0, CMD_OPT_FLAG, NULL,
			    "print each play's task tags, run nothing" },
	[OPT_START_AT_TASK] = { "start-at-task", 0, CMD_OPT_VALUE, "NAME",
				"skip the tasks before the first one named NAME\n"
				"(a glob; a role task also as 'ROLE : NAME')" },
	[OPT_LIMIT] = { "limit", 'l', CMD_OPT_VALUE, "PATTERN",
			"only the hosts matching this host pattern" },
	[OPT_VERBOSE] = { "verbose", 'v', CMD_OPT_FLAG, NULL,
			  "show each task's result as ansible-playbook -v\n"
			  "does (repeatable: -vvv indents it and adds diff\n"
			  "and invocation)" },
	[OPT_FORCE_HANDLERS] = { "force-handlers", 0, CMD_OPT_FLAG, NULL,
				 "run the handlers a host was notified of even\n"
				 "when it failed (the force_handlers default)" },
	[OPT_VAULT_PASSWORD_FILE] = { "vault-password-file", 0, CMD_OPT_LIST, "FILE",
				      "the vault password: the file's text, or the\n"
				      "output of it run when executable (repeatable)" },
	[OPT_VAULT_ID] = { "vault-id", 0, CMD_OPT_LIST, "[ID@]FILE|prompt",
			   "a vault id's password, from FILE as above or asked\n"
			   "on the terminal (repeatable)" },
	[OPT_ASK_VAULT_PASS] = { "ask-vault-pass", 0, CMD_OPT_FLAG, NULL,
				 "ask for the vault password on the terminal" },
	{ 0 },
};

/* The tag names of a repeatable --tags/--skip-tags (each a comma-separated
 * list, as ansible-playbook reads them), NULL when not given; *csv gets
 * them joined by commas (for ansible-playbook's environment). */
static json_t *tag_list(const struct cmd_value *o, char **csv)
{
	*csv = NULL;
	if (!o->n)
		return NULL;
	json_t *r = json_array();
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < o->n; i++) {
		char *list = xstrdup(o->list[i]), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			while (*t == ' ')
				t++;
			size_t n = strlen(t);
			while (n && t[n - 1] == ' ')
				t[--n] = 0;
			if (!n)
				continue;
			json_array_append_new(r, json_string(t));
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", t);
		}
		free(list);
	}
	*csv = strbuf_detach(&sb);
	return r;
}

/* imc play's errors read as ansible-playbook's ("ERROR! msg" and where):
 * it stands in for ansible-playbook, and scripts grep Ansible's words. */
static int play_report(const struct diag *d)
{
	diag_print_ansible(d, stderr);
	if (!diag_has_errors(d))
		return IMC_EXIT_OK;
	return d->code ? (int)d->code : IMC_EXIT_SOFTWARE;
}

static int add_extra(json_t *extra, const char *arg, struct diag *d)
{
	json_t *v = NULL;
	if (arg[0] == '@') {
		struct strbuf sb = STRBUF_INIT;
		if (strbuf_read_file(&sb, arg + 1) < 0) {
			diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s': %m", arg + 1);
			strbuf_release(&sb);
			return -1;
		}
		v = yaml_load(sb.buf ? sb.buf : "", sb.len, arg + 1, 0, NULL, d);
		strbuf_release(&sb);
	} else if (arg[0] == '{' || arg[0] == '[') {
		v = yaml_load(arg, strlen(arg), "-e", 0, NULL, d);
	} else
		v = args_parse_kv(arg, false, d);
	if (!v)
		return -1;
	if (!json_is_object(v)) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "extra vars must be a mapping: '%s'", arg);
		json_decref(v);
		return -1;
	}
	json_object_del(v, "_raw_params");
	json_object_update(extra, v);
	json_decref(v);
	return 0;
}

static void group_add(json_t *groups, const char *g, const char *h)
{
	json_t *a = json_object_get(groups, g);
	if (!a) {
		a = json_array();
		json_object_set_new(groups, g, a);
	}
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(e), h))
			return;
	json_array_append_new(a, json_string(h));
}

/* A password asked on the terminal, without echo, as Ansible's prompt
 * (getpass) does; stripped of white space. NULL with *err. */
static char *ask_password(const char *prompt, char **err)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	struct termios old, raw;
	if (fd < 0 || !isatty(fd) || tcgetattr(fd, &old) < 0) {
		if (fd >= 0)
			close(fd);
		*err = xstrdup("asking for a vault password needs a terminal: give it with "
			       "--vault-password-file FILE or --vault-id [ID@]FILE");
		return NULL;
	}
	raw = old;
	raw.c_lflag &= ~(tcflag_t)ECHO;
	if (write(fd, prompt, strlen(prompt)) < 0 || tcsetattr(fd, TCSAFLUSH, &raw) < 0) {
		close(fd);
		*err = xstrdup("cannot use the terminal to ask for the vault password");
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	char c;
	ssize_t r;
	while ((r = read(fd, &c, 1)) > 0 && c != '\n' && sb.len < 4096)
		strbuf_addch(&sb, c);
	tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0) {
		/* the password is read: a lost newline on the terminal is harmless */
	}
	close(fd);
	const char *text = strbuf_str(&sb);
	size_t s = 0, n = sb.len;
	while (s < n && strchr(" \t\r\v\f", text[s]))
		s++;
	while (n > s && strchr(" \t\r\v\f", text[n - 1]))
		n--;
	char *pw = n > s ? xstrndup(text + s, n - s) : NULL;
	vault_wipe(sb.buf, sb.len);
	strbuf_release(&sb);
	if (!pw)
		*err = xstrdup(r == 0 && !n ? "EOFError (ctrl-d) on prompt for the vault password"
					     : "Invalid vault password was provided");
	return pw;
}

/* The vault secrets of the command line into ring, in ansible-playbook's
 * order: ANSIBLE_VAULT_IDENTITY_LIST, each --vault-id, each
 * --vault-password-file then ANSIBLE_VAULT_PASSWORD_FILE (as the default
 * id), --ask-vault-pass. A source that cannot be read is a warning while
 * another one gives a secret, else the error, as Ansible. */
static int vault_setup(const struct cmd_value *opt, struct vault_keyring *ring, struct diag *d)
{
	const char *defid = getenv("ANSIBLE_VAULT_IDENTITY");
	if (!defid || !*defid)
		defid = "default";
	json_t *slugs = json_array();
	const char *list = getenv("ANSIBLE_VAULT_IDENTITY_LIST");
	if (list && *list) {
		char *l = xstrdup(list), *save = NULL;
		for (char *t = strtok_r(l, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			t += strspn(t, " ");
			size_t n = strlen(t);
			while (n && t[n - 1] == ' ')
				t[--n] = 0;
			if (n)
				json_array_append_new(slugs, json_string(t));
		}
		free(l);
	}
	for (size_t i = 0; i < opt[OPT_VAULT_ID].n; i++)
		json_array_append_new(slugs, json_string(opt[OPT_VAULT_ID].list[i]));
	for (size_t i = 0; i < opt[OPT_VAULT_PASSWORD_FILE].n; i++)
		json_array_append_new(slugs, json_sprintf("%s@%s", defid, opt[OPT_VAULT_PASSWORD_FILE].list[i]));
	const char *envf = getenv("ANSIBLE_VAULT_PASSWORD_FILE");
	if (envf && *envf)
		json_array_append_new(slugs, json_sprintf("%s@%s", defid, envf));
	if (opt[OPT_ASK_VAULT_PASS].set)
		json_array_append_new(slugs, json_sprintf("%s@prompt_ask_vault_pass", defid));
	char *last = NULL;
	int rc = 0;
	size_t i;
	json_t *e;
	json_array_foreach(slugs, i, e) {
		const char *slug = json_string_value(e), *at = strchr(slug, '@');
		char *name = at ? xstrndup(slug, (size_t)(at - slug)) : NULL;
		const char *src = at ? at + 1 : slug;
		char *err = NULL;
		if (!strcmp(src, "prompt") || !strcmp(src, "prompt_ask_vault_pass")) {
			const char *id = name ? name : defid;
			char *prompt = !strcmp(src, "prompt") ? xasprintf("Vault password (%s): ", id)
							      : xstrdup("Vault password: ");
			char *pw = ask_password(prompt, &err);
			free(prompt);
			if (!pw) {
				/* Ansible stops at a failed prompt */
				diag_error(d, IMC_EXIT_USAGE, NULL, "%s", err);
				free(err);
				free(name);
				rc = -1;
				break;
			}
			vault_keyring_add(ring, id, pw, strlen(pw));
			vault_wipe(pw, strlen(pw));
			free(pw);
		} else {
			/* a source read after others may be encrypted with them */
			vault_keyring_set_default(ring);
			int r = vault_secret_load(ring, name ? name : defid, src, &err);
			if (r < 0) {
				fprintf(stderr, "[WARNING]: Error %s (%s): %s\n",
					r == -2 ? "getting vault password file" : "in vault password file loading",
					name ? name : "None", err);
				free(last);
				last = err;
			}
		}
		free(name);
	}
	if (rc == 0 && last && !ring->n) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "%s", last);
		rc = -1;
	}
	free(last);
	json_decref(slugs);
	vault_keyring_set_default(ring);
	return rc;
}

/* The fallback: the same play under ansible-playbook -c local, or, with
 * inventory files, with those files and the connection they give (-c
 * local only when asked for). With --results its json callback writes
 * the results file. */
static int run_ansible(const char *playbook, const char *host, const struct cmd_value *files,
		       bool local, const char *key, json_t *extra, const char *results,
		       bool quiet, bool check, bool diff, const char *limit, const char *start_at,
		       const struct cmd_value *opt)
{
	char *ev = json_dumps(extra, JSON_COMPACT);
	char *inv = xasprintf("%s,", host);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("ANSIBLE_NOCOLOR", "1", 1);
		setenv("ANSIBLE_RETRY_FILES_ENABLED", "0", 1);
		setenv("ANSIBLE_PYTHON_INTERPRETER", "/usr/bin/python3", 0);
		if (results) {
			setenv("ANSIBLE_STDOUT_CALLBACK", "ansible.posix.json", 1);
			int fd = open(results, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(IMC_EXIT_IOERR);
			dup2(fd, 1);
			close(fd);
		} else if (quiet) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			close(fd);
		}
		/* copies: execvp's argv is not const (the child execs or exits) */
		char **argv = xcalloc(17 + 2 * (files ? files->n : 0) + 2 * opt[OPT_VAULT_ID].n +
				      2 * opt[OPT_VAULT_PASSWORD_FILE].n, sizeof(*argv));
		int argc = 0;
		argv[argc++] = xstrdup("ansible-playbook");
		for (size_t i = 0; files && i < files->n; i++) {
			argv[argc++] = xstrdup("-i");
			argv[argc++] = xstrdup(files->list[i]);
		}
		if (!files) {
			argv[argc++] = xstrdup("-i");
			argv[argc++] = inv;
		}
		if (local) {
			argv[argc++] = xstrdup("-c");
			argv[argc++] = xstrdup("local");
		}
		if (key) {
			argv[argc++] = xstrdup("--private-key");
			argv[argc++] = xstrdup(key);
		}
		argv[argc++] = xstrdup("-e");
		argv[argc++] = ev;
		if (check)
			argv[argc++] = xstrdup("--check");
		if (diff)
			argv[argc++] = xstrdup("--diff");
		if (limit) {
			argv[argc++] = xstrdup("--limit");
			argv[argc++] = xstrdup(limit);
		}
		if (start_at) {
			argv[argc++] = xstrdup("--start-at-task");
			argv[argc++] = xstrdup(start_at);
		}
		/* the same vault sources (paths and ids: no password in argv) */
		for (size_t i = 0; i < opt[OPT_VAULT_ID].n; i++) {
			argv[argc++] = xstrdup("--vault-id");
			argv[argc++] = xstrdup(opt[OPT_VAULT_ID].list[i]);
		}
		for (size_t i = 0; i < opt[OPT_VAULT_PASSWORD_FILE].n; i++) {
			argv[argc++] = xstrdup("--vault-password-file");
			argv[argc++] = xstrdup(opt[OPT_VAULT_PASSWORD_FILE].list[i]);
		}
		if (opt[OPT_ASK_VAULT_PASS].set)
			argv[argc++] = xstrdup("--ask-vault-pass");
		argv[argc++] = xstrdup(playbook);
		argv[argc] = NULL;
		execvp(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	free(ev);
	free(inv);
	if (pid < 0 || !WIFEXITED(st))
		return IMC_EXIT_SOFTWARE;
	switch (WEXITSTATUS(st)) {
	case 0: return IMC_EXIT_OK;
	case 2: return IMC_EXIT_FAILED;
	case 4: return IMC_EXIT_UNAVAILABLE;
	default: return WEXITSTATUS(st) == 127 ? IMC_EXIT_SOFTWARE : IMC_EXIT_FAILED;
	}
}

/* The static check's list of the tasks Ansible will run (on stderr, as
 * Ansible's warnings): each with where it is and why. */
static void report_fallbacks(const struct task_playbook *pb)
{
	size_t i;
	json_t *e;
	json_array_foreach(pb->fallbacks, i, e)
		fprintf(stderr, "%s:%d: fallback: task '%s' runs under Ansible (module '%s': %s)\n",
			json_string_value(json_object_get(e, "file")),
			(int)json_integer_value(json_object_get(e, "line")),
			json_string_value(json_object_get(e, "task")),
			json_string_value(json_object_get(e, "module")),
			json_string_value(json_object_get(e, "why")));
}

/* Whether --limit leaves a host of the inventory to run */
static bool limit_matches(struct task_run *run)
{
	for (size_t i = 0; i < run->nhosts; i++)
		if (inventory_selected(run, run->subset, run->hosts[i]->name))
			return true;
	return false;
}

struct pin_ctx {
	const char *file;
	const char *name;
};

/* "NAME TYPE BASE64" lines: the pinned key of name, or NULL */
static char *pin_lookup(const char *file, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	if (strbuf_read_file(&sb, file) == 0) {
		size_t nl = strlen(name);
		for (const char *p = sb.buf; p && *p;) {
			if (!strncmp(p, name, nl) && p[nl] == ' ') {
				size_t n = strcspn(p + nl + 1, "\n");
				r = xstrndup(p + nl + 1, n);
			}
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
	strbuf_release(&sb);
	return r;
}

static pthread_mutex_t pin_file_lock = PTHREAD_MUTEX_INITIALIZER;

static void pin_store(void *opaque, const char *key)
{
	struct pin_ctx *pc = opaque;
	pthread_mutex_lock(&pin_file_lock);
	FILE *fp = fopen(pc->file, "a");
	if (fp) {
		fprintf(fp, "%s %s\n", pc->name, key);
		fclose(fp);
	}
	pthread_mutex_unlock(&pin_file_lock);
}

struct target_pin {
	struct state_store *st;
	char *id;
	int num;
	pthread_mutex_t *lock;
};

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;

static void pins_free(struct target_pin *pins, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(pins[i].id);
	free(pins);
}

static void target_pin(void *opaque, const char *key)
{
	struct target_pin *tp = opaque;
	struct diag d = DIAG_INIT;
	pthread_mutex_lock(tp->lock);
	state_vm_set_hostkey(tp->st, tp->id, tp->num, key, &d);
	pthread_mutex_unlock(tp->lock);
	diag_release(&d);
}

/* "TYPE BASE64" of a stored "TYPE BASE64 [comment]" key, or NULL */
static char *key_words(const char *k)
{
	if (!k || !*k)
		return NULL;
	size_t a = strcspn(k, " ");
	const char *b = k + a + strspn(k + a, " ");
	size_t bl = strcspn(b, " \n");
	return bl ? xasprintf("%.*s %.*s", (int)a, k, (int)bl, b) : NULL;
}

/* The VMs of ID[:VM[,VM]] as SSH hosts of run, named by their hostname and
 * grouped by system, as IM's inventory does. *pins (one per VM, *npins)
 * must outlive the connections, which pin host keys through them. */
static int target_hosts(struct state_store *st, const char *target, struct task_run *run,
			json_t *all, json_t *groups, struct target_pin **pins, size_t *npins,
			struct diag *d)
{
	char *id = xstrdup(target);
	char *vmlist = strchr(id, ':');
	if (vmlist)
		*vmlist++ = 0;
	struct state_infra in = { 0 };
	struct state_vm *vms = NULL;
	size_t nvm = 0, nwant = 0;
	int *want = NULL; /* the VM numbers asked for (none: every VM) */
	int rc = -1;
	if (vmlist) {
		char *save = NULL;
		want = xcalloc(strlen(vmlist) / 2 + 1, sizeof(*want));
		for (char *t = strtok_r(vmlist, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (cli_vm_arg(t, &want[nwant++], d) < 0)
				goto out;
		if (!nwant) {
			diag_error(d, IMC_EXIT_USAGE, NULL, "--target: no VM number after ':'");
			goto out;
		}
	}
	if (cli_lookup(st, id, &in, d) < 0 || state_vm_list(st, in.id, &vms, &nvm, d) < 0)
		goto out;
	for (size_t k = 0; k < nwant; k++) {
		bool found = false;
		for (size_t i = 0; i < nvm; i++)
			found |= vms[i].num == want[k];
		if (!found) {
			diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' has no VM %d", in.id,
				   want[k]);
			goto out;
		}
	}
	char *key = deploy_key_path(state_home(st), in.id);
	run->hosts = xcalloc(nvm + 1, sizeof(*run->hosts));
	*pins = xcalloc(nvm + 1, sizeof(**pins));
	for (size_t i = 0; i < nvm; i++) {
		struct state_vm *vm = &vms[i];
		bool wanted = !nwant;
		for (size_t k = 0; k < nwant; k++)
			wanted |= want[k] == vm->num;
		if (!wanted)
			continue;
		const char *addr = vm->public_ip ? vm->public_ip : vm->private_ip;
		json_t *spec = vm->spec ? json_loads(vm->spec, 0, NULL) : NULL;
		json_t *data = vm->data ? json_loads(vm->data, 0, NULL) : NULL;
		const char *hn = json_string_value(json_object_get(spec, "hostname"));
		char *name = hn ? xstrdup(hn) : xasprintf("%s-%d", vm->system ? vm->system : "vm", vm->num);
		const char *duser = json_string_value(json_object_get(data, "user"));
		char *pinned = key_words(vm->hostkey);
		if (!pinned)
			pinned = key_words(json_string_value(json_object_get(data, "host_key")));
		struct target_pin *tp = &(*pins)[(*npins)++];
		tp->st = st;
		tp->id = xstrdup(in.id);
		tp->num = vm->num;
		tp->lock = &pin_lock;
		struct task_conn *conn = NULL;
		if (addr) {
			struct conn_ssh_opts o = { .host = addr, .port = vm->ssh_port > 0 ? vm->ssh_port : 22,
						   .user = duser ? duser : vm->user ? vm->user : "root",
						   .key_path = key, .pinned_key = pinned, .timeout = 30,
						   .on_hostkey = target_pin, .opaque = tp };
			conn = conn_ssh_open(&o, d);
		} else
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "VM %d has no address", vm->num);
		struct task_host *h = task_host_new(name, conn, NULL);
		h->index = (int)run->nhosts;
		json_object_set_new(h->vars, "IM_NODE_NUM", json_integer(vm->num));
		json_object_set_new(h->vars, "IM_NODE_HOSTNAME", json_string(name));
		if (addr)
			json_object_set_new(h->vars, "ansible_host", json_string(addr));
		if (vm->private_ip)
			json_object_set_new(h->vars, "IM_NODE_PRIVATE_IP", json_string(vm->private_ip));
		if (vm->public_ip)
			json_object_set_new(h->vars, "IM_NODE_PUBLIC_IP", json_string(vm->public_ip));
		if (!conn) {
			fprintf(stderr, "imc play: %s: %s\n", name, diag_first_message(d));
			h->unreachable = h->failed = true;
			h->st.unreachable++;
		}
		diag_release(d);
		diag_init(d);
		run->hosts[run->nhosts++] = h;
		json_array_append_new(all, json_string(name));
		if (vm->system)
			group_add(groups, vm->system, name);
		free(name);
		free(pinned);
		json_decref(spec);
		json_decref(data);
	}
	free(key);
	if (!run->nhosts) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "no VM of infrastructure '%s' matches '%s'", in.id,
			   target);
		goto out;
	}
	rc = 0;
out:
	free(want);
	state_vm_list_free(vms, nvm);
	state_infra_release(&in);
	free(id);
	return rc;
}

struct ssh_spec {
	char *name, *user, *addr, *pinned;
	const char *key;
	char *key_own;         /* key, when it came from the inventory */
	struct task_host *h;   /* -i FILE: the host it connects */
	/* one try, as Ansible's ssh connection makes (an inventory host);
	 * -H hosts are retried for 30 s, for VMs that are still booting */
	bool once;
	int port;
	struct pin_ctx pc;
	struct task_conn *conn;
	struct diag d;
};

static void *connect_spec(void *arg)
{
	struct ssh_spec *s = arg;
	struct conn_ssh_opts o = { .host = s->addr, .port = s->port, .user = s->user,
				   .key_path = s->key, .timeout = s->once ? 0 : 30, .pinned_key = s->pinned,
				   .on_hostkey = s->pc.file ? pin_store : NULL, .opaque = &s->pc };
	s->conn = conn_ssh_open(&o, &s->d);
	return NULL;
}

static void specs_free(struct ssh_spec *sp, size_t n)
{
	if (!sp)
		return;
	for (size_t i = 0; i < n; i++) {
		free(sp[i].name);
		free(sp[i].user);
		free(sp[i].addr);
		free(sp[i].pinned);
		free(sp[i].key_own);
		diag_release(&sp[i].d);
	}
	free(sp);
}

/* Connects every spec at once. */
static void connect_all(struct ssh_spec *sp, size_t n)
{
	pthread_t *th = xcalloc(n + 1, sizeof(*th));
	bool *started = xcalloc(n + 1, sizeof(*started));
	for (size_t i = 0; i < n; i++)
		started[i] = pthread_create(&th[i], NULL, connect_spec, &sp[i]) == 0;
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			connect_spec(&sp[i]);
	}
	free(th);
	free(started);
}

/* Whether an -i names an existing file or directory: the inventory is
 * then read as Ansible reads it; otherwise -i lists local host names, as
 * it always did. */
static bool inventory_files(const struct cmd_value *o)
{
	struct stat st;
	for (size_t i = 0; i < o->n; i++)
		if (stat(o->list[i], &st) == 0)
			return true;
	return false;
}

/* Sets run->inv_vars from the inventory files' group vars (file, may be
 * NULL), the group_vars/ and host_vars/ beside each inventory source
 * (dirs, may be NULL) and beside the playbook; left NULL when all are
 * empty. */
static int inventory_layers(struct task_run *run, json_t *file, json_t *dirs, const char *pbdir,
			    struct diag *d)
{
	json_t *layers = json_array();
	bool any = false;
	size_t n = json_array_size(dirs);
	for (size_t i = 0; i <= n; i++) {
		const char *dir = i < n ? json_string_value(json_array_get(dirs, i)) : pbdir;
		json_t *l = inventory_vars_dirs(dir, d);
		if (!l) {
			json_decref(layers);
			return -1;
		}
		any |= json_object_size(json_object_get(l, "group_vars")) ||
		       json_object_size(json_object_get(l, "host_vars"));
		json_array_append_new(layers, l);
	}
	const char *g;
	json_t *v;
	json_object_foreach(file, g, v)
		any |= json_object_size(v) > 0;
	if (any)
		run->inv_vars = json_pack("{s:o, s:o}", "file", file ? json_incref(file) : json_object(),
					  "dirs", layers);
	else
		json_decref(layers);
	return 0;
}

/* Whether a play of pb may run on host name (a templated pattern may
 * select any host). */
static bool host_targeted(struct task_run *run, const struct task_playbook *pb, const char *name)
{
	if (run->subset && !inventory_selected(run, run->subset, name))
		return false;
	for (size_t i = 0; i < pb->nplays; i++) {
		const char *p = pb->plays[i]->hosts;
		if (strstr(p, "{{") || strstr(p, "{%") || inventory_selected(run, p, name))
			return true;
	}
	return false;
}

/* A connection variable as a string: NULL when unset; ints as numbers. */
static char *conn_var(json_t *vars, const char *a, const char *b)
{
	json_t *v = json_object_get(vars, a);
	if (!v && b)
		v = json_object_get(vars, b);
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	return NULL;
}

/* The SSH spec of inventory host h from its variables vars, as Ansible's
 * ssh connection takes them: ansible_host, ansible_port, ansible_user
 * (else the user running imc), ansible_ssh_private_key_file (else --key).
 * What imc's SSH connection cannot do as asked is an error naming it. */
static int ssh_spec_of(struct ssh_spec *sp, struct task_host *h, json_t *vars, const char *key,
		       const char *known_hosts, struct diag *d)
{
	static const char *const unsupported[] = {
		"ansible_password", "ansible_ssh_pass", "ansible_ssh_password", "ansible_ssh_common_args",
		"ansible_ssh_extra_args", "ansible_ssh_args", "ansible_ssh_executable",
		"ansible_ssh_transfer_method", "ansible_sftp_extra_args", "ansible_scp_extra_args", NULL };
	for (const char *const *u = unsupported; *u; u++)
		if (json_object_get(vars, *u)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "host '%s': the variable '%s' is not supported by imc's SSH connection",
				   h->name, *u);
			return -1;
		}
	char *addr = conn_var(vars, "ansible_host", "ansible_ssh_host");
	char *port = conn_var(vars, "ansible_port", "ansible_ssh_port");
	char *user = conn_var(vars, "ansible_user", "ansible_ssh_user");
	char *kf = conn_var(vars, "ansible_ssh_private_key_file", "ansible_private_key_file");
	int rc = -1;
	const char *vals[] = { addr, port, user, kf };
	for (int i = 0; i < 4; i++)
		if (vals[i] && (strstr(vals[i], "{{") || strstr(vals[i], "{%"))) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "host '%s': a templated connection variable ('%s') is not supported by imc",
				   h->name, vals[i]);
			goto out;
		}
	long pv = 22;
	if (port) {
		char *end;
		pv = strtol(port, &end, 10);
		if (end == port || *end || pv < 1 || pv > 65535) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "host '%s': bad ansible_port '%s'", h->name, port);
			goto out;
		}
	}
	if (!user) {
		struct passwd *pw = getpwuid(getuid());
		user = xstrdup(pw ? pw->pw_name : "root");
	}
	if (!kf && !key) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "host '%s' is reached over SSH: give its key (ansible_ssh_private_key_file or --key)",
			   h->name);
		goto out;
	}
	sp->name = xstrdup(h->name);
	sp->addr = addr ? addr : xstrdup(h->name);
	addr = NULL;
	sp->user = user;
	user = NULL;
	sp->port = (int)pv;
	sp->key_own = kf;
	sp->key = kf ? kf : key;
	kf = NULL;
	sp->pinned = known_hosts ? pin_lookup(known_hosts, sp->name) : NULL;
	sp->pc.file = known_hosts;
	sp->pc.name = sp->name;
	sp->h = h;
	sp->once = true;
	diag_init(&sp->d);
	rc = 0;
out:
	free(addr);
	free(port);
	free(user);
	free(kf);
	return rc;
}

/* -i FILE: the hosts, groups and variables of the inventory sources into
 * run, each host that a play may run on connected as its variables say
 * (ansible_connection local: this machine; ssh: imc's SSH connection;
 * none: -c, else ssh, as Ansible's default); the SSH specs into *spo
 * (freed by the caller after the run: the connections pin through them). */
static int inventory_file_hosts(struct cmd_args *a, struct task_run *run, struct task_playbook *pb,
				const char *connection, const char *key, const char *known_hosts,
				json_t *extra, struct ssh_spec **spo, size_t *nspo, struct diag *d)
{
	const struct cmd_value *opt = a->opt;
	struct inv_model m;
	inv_model_init(&m);
	json_t *groups = NULL, *order = NULL, *parents = NULL, *file = json_object();
	struct ssh_spec *sp = NULL;
	size_t nsp = 0;
	int rc = -1;
	for (size_t i = 0; i < opt[OPT_INVENTORY_HOST].n; i++)
		if (inventory_load(&m, opt[OPT_INVENTORY_HOST].list[i], d) < 0)
			goto out;
	for (size_t i = 0; i < opt[OPT_GROUP].n; i++) {
		const char *arg = opt[OPT_GROUP].list[i], *eq = strchr(arg, '=');
		char *g = xstrndup(arg, (size_t)(eq - arg));
		char *list = xstrdup(eq + 1), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
			inv_add_host(&m, t, g, -1);
		free(g);
		free(list);
	}
	size_t i;
	json_t *e;
	json_array_foreach(m.warnings, i, e)
		fprintf(stderr, "[WARNING]: %s\n", json_string_value(e));
	inventory_model_groups(&m, &groups, &order, &parents);
	json_decref(run->groups);
	run->groups = groups;
	json_decref(run->group_parents);
	run->group_parents = parents;
	const char *gname;
	json_t *gv;
	json_object_foreach(m.groups, gname, gv)
		json_object_set(file, gname, json_object_get(gv, "vars"));
	json_t *prio = inventory_group_priorities(file, d);
	if (!prio)
		goto out;
	if (inventory_layers(run, file, m.dirs, pb->dir, d) < 0) {
		json_decref(prio);
		goto out;
	}
	if (run->inv_vars)
		json_object_set(run->inv_vars, "prio", prio);
	json_decref(prio);
	/* Ansible's localhost is this machine, whatever the inventory's
	 * hosts are reached by */
	run->controller_local = true;
	run->hosts = xcalloc(json_array_size(order) + 1, sizeof(*run->hosts));
	sp = xcalloc(json_array_size(order) + 1, sizeof(*sp));
	json_array_foreach(order, i, e) {
		struct task_host *h = task_host_new(json_string_value(e), NULL, NULL);
		json_decref(h->vars);
		h->vars = json_deep_copy(json_object_get(m.hosts, h->name));
		h->index = (int)run->nhosts;
		run->hosts[run->nhosts++] = h;
	}
	for (i = 0; i < run->nhosts; i++) {
		struct task_host *h = run->hosts[i];
		if (!host_targeted(run, pb, h->name))
			continue;
		json_t *v = inventory_vars(run, h);
		json_object_update(v, extra);
		const char *c = json_string_value(json_object_get(v, "ansible_connection"));
		if (!c)
			c = connection ? connection : "ssh";
		if (!strcmp(c, "local") || !strcmp(c, "ansible.builtin.local")) {
			h->conn = conn_local_open();
			if (!json_object_get(v, "ansible_connection"))
				json_object_set_new(h->vars, "ansible_connection", json_string("local"));
		} else if (!strcmp(c, "ssh") || !strcmp(c, "smart") || !strcmp(c, "paramiko") ||
			   !strcmp(c, "ansible.builtin.ssh") || !strcmp(c, "ansible.builtin.paramiko_ssh") ||
			   !strcmp(c, "paramiko_ssh")) {
			if (ssh_spec_of(&sp[nsp], h, v, key, known_hosts, d) < 0) {
				json_decref(v);
				goto out;
			}
			nsp++;
		} else {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "host '%s': connection '%s' is not supported by imc", h->name, c);
			json_decref(v);
			goto out;
		}
		json_decref(v);
	}
	connect_all(sp, nsp);
	for (i = 0; i < nsp; i++) {
		struct task_host *h = sp[i].h;
		h->conn = sp[i].conn;
		if (!h->conn) {
			h->unreachable = h->failed = true;
			h->st.unreachable++;
			fprintf(stderr, "imc play: %s: %s\n", h->name, diag_first_message(&sp[i].d));
		}
	}
	rc = 0;
out:
	*spo = sp;
	*nspo = nsp;
	json_decref(order);
	json_decref(file);
	inv_model_release(&m);
	return rc;
}

static int run_play(struct cmd_args *a)
{
	struct imc_ctx *ctx = a->ctx;
	const struct cmd_value *opt = a->opt;
	const char *connection = opt[OPT_CONNECTION].val, *key = opt[OPT_KEY].val;
	char *inv_host = NULL; /* -i NAME[,NAME]: the names joined */
	bool inv_files = inventory_files(&opt[OPT_INVENTORY_HOST]);
	const char *results = opt[OPT_RESULTS].val, *known_hosts = opt[OPT_KNOWN_HOSTS].val;
	const char *target = opt[OPT_TARGET].val;
	bool no_fallback = opt[OPT_NO_FALLBACK].set, syntax_check = opt[OPT_SYNTAX_CHECK].set;
	bool json_out = ctx->json || opt[OPT_JSON].set, quiet = opt[OPT_QUIET].set;
	struct ssh_spec *pinctx_keep = NULL;
	size_t pinctx_n = 0;
	struct target_pin *pins = NULL; /* --target: the connections' pin contexts */
	size_t npins = 0;
	struct state_store *st = NULL;
	int forks = 16;
	struct diag d = DIAG_INIT;
	json_t *extra = json_object();
	json_t *ssh_hosts = json_array();
	json_t *groups = json_object();
	json_t *only_tags = NULL, *skip_tags = NULL;
	char *tags_csv = NULL, *skip_csv = NULL;
	int rc = IMC_EXIT_OK;
	struct task_playbook *pb = NULL;
	struct task_run *run = NULL;
	struct task_out out;
	struct vault_keyring vault = { 0 };
	struct play_settings settings = { 0 };
	out_init(&out);
	/* Ansible's settings before anything, as they may name the vault's
	 * secrets; one that imc cannot honour is acted on where the playbook
	 * is loaded. Under inventory files each host names its connection:
	 * not known here, so taken as remote. */
	struct diag settings_d = DIAG_INIT;
	bool local = connection ? !strcmp(connection, "local")
				: !inv_files && !opt[OPT_HOST].n && !key && !target;
	int settings_rc = opt[OPT_LIST_MODULES].set ? 0 : play_settings_read(&settings, local, &settings_d);
	if (settings_rc == 0)
		diag_print_ansible(&settings_d, stderr);
	/* first, as ansible-playbook: -e @FILE may be encrypted too */
	if (!opt[OPT_LIST_MODULES].set && vault_setup(opt, &vault, &d) < 0) {
		rc = play_report(&d);
		goto out;
	}
	for (size_t i = 0; i < opt[OPT_EXTRA_VARS].n; i++)
		if (add_extra(extra, opt[OPT_EXTRA_VARS].list[i], &d) < 0) {
			rc = play_report(&d);
			goto out;
		}
	for (size_t i = 0; i < opt[OPT_HOST].n; i++)
		json_array_append_new(ssh_hosts, json_string(opt[OPT_HOST].list[i]));
	for (size_t i = 0; i < opt[OPT_GROUP].n; i++) {
		const char *arg = opt[OPT_GROUP].list[i], *eq = strchr(arg, '=');
		if (!eq) {
			rc = cmd_usage_error(a->cmd, "--group wants GROUP=NAME[,NAME]");
			goto out;
		}
		char *g = xstrndup(arg, (size_t)(eq - arg));
		char *list = xstrdup(eq + 1), *save = NULL;
		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
			group_add(groups, g, t);
		free(g);
		free(list);
	}
	if (opt[OPT_FORKS].set) {
		const char *arg = opt[OPT_FORKS].val;
		char *end;
		long v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 1 || v > 1024) {
			rc = cmd_usage_error(a->cmd, "--forks wants a number from 1 to 1024, not '%s'", arg);
			goto out;
		}
		forks = (int)v;
	}
	if (opt[OPT_LIST_MODULES].set) {
		for (const struct task_module *const *m = task_modules; *m; m++)
			printf("%s\n", (*m)->name);
		goto out;
	}
	if (a->noperands != 1) {
		rc = cmd_usage_error(a->cmd, "one PLAYBOOK file is required");
		goto out;
	}
	const char *playbook = a->operands[0];
	only_tags = tag_list(&opt[OPT_TAGS], &tags_csv);
	skip_tags = tag_list(&opt[OPT_SKIP_TAGS], &skip_csv);
	/* --no-fallback is IMC_NO_FALLBACK for this run: the loader and the
	 * executor then hand nothing to Ansible */
	if (no_fallback)
		setenv("IMC_NO_FALLBACK", "1", 1);
	if (syntax_check) {
		/* as ansible-playbook --syntax-check: load, report, run nothing */
		pb = play_load_file(playbook, NULL, extra, &d);
		if (!pb) {
			rc = play_report(&d);
			goto out;
		}
		if (!ctx->json)
			printf("\nplaybook: %s\n", playbook);
		report_fallbacks(pb);
		goto out;
	}
	if (connection && strcmp(connection, "local") && strcmp(connection, "ssh")) {
		rc = cmd_usage_error(a->cmd, "--connection must be 'local' or 'ssh'");
		goto out;
	}
	{
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < opt[OPT_INVENTORY_HOST].n; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", opt[OPT_INVENTORY_HOST].list[i]);
		inv_host = sb.len ? strbuf_detach(&sb) : xstrdup("localhost");
		strbuf_release(&sb);
	}
	if (inv_files && (json_array_size(ssh_hosts) || target)) {
		rc = cmd_usage_error(a->cmd, "an inventory file names the hosts: not with --host or --target");
		goto out;
	}
	/* with an inventory file, each host's variables choose its
	 * connection; -c (or ssh) is for those that name none */
	const char *inv_connection = connection;
	/* Hosts, a key or a target ask for remote machines: running the play
	 * here instead would change the user's own machine, so they imply SSH
	 * and contradict an explicit --connection local. */
	bool remote = json_array_size(ssh_hosts) || key || target;
	if (inv_files) {
		/* checked per host */
	} else if (connection && !strcmp(connection, "local") && remote) {
		rc = cmd_usage_error(a->cmd,
				     "--host, --key and --target run the play over SSH, not with --connection local");
		goto out;
	}
	if (!connection)
		connection = remote && !inv_files ? "ssh" : "local";
	if (target && (json_array_size(ssh_hosts) || key)) {
		rc = cmd_usage_error(a->cmd, "--target takes its hosts and key from the infrastructure");
		goto out;
	}
	if (!target && !inv_files && !strcmp(connection, "ssh") && (!json_array_size(ssh_hosts) || !key)) {
		rc = cmd_usage_error(a->cmd, "--connection ssh needs -H NAME=USER@ADDR[:PORT] and --key");
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	log_init(ctx->verbose);
	/* the settings ansible-playbook would run it under (read first), then
	 * the playbook: either may be what only Ansible can run */
	if (settings_rc == 0)
		pb = play_load_file(playbook, NULL, extra, &d);
	else
		diag_move(&d, &settings_d);
	if (!pb) {
		if (!no_fallback && (inv_files || !strcmp(connection, "local")) && play_error_unsupported(&d) &&
		    provision_have_ansible()) {
			fprintf(stderr, "imc play: %s; running it under ansible-playbook\n",
				diag_first_message(&d));
			/* the whole playbook's run gets the tags (only it: a
			 * task handed to Ansible alone must not be filtered) */
			if (tags_csv)
				setenv("ANSIBLE_RUN_TAGS", tags_csv, 1);
			if (skip_csv)
				setenv("ANSIBLE_SKIP_TAGS", skip_csv, 1);
			/* and -v and --force-handlers, through the settings
			 * ansible-playbook reads them from */
			if (opt[OPT_VERBOSE].n) {
				char vn[24];
				snprintf(vn, sizeof(vn), "%zu", opt[OPT_VERBOSE].n);
				setenv("ANSIBLE_VERBOSITY", vn, 1);
			}
			if (opt[OPT_FORCE_HANDLERS].set)
				setenv("ANSIBLE_FORCE_HANDLERS", "1", 1);
			rc = run_ansible(playbook, inv_host, inv_files ? &opt[OPT_INVENTORY_HOST] : NULL,
					 inv_files ? inv_connection && !strcmp(inv_connection, "local") : true,
					 key, extra, results, quiet, opt[OPT_CHECK].set,
					 opt[OPT_DIFF].set, opt[OPT_LIMIT].val, opt[OPT_START_AT_TASK].val, opt);
			goto out;
		}
		rc = play_report(&d);
		goto out;
	}
	run = task_run_new();
	run->only_tags = json_incref(only_tags);
	run->skip_tags = json_incref(skip_tags);
	run->forks = forks > 0 ? forks : 1;
	run->check = opt[OPT_CHECK].set;
	run->diff = opt[OPT_DIFF].set;
	run->force_handlers = opt[OPT_FORCE_HANDLERS].set || settings.force_handlers;
	run->free = settings.free;
	run->missing_handler_warns = settings.missing_handler_warns;
	run->become_same_user = settings.become_same_user;
	run->facts_not_vars = settings.facts_not_vars;
	json_decref(run->extra_vars);
	run->extra_vars = json_incref(extra);
	out.fp = quiet || json_out ? NULL : stdout;
	out.verbosity = (int)opt[OPT_VERBOSE].n > settings.verbosity ? (int)opt[OPT_VERBOSE].n : settings.verbosity;
	if (results || json_out)
		out.results = json_pack("{s:[]}", "plays");
	run->out = &out;
	json_t *all = json_array();
	run->subset = opt[OPT_LIMIT].val;
	if (inv_files) {
		json_decref(all);
		all = NULL;
		if (inventory_file_hosts(a, run, pb, inv_connection, key, known_hosts, extra, &pinctx_keep,
					 &pinctx_n, &d) < 0) {
			rc = play_report(&d);
			goto out;
		}
	} else if (target) {
		st = cli_store(ctx, &d);
		if (!st || target_hosts(st, target, run, all, groups, &pins, &npins, &d) < 0) {
			json_decref(all);
			rc = play_report(&d);
			goto out;
		}
	} else if (!strcmp(connection, "local")) {
		/* -i a,b,c: several inventory hosts, each reached by the local
		 * connection (as ansible-playbook -i a,b,c -c local) */
		char *names = xstrdup(inv_host), *save = NULL;
		run->hosts = xcalloc(strlen(inv_host) + 1, sizeof(*run->hosts));
		for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
			bool dup = false;
			for (size_t i = 0; i < run->nhosts; i++)
				dup |= !strcmp(run->hosts[i]->name, n);
			if (dup)
				continue;
			struct task_host *h = task_host_new(n, conn_local_open(), NULL);
			h->index = (int)run->nhosts;
			json_object_set_new(h->vars, "ansible_connection", json_string("local"));
			/* no -i: Ansible's implicit localhost, which names the
			 * controller's Python as its interpreter */
			if (!opt[OPT_INVENTORY_HOST].n)
				json_object_set_new(h->vars, "ansible_python_interpreter", json_string(which_python()));
			run->hosts[run->nhosts++] = h;
			json_array_append_new(all, json_string(n));
		}
		free(names);
		if (!run->nhosts) {
			json_decref(all);
			rc = cmd_usage_error(a->cmd, "--inventory-host needs a host name");
			goto out;
		}
	} else {
		size_t nspec = json_array_size(ssh_hosts);
		run->hosts = xcalloc(nspec, sizeof(*run->hosts));
		struct ssh_spec *sp = xcalloc(nspec, sizeof(*sp));
		size_t i;
		json_t *e;
		json_array_foreach(ssh_hosts, i, e) {
			const char *spec = json_string_value(e);
			const char *eq = strchr(spec, '='), *at = eq ? strchr(eq, '@') : NULL;
			if (!eq || !at) {
				rc = cmd_usage_error(a->cmd, "bad --host '%s' (want NAME=USER@ADDR[:PORT])", spec);
				json_decref(all);
				specs_free(sp, i);
				goto out;
			}
			sp[i].name = xstrndup(spec, (size_t)(eq - spec));
			sp[i].user = xstrndup(eq + 1, (size_t)(at - eq - 1));
			sp[i].addr = xstrdup(at + 1);
			sp[i].port = 22;
			char *colon = strrchr(sp[i].addr, ':');
			if (colon) {
				char *end;
				long port = strtol(colon + 1, &end, 10);
				if (end == colon + 1 || *end || port < 1 || port > 65535) {
					rc = cmd_usage_error(a->cmd, "bad port in --host '%s'", spec);
					json_decref(all);
					specs_free(sp, i + 1);
					goto out;
				}
				*colon = 0;
				sp[i].port = (int)port;
			}
			sp[i].pinned = known_hosts ? pin_lookup(known_hosts, sp[i].name) : NULL;
			sp[i].pc.file = known_hosts;
			sp[i].pc.name = sp[i].name;
			sp[i].key = key;
			diag_init(&sp[i].d);
		}
		connect_all(sp, nspec);
		for (i = 0; i < nspec; i++) {
			struct task_host *h = task_host_new(sp[i].name, sp[i].conn, NULL);
			h->index = (int)i;
			json_object_set_new(h->vars, "ansible_host", json_string(sp[i].addr));
			json_object_set_new(h->vars, "ansible_port", json_integer(sp[i].port));
			json_object_set_new(h->vars, "ansible_user", json_string(sp[i].user));
			run->hosts[run->nhosts++] = h;
			json_array_append_new(all, json_string(sp[i].name));
			if (!sp[i].conn) {
				h->unreachable = true;
				h->failed = true;
				h->st.unreachable++;
				fprintf(stderr, "imc play: %s: %s\n", sp[i].name, diag_first_message(&sp[i].d));
			}
		}
		/* pin contexts stay referenced by the connections: freed at exit */
		pinctx_keep = sp;
		pinctx_n = nspec;
	}
	if (!inv_files) {
		json_object_set_new(groups, "all", all);
		json_object_set_new(groups, "ungrouped", json_array());
		json_decref(run->groups);
		run->groups = json_incref(groups);
		/* group_vars/ and host_vars/ beside the playbook */
		if (inventory_layers(run, NULL, NULL, pb->dir, &d) < 0) {
			rc = play_report(&d);
			goto out;
		}
	}
	unsigned list = (opt[OPT_LIST_HOSTS].set ? EXEC_LIST_HOSTS : 0) |
			(opt[OPT_LIST_TASKS].set ? EXEC_LIST_TASKS : 0) |
			(opt[OPT_LIST_TAGS].set ? EXEC_LIST_TAGS : 0);
	if (run->subset && !limit_matches(run)) {
		/* Ansible's words; nothing ran, so no host failed: a usage error */
		fprintf(stderr, "[WARNING]: Could not match supplied host pattern, ignoring: %s\n"
			"ERROR! Specified inventory, host pattern and/or --limit leaves us with no hosts to target.\n",
			run->subset);
		rc = IMC_EXIT_USAGE;
		goto out;
	}
	if (list) {
		/* as ansible-playbook: the listing instead of a run */
		if (exec_list_playbook(run, pb, playbook, list, stdout, &d) < 0)
			rc = play_report(&d);
		goto out;
	}
	run->start_at = opt[OPT_START_AT_TASK].val;
	if (!quiet && !json_out)
		report_fallbacks(pb);
	int r = task_run_playbook(run, pb, &d);
	if (run->start_at)
		fprintf(stderr, " [ERROR]: No matching task \"%s\" found. Note: --start-at-task can only\n"
			"follow static includes.\n", run->start_at);
	if (r < 0)
		rc = play_report(&d);
	else if (r > 0) {
		rc = IMC_EXIT_FAILED;
		for (size_t i = 0; i < run->nhosts; i++)
			if (run->hosts[i]->unreachable)
				rc = IMC_EXIT_UNAVAILABLE;
	}
	if (json_out) {
		json_object_set_new(out.results, "format", json_integer(IMC_JSON_FORMAT));
		if (json_dumpf(out.results, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
		    fputc('\n', stdout) == EOF)
			rc = IMC_EXIT_IOERR;
	}
	if (results) {
		FILE *fp = fopen(results, "w");
		if (!fp || json_dumpf(out.results, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0 ||
		    fclose(fp) != 0) {
			fprintf(stderr, "imc play: cannot write '%s'\n", results);
			rc = IMC_EXIT_IOERR;
		}
	}
	if (fflush(stdout) != 0 && rc == IMC_EXIT_OK)
		rc = IMC_EXIT_IOERR;
out:
	free(inv_host);
	free(tags_csv);
	free(skip_csv);
	json_decref(only_tags);
	json_decref(skip_tags);
	task_run_free(run);
	pins_free(pins, npins);
	specs_free(pinctx_keep, pinctx_n);
	if (st)
		state_close(st);
	play_free(pb);
	out_release(&out);
	json_decref(extra);
	json_decref(ssh_hosts);
	json_decref(groups);
	diag_release(&d);
	diag_release(&settings_d);
	vault_keyring_set_default(NULL);
	vault_keyring_release(&vault);
	return rc;
}

const struct imc_cmd cmd_play_entry = {
	.name = "play",
	.synopsis = "[OPTIONS] PLAYBOOK --target ID[:VM,...] | -H NAME=USER@ADDR[:PORT] --key FILE"
		    " | --connection local",
	.summary = "run an Ansible-style play list on VMs",
	.help = "Options may come before or after PLAYBOOK, as with ansible-playbook. A task\n"
		"whose module (or a module argument) imc does not implement is run, that task\n"
		"on that host, by Ansible when it is installed (over the same connection), and\n"
		"listed on stderr before the play starts; a playbook using a keyword, filter or\n"
		"lookup outside imc's subset, or an Ansible setting (ANSIBLE_* variable or\n"
		"ansible.cfg) that imc does not honour, is run whole by ansible-playbook\n"
		"(local connection). Without Ansible, or with --no-fallback, either is refused.\n",
	.options = options, .flags = CMD_ANY_OPERANDS, .run = run_play,
};
