/* cli.c: the CLI kit (see cli.h). One parser reads every command's options
 * from its entry's table, so what `imc CMD -h`, the completion and imc(1)
 * show is what the command accepts; the setup every command used to repeat
 * (open the store, find the infrastructure, recover it, parse the VM) is
 * done here once, by the entry's flags, and so are reporting and release. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "cmd/cli.h"
#include "deploy/deploy.h"
#include "plan/plan.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* --json: every command takes it after its name ("imc getstate --json ID")
 * unless its table gives --json a meaning of its own. */
static const struct cmd_option json_option = {
	"json", 0, CMD_OPT_FLAG, NULL, "print one JSON document on stdout",
};

#define OPT_JSON (-2)
#define OPT_NONE (-1)
#define OPT_AMBIGUOUS (-3)
#define HELP_COLUMN 30

static bool table_has(const struct cmd_option *opts, const char *lng)
{
	for (int k = 0; opts && opts[k].lng; k++)
		if (strcmp(opts[k].lng, lng) == 0)
			return true;
	return false;
}

/* The option --name (len bytes): its index, OPT_JSON, OPT_NONE or
 * OPT_AMBIGUOUS. A unique prefix is enough, as with getopt_long. */
static int match_long(const struct cmd_option *opts, const char *name, size_t len)
{
	int found = OPT_NONE, nfound = 0;
	if (len == 0)
		return OPT_NONE;
	for (int k = 0; opts && opts[k].lng; k++) {
		if (strncmp(opts[k].lng, name, len) != 0)
			continue;
		if (opts[k].lng[len] == '\0')
			return k;
		found = k;
		nfound++;
	}
	if (!table_has(opts, "json") && strncmp("json", name, len) == 0) {
		if (len == 4)
			return OPT_JSON;
		found = OPT_JSON;
		nfound++;
	}
	return nfound > 1 ? OPT_AMBIGUOUS : found;
}

static int match_short(const struct cmd_option *opts, char c)
{
	for (int k = 0; opts && opts[k].lng; k++)
		if (opts[k].shrt && opts[k].shrt == c)
			return k;
	return OPT_NONE;
}

static void set_value(struct cmd_value *v, enum cmd_opt_kind kind, const char *val, int where)
{
	v->set = true;
	v->where = where;
	if (kind == CMD_OPT_LIST) {
		v->list = xreallocarray(v->list, v->n + 1, sizeof(*v->list));
		v->list[v->n++] = val;
	} else if (kind == CMD_OPT_FLAG)
		v->n++; /* how many times: -vvv */
	else
		v->val = val;
}

/* -h or --help anywhere before "--" wins over any error: the help is what
 * someone typing it wants. */
static bool help_requested(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	}
	return false;
}

/* One long option at argv[*i]: 0 or a usage status. */
static int parse_long(struct cmd_args *a, int argc, char **argv, int *i)
{
	const struct imc_cmd *cmd = a->cmd;
	const char *arg = argv[*i], *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int k = match_long(cmd->options, name, len);
	if (k == OPT_AMBIGUOUS)
		return cmd_usage_error(cmd, "option '%s' is ambiguous", arg);
	if (k == OPT_NONE)
		return cmd_usage_error(cmd, "unknown option '%s'", arg);
	const struct cmd_option *o = k == OPT_JSON ? &json_option : &cmd->options[k];
	if (o->kind == CMD_OPT_FLAG) {
		if (eq)
			return cmd_usage_error(cmd, "option '%s' takes no value", arg);
		if (k == OPT_JSON)
			a->ctx->json = true;
		else
			set_value(&a->opt[k], o->kind, NULL, *i);
		return 0;
	}
	const char *v = eq ? eq + 1 : NULL;
	if (!v) {
		if (*i + 1 >= argc)
			return cmd_usage_error(cmd, "option '%s' needs a value", arg);
		v = argv[++*i];
	}
	set_value(&a->opt[k], o->kind, v, *i);
	return 0;
}

/* Short options at argv[*i], bundled as getopt does ("-qd", "-fN"). */
static int parse_short(struct cmd_args *a, int argc, char **argv, int *i)
{
	const struct imc_cmd *cmd = a->cmd;
	for (const char *p = argv[*i] + 1; *p; p++) {
		int k = match_short(cmd->options, *p);
		if (k == OPT_NONE)
			return cmd_usage_error(cmd, "unknown option '-%c'", *p);
		const struct cmd_option *o = &cmd->options[k];
		if (o->kind == CMD_OPT_FLAG) {
			set_value(&a->opt[k], o->kind, NULL, *i);
			continue;
		}
		const char *v = p[1] ? p + 1 : NULL;
		if (!v) {
			if (*i + 1 >= argc)
				return cmd_usage_error(cmd, "option '-%c' needs a value", *p);
			v = argv[++*i];
		}
		set_value(&a->opt[k], o->kind, v, *i);
		break;
	}
	return 0;
}

/* How many operands the synopsis allows, so that the usage line and what
 * the command accepts cannot differ: a WORD is one, a [WORD] one more at
 * most, WORD... or [WORD]... any number more; a bracket that starts with
 * '-' is an option ("[-d]", "[-e KEY=VALUE]...", "[-- COMMAND...]"). */
static void synopsis_operands(const char *syn, int *min, int *max)
{
	*min = *max = 0;
	for (const char *p = syn; *p;) {
		const char *w = p;
		int depth = 0;
		while (*p && (depth > 0 || *p != ' ')) {
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
			p++;
		}
		size_t len = (size_t)(p - w);
		bool optional = w[0] == '[', many = len >= 3 && strncmp(p - 3, "...", 3) == 0;
		while (*p == ' ')
			p++;
		if (len == 0 || (optional && w[1] == '-'))
			continue;
		if (!optional)
			++*min;
		if (*max >= 0)
			*max = many ? -1 : *max + 1;
	}
}

/* Options anywhere among the operands, as ansible-playbook takes them;
 * "--" ends the options (with CMD_REST, what follows is a->rest). */
static int parse(struct cmd_args *a, int argc, char **argv)
{
	const struct imc_cmd *cmd = a->cmd;
	bool only_operands = false;
	for (int k = 0; cmd->options && cmd->options[k].lng; k++)
		if (k >= CMD_MAX_OPTIONS) {
			fprintf(stderr, "imc %s: error: more than %d options (CMD_MAX_OPTIONS)\n", cmd->name,
				CMD_MAX_OPTIONS);
			return IMC_EXIT_SOFTWARE;
		}
	a->operands = xcalloc((size_t)argc + 1, sizeof(*a->operands));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int rc = 0;
		if (!only_operands && strcmp(arg, "--") == 0) {
			if (cmd->flags & CMD_REST) {
				a->rest = argv + i + 1;
				a->nrest = argc - i - 1;
				break;
			}
			only_operands = true;
		} else if (!only_operands && arg[0] == '-' && arg[1] == '-')
			rc = parse_long(a, argc, argv, &i);
		else if (!only_operands && arg[0] == '-' && arg[1])
			rc = parse_short(a, argc, argv, &i);
		else
			a->operands[a->noperands++] = argv[i];
		if (rc)
			return rc;
	}
	if (cmd->flags & CMD_ANY_OPERANDS)
		return 0;
	int min, max;
	synopsis_operands(cmd->synopsis, &min, &max);
	if (max >= 0 && a->noperands > max)
		return cmd_usage_error(cmd, "too many arguments");
	if (a->noperands < min)
		return cmd_usage_error(cmd, "missing argument");
	return 0;
}

/* The shared preamble, by the entry's flags: 0, or -1 with a->d set. The
 * VM number is checked before the lookup, so a typo in it costs no
 * recovery. */
static int setup(struct cmd_args *a)
{
	unsigned f = a->cmd->flags;
	if (!(f & (CMD_NEEDS_STORE | CMD_NEEDS_INFRA)))
		return 0;
	a->st = cli_store(a->ctx, a->d);
	if (!a->st)
		return -1;
	if ((f & CMD_NEEDS_VM) && cli_vm_arg(a->operands[1], &a->vm, a->d) < 0)
		return -1;
	if (!(f & CMD_NEEDS_INFRA))
		return 0;
	if (cli_lookup(a->st, a->operands[0], a->in, a->d) < 0)
		return -1;
	if ((f & CMD_RECOVER) && deploy_recover(a->st, a->in, a->d) < 0)
		return -1;
	if ((f & CMD_REFRESH) && deploy_refresh(a->st, a->in, a->ctx->auth_file, a->d) < 0)
		return -1;
	return 0;
}

static void release(struct cmd_args *a)
{
	for (int k = 0; k < CMD_MAX_OPTIONS; k++)
		free(a->opt[k].list);
	free(a->operands);
	state_infra_release(a->in);
	state_close(a->st);
	diag_release(a->d);
}

int cli_run(struct imc_ctx *ctx, const struct imc_cmd *cmd, int argc, char **argv)
{
	struct state_infra in = { 0 };
	struct diag d = DIAG_INIT;
	struct cmd_args a = { .ctx = ctx, .cmd = cmd, .in = &in, .vm = -1, .d = &d };
	int rc;
	if (help_requested(argc, argv)) {
		cli_print_help(cmd, stdout);
		return IMC_EXIT_OK;
	}
	rc = parse(&a, argc, argv);
	if (!rc && cmd->check)
		rc = cmd->check(&a);
	if (rc)
		goto out;
	bool remote = false;
	if (ctx->server && !diag_has_errors(a.d)) {
		/* --server: the commands IM's API has go there; the others
		 * run here unless they would read the local store */
		rc = client_run(&a, &remote);
		if (!remote && (cmd->flags & (CMD_NEEDS_STORE | CMD_NEEDS_INFRA))) {
			diag_error(a.d, IMC_EXIT_USAGE, NULL, "imc %s cannot run against a server (--server, IMC_SERVER)",
				   cmd->name);
			remote = true;
		}
	}
	if (!remote && !diag_has_errors(a.d) && setup(&a) == 0)
		rc = cmd->run(&a);
	if (d.n && (diag_has_errors(&d) || !(cmd->flags & CMD_ERRORS_ONLY))) {
		int r = cmd_report(ctx, &d);
		if (r)
			rc = r;
	}
out:
	release(&a);
	return rc;
}

int cmd_usage_error(const struct imc_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "imc %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, "usage: imc %s %s\n", cmd->name, cmd->synopsis);
	return IMC_EXIT_USAGE;
}

const struct imc_cmd *cli_find(const struct imc_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->ncommands; i++)
		if (strcmp(ctx->commands[i]->name, name) == 0)
			return ctx->commands[i];
	return NULL;
}

int cmd_report(struct imc_ctx *ctx, struct diag *d)
{
	(void)ctx;
	diag_print(d, stderr);
	if (!diag_has_errors(d))
		return IMC_EXIT_OK;
	return d->code ? (int)d->code : IMC_EXIT_SOFTWARE;
}

struct state_store *cli_store(struct imc_ctx *ctx, struct diag *d)
{
	char *home = state_default_home(ctx->home);
	struct state_store *st = state_open(home, d);
	free(home);
	return st;
}

int cli_lookup(struct state_store *st, const char *arg, struct state_infra *out, struct diag *d)
{
	char *id = NULL;
	memset(out, 0, sizeof(*out));
	int rc = state_infra_resolve(st, arg, &id, d);
	if (rc < 0)
		return -1;
	if (rc == 0)
		rc = state_infra_get(st, id, out, d);
	free(id);
	if (rc < 0)
		return -1;
	if (rc > 0 || out->deleted) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "infrastructure '%s' does not exist%s", arg,
			   out->deleted ? " (it was destroyed)" : "");
		state_infra_release(out);
		return -1;
	}
	/* whatever the command prints, credentials of its RADL stay masked */
	struct diag ignore = DIAG_INIT;
	radl_doc_free(deploy_radl(out, &ignore));
	diag_release(&ignore);
	return 0;
}

int cli_vm_arg(const char *arg, int *num, struct diag *d)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 1000000) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "'%s' is not a VM number", arg);
		return -1;
	}
	*num = (int)v;
	return 0;
}

int cli_extra_vars(json_t **vars, const struct cmd_value *v, struct diag *d)
{
	for (size_t i = 0; i < v->n; i++)
		if (plan_parse_extra_var(vars, v->list[i], d) < 0)
			return -1;
	return 0;
}

json_t *cli_json_doc(void)
{
	return json_pack("{s:i}", "format", IMC_JSON_FORMAT);
}

void cli_json_print(json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	if (s) {
		char *safe = redact(s);
		fputs(safe, stdout);
		fputc('\n', stdout);
		free(safe);
		free(s);
	}
	json_decref(doc);
}

int cli_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		    struct diag *d)
{
	json_t *doc = ctx->json ? cli_json_doc() : NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc = deploy_state_report(st, id, with_id, doc, &sb, d);
	if (rc == 0 && doc) {
		cli_json_print(doc);
		doc = NULL;
	} else if (rc == 0)
		fputs(strbuf_str(&sb), stdout);
	json_decref(doc);
	strbuf_release(&sb);
	return rc;
}

/* "  -s, --long ARG" padded to the help column, then the help, its
 * continuation lines indented to the same column. */
static void print_option(const struct cmd_option *o, FILE *fp)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->shrt)
		strbuf_addf(&sb, "  -%c, --%s", o->shrt, o->lng);
	else
		strbuf_addf(&sb, "      --%s", o->lng);
	if (o->kind != CMD_OPT_FLAG)
		strbuf_addf(&sb, " %s", o->arg ? o->arg : "VALUE");
	if (sb.len + 2 > HELP_COLUMN)
		strbuf_addch(&sb, '\n');
	size_t col = sb.len + 2 > HELP_COLUMN ? 0 : sb.len;
	for (; col < HELP_COLUMN; col++)
		strbuf_addch(&sb, ' ');
	for (const char *h = o->help ? o->help : ""; *h; h++) {
		strbuf_addch(&sb, *h);
		if (*h == '\n')
			strbuf_addf(&sb, "%*s", HELP_COLUMN, "");
	}
	strbuf_addch(&sb, '\n');
	fputs(strbuf_str(&sb), fp);
	strbuf_release(&sb);
}

void cli_print_help(const struct imc_cmd *cmd, FILE *fp)
{
	fprintf(fp, "usage: imc [GLOBAL OPTIONS] %s %s\n\n%s\n", cmd->name, cmd->synopsis, cmd->summary);
	fputs("\nOptions:\n", fp);
	for (int k = 0; cmd->options && cmd->options[k].lng; k++)
		print_option(&cmd->options[k], fp);
	if (!table_has(cmd->options, "json"))
		print_option(&json_option, fp);
	if (cmd->help)
		fprintf(fp, "\n%s", cmd->help);
}

void cli_print_usage(const struct imc_ctx *ctx, FILE *fp)
{
	size_t n = ctx->ncommands;
	const struct imc_cmd *const *cmds = ctx->commands;
	fputs("usage: imc [-a AUTHFILE] [--home DIR] [--server URL] [--json] [-v] COMMAND [ARGS]\n"
	      "\n"
	      "imc deploys and provisions the infrastructure a RADL file describes.\n"
	      "\n"
	      "Global options:\n"
	      "  -a, --auth FILE  cloud credentials (IM's auth file; default $IMC_HOME/auth.dat;\n"
	      "                   none at all means the embedded 'local' cloud)\n"
	      "      --home DIR   state directory (default $IMC_HOME, else ~/.imc)\n"
	      "      --server URL run the command on an imc serve or IM server (IM's REST\n"
	      "                   API; default $IMC_SERVER; -a names IM's auth file)\n"
	      "      --json       print one JSON document on stdout\n"
	      "  -v, --verbose    more logging on stderr (repeat for more; see IMC_LOG)\n"
	      "  -h, --help       this help\n"
	      "      --version    print the version\n"
	      "\n"
	      "Commands:\n", fp);
	for (size_t i = 0; i < n; i++)
		if (!(cmds[i]->flags & CMD_HIDDEN))
			fprintf(fp, "  %-15s %s\n", cmds[i]->name, cmds[i]->summary);
	fputs("\nRun 'imc help COMMAND' for a command's options. See imc(1) and radl(5).\n"
	      "Exit status: 0 ok, 1 a node or task failed, 64 usage, 65 invalid input,\n"
	      "66 no such file or infrastructure, 69 cloud or SSH unreachable, 70 internal\n"
	      "error, 74 I/O error, 75 try again (locked), 77 credentials rejected.\n", fp);
}

/* The words a command's options complete to: "--long -s ...". */
static void completion_words(const struct imc_cmd *cmd, struct strbuf *sb)
{
	for (int k = 0; cmd->options && cmd->options[k].lng; k++) {
		strbuf_addf(sb, "--%s ", cmd->options[k].lng);
		if (cmd->options[k].shrt)
			strbuf_addf(sb, "-%c ", cmd->options[k].shrt);
	}
	if (!table_has(cmd->options, "json"))
		strbuf_addstr(sb, "--json ");
	strbuf_addstr(sb, "-h --help");
}

/* The options of cmd that take a value, as a case pattern "-e|--extra-var". */
static void completion_valued(const struct imc_cmd *cmd, struct strbuf *sb)
{
	for (int k = 0; cmd->options && cmd->options[k].lng; k++) {
		if (cmd->options[k].kind == CMD_OPT_FLAG)
			continue;
		strbuf_addf(sb, "%s--%s", sb->len ? "|" : "", cmd->options[k].lng);
		if (cmd->options[k].shrt)
			strbuf_addf(sb, "|-%c", cmd->options[k].shrt);
	}
}

void cli_print_completion(const struct imc_ctx *ctx, FILE *fp)
{
	size_t n = ctx->ncommands;
	const struct imc_cmd *const *cmds = ctx->commands;
	struct strbuf names = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		if (!(cmds[i]->flags & CMD_HIDDEN))
			strbuf_addf(&names, "%s%s", names.len ? " " : "", cmds[i]->name);
	fputs("# bash completion for imc: generated by 'imc help --completion' from the\n"
	      "# command table (src/cmd/cmd-*.c); do not edit, regenerate.\n"
	      "_imc()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd= i words= valued=\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-a|--auth|--home|--server) ((i++)) ;;\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tcase $cmd in\n", fp);
	fprintf(fp, "\t'') words='-a --auth --home --server --json -v --verbose -h --help --version %s'\n"
		"\t\tcase $prev in -a|--auth|--home) COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac\n"
		"\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\")); return ;;\n", strbuf_str(&names));
	for (size_t i = 0; i < n; i++) {
		if (cmds[i]->flags & CMD_HIDDEN)
			continue;
		struct strbuf w = STRBUF_INIT, v = STRBUF_INIT;
		completion_words(cmds[i], &w);
		completion_valued(cmds[i], &v);
		fprintf(fp, "\t%s) words='%s'; valued='%s' ;;\n", cmds[i]->name, strbuf_str(&w), strbuf_str(&v));
		strbuf_release(&w);
		strbuf_release(&v);
	}
	fprintf(fp, "\tesac\n"
		"\tif [[ $cmd == help ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"$words %s\" -- \"$cur\")); return\n"
		"\tfi\n", strbuf_str(&names));
	fputs(
	      "\tif [[ -n $valued && \"|$valued|\" == *\"|$prev|\"* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\")); return\n"
	      "\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -F _imc imc\n", fp);
	strbuf_release(&names);
}

/* s for roff: '-' is a hyphen unless written "\-", and a backslash starts
 * an escape; a line break of the help is a space. */
static void roff_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s == '\n' ? ' ' : *s);
	}
}

void cli_print_man(const struct imc_ctx *ctx, const char *only, FILE *fp)
{
	size_t n = ctx->ncommands;
	const struct imc_cmd *const *cmds = ctx->commands;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		const struct imc_cmd *cmd = cmds[i];
		if ((cmd->flags & CMD_HIDDEN) || (only && strcmp(cmd->name, only) != 0))
			continue;
		strbuf_addf(&sb, ".\\\" %s\n.B \"", cmd->name);
		roff_escape(&sb, cmd->name);
		if (*cmd->synopsis)
			strbuf_addch(&sb, ' ');
		roff_escape(&sb, cmd->synopsis);
		strbuf_addstr(&sb, "\"\n");
		if (cmd->options && cmd->options[0].lng)
			strbuf_addstr(&sb, ".RS\n");
		for (int k = 0; cmd->options && cmd->options[k].lng; k++) {
			const struct cmd_option *o = &cmd->options[k];
			strbuf_addstr(&sb, ".TP\n.B \"");
			if (o->shrt)
				strbuf_addf(&sb, "\\-%c, ", o->shrt);
			strbuf_addstr(&sb, "\\-\\-");
			roff_escape(&sb, o->lng);
			if (o->kind != CMD_OPT_FLAG) {
				strbuf_addch(&sb, ' ');
				roff_escape(&sb, o->arg ? o->arg : "VALUE");
			}
			strbuf_addstr(&sb, "\"\n");
			roff_escape(&sb, o->help ? o->help : "");
			strbuf_addch(&sb, '\n');
		}
		if (cmd->options && cmd->options[0].lng)
			strbuf_addstr(&sb, ".RE\n");
	}
	fputs(strbuf_str(&sb), fp);
	strbuf_release(&sb);
}
