/* conn-pshell.c: the persistent shell behind the SSH connection. sshd runs
 * every exec request under the user's login shell, and a heavy ~/.bashrc
 * (pyenv, banners) then costs more than the command itself; so one channel
 * per host runs the login shell once, which execs `/bin/sh -s`, and every
 * later command is written to that shell's stdin.
 *
 * Each command must still see what a fresh shell would give it, as Ansible
 * gives each task a fresh process: it runs as `/bin/sh -c CMD` in a child,
 * so its cd, exports, umask and `exit` end with it, and the persistent
 * shell itself never changes directory or state after its start. Its
 * stdin is /dev/null or a file holding the bytes sent with it (never the
 * shell's own input); its stdout and stderr are read until every process
 * holding them has closed them, so a background child that keeps stdout
 * open is waited for, exactly as an exec channel (and Ansible's module
 * runner) waits; any bytes (NUL, no trailing newline) come back exactly.
 *
 * Two ways to carry that, chosen once per host:
 * - framed (a node whose perl loads POSIX, which Debian's essential
 *   perl-base and most distributions' perl do): the shell runs a small perl loop that reads
 *   length-prefixed requests, forks and execs `/bin/sh -c CMD` with two
 *   pipes, and writes what comes out of them as length-prefixed frames:
 *   one process per command, the command itself, and no encoding;
 * - base64 (anywhere else): two fifos, each read by a base64(1) started
 *   per command into the channel's stdout and stderr, a line starting with
 *   '.' (outside base64's alphabet) ending each stream: "." on stderr,
 *   ".RC" on stdout; three processes per command.
 *
 * Whatever the login shell prints before the exec is dropped through a
 * mark; a node without base64(1) or a temporary directory gets no
 * persistent shell and the caller keeps one channel per command. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision/conn/conn-pshell.h"
#include "util/base64.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define PS_MARK "\037imc-ps\037\n"
#define PS_MARK_LEN (sizeof(PS_MARK) - 1)

/* Run by the login shell: marks both streams, then becomes the persistent
 * shell, reading its commands from the channel. */
#define PS_BOOT "printf '\\037imc-ps\\037\\n'; printf '\\037imc-ps\\037\\n' >&2; exec /bin/sh -s"

/* The persistent shell's own set-up, sent once. imc_x CMD STDIN runs one
 * command (see the top comment): two fifos made once carry its stdout and
 * stderr to a base64(1) each, started in the background for the command
 * and waited for (they end when every holder of the fifo has closed it).
 * The command gets its redirections in its own process, the fifos opened
 * first so that their readers always see a writer come and go. The
 * shell's own stderr is /dev/null from then on (what it prints itself,
 * such as "Killed" for a command killed by a signal, is no command's
 * output), the channel's stderr kept on fd 5, which no command inherits.
 * The EXIT trap removes the directory when the channel closes (a caught
 * signal does not survive exec, so the commands run with default
 * dispositions). */
static const char ps_init[] =
	"imc_D=$(mktemp -d \"${TMPDIR:-/tmp}/.imc-ps.XXXXXX\") || exit 1\n"
	"trap 'rm -rf \"$imc_D\"' EXIT\n"
	"trap 'exit 129' HUP\n"
	"trap 'exit 143' TERM\n"
	"mkfifo \"$imc_D/o\" \"$imc_D/e\" || exit 1\n"
	"[ \"$(printf 'a\\001b' | base64 | base64 -d)\" = \"$(printf 'a\\001b')\" ] || exit 1\n"
	"exec 5>&2 2>/dev/null\n"
	"imc_x() {\n"
	"\tbase64 <\"$imc_D/o\" &\n"
	"\tbase64 <\"$imc_D/e\" >&5 &\n"
	"\t(exec /bin/sh -c \"$1\" >\"$imc_D/o\" 2>\"$imc_D/e\" <\"$2\" 5>&-)\n"
	"\timc_r=$?\n"
	"\twait\n"
	"\tcase $2 in \"$imc_D\"/*) rm -f \"$2\";; esac\n"
	"\tprintf '.\\n' >&5\n"
	"\tprintf '.%s\\n' \"$imc_r\"\n"
	"}\n"
	"if perl -MPOSIX -e 1 >/dev/null 2>&1; then printf '.okp\\n'; else printf '.ok\\n'; fi\n";

/* The framed loop (see the top comment), run by the persistent shell as
 * `perl -e DRIVER DIR; exit` (so that nothing after the loop's end is ever
 * read as shell input, and the shell's EXIT trap still cleans DIR). It uses
 * no module but POSIX (in perl-base) and no single quote (it is one quoted
 * word). The command is reaped as soon as it exits (SIGCHLD), not once
 * its output ends, since a background child of it may wait for it to be
 * gone before closing that output, as it may under an exec channel. Requests: "x CMDLEN INLEN\n" then both byte strings. Frames:
 * "k 0\n" once ready; "o N\n" or "e N\n" then N bytes of the command's
 * stdout or stderr, as they come; "r RC\n" when both have ended and the
 * command has exited (RC 128 + signal when killed); "E 0\n" when the
 * command could not be started (its stdin file, a pipe or the fork
 * failed). Its handlers are set back to default in the child, and the exec
 * resets them anyway, so the command's signals are a fresh shell's. */
static const char ps_driver[] =
	"use strict;\n"
	"require POSIX;\n"
	"my $D = shift;\n"
	"my $b = \"\";\n"
	"my $st;\n"
	"sub more { for (;;) { my $r = sysread(STDIN, $b, 65536, length $b); return if $r; next if !defined $r && $! == POSIX::EINTR(); exit 0 } }\n"
	"sub put { my $s = shift; while (length $s) { my $w = syswrite(STDOUT, $s); if (!defined $w) { next if $! == POSIX::EINTR(); exit 1 } substr($s, 0, $w) = \"\" } }\n"
	"$SIG{PIPE} = sub { exit 1 };\n"
	"$SIG{CHLD} = sub { local ($!, $?); while (waitpid(-1, POSIX::WNOHANG()) > 0) { $st = $? } };\n"
	"put(\"k 0\\n\");\n"
	"for (;;) {\n"
	" my $nl;\n"
	" more() until ($nl = index($b, \"\\n\")) >= 0;\n"
	" substr($b, 0, $nl + 1, \"\") =~ /^x (\\d+) (\\d+)\\n\\z/ or exit 1;\n"
	" my ($cl, $il) = ($1, $2);\n"
	" more() while length($b) < $cl + $il;\n"
	" my $cmd = substr($b, 0, $cl, \"\");\n"
	" my $in;\n"
	" if ($il) {\n"
	"  unless (open($in, \"+>\", \"$D/i\") && syswrite($in, $b, $il) == $il && sysseek($in, 0, 0)) {\n"
	"   substr($b, 0, $il, \"\");\n"
	"   put(\"E 0\\n\");\n"
	"   next;\n"
	"  }\n"
	"  unlink \"$D/i\";\n"
	"  substr($b, 0, $il, \"\");\n"
	" } elsif (!open($in, \"<\", \"/dev/null\")) {\n"
	"  put(\"E 0\\n\");\n"
	"  next;\n"
	" }\n"
	" my ($or, $ow, $er, $ew);\n"
	" my $pid;\n"
	" undef $st;\n"
	" unless (pipe($or, $ow) && pipe($er, $ew) && defined($pid = fork)) {\n"
	"  put(\"E 0\\n\");\n"
	"  next;\n"
	" }\n"
	" if (!$pid) {\n"
	"  $SIG{PIPE} = $SIG{CHLD} = \"DEFAULT\";\n"
	"  open(STDIN, \"<&\", $in) && open(STDOUT, \">&\", $ow) && open(STDERR, \">&\", $ew)\n"
	"   && exec { \"/bin/sh\" } \"/bin/sh\", \"-c\", $cmd;\n"
	"  POSIX::_exit(127);\n"
	" }\n"
	" close $ow;\n"
	" close $ew;\n"
	" close $in;\n"
	" my %h = (o => $or, e => $er);\n"
	" while (%h) {\n"
	"  my $rin = \"\";\n"
	"  vec($rin, fileno($_), 1) = 1 for values %h;\n"
	"  next if select(my $rout = $rin, undef, undef, undef) <= 0;\n"
	"  for my $k (keys %h) {\n"
	"   next unless vec($rout, fileno($h{$k}), 1);\n"
	"   my $n = sysread($h{$k}, my $d, 65536);\n"
	"   if ($n) {\n"
	"    put(\"$k $n\\n$d\");\n"
	"   } elsif (defined $n || $! != POSIX::EINTR()) {\n"
	"    close $h{$k};\n"
	"    delete $h{$k};\n"
	"   }\n"
	"  }\n"
	" }\n"
	" my $w = waitpid($pid, 0);\n"
	" $st = $? if $w == $pid;\n"
	" $st = 255 << 8 unless defined $st;\n"
	" put(\"r \" . (($st & 127) ? 128 + ($st & 127) : $st >> 8) . \"\\n\");\n"
	"}\n";

/* one of the channel's two streams as the shell frames it */
struct ps_stream {
	struct strbuf pend;  /* bytes not yet decoded (a partial line) */
	bool marked;         /* the login shell's output has been dropped */
	bool done;           /* the terminator line has been read */
	char term[24];       /* what followed its '.' */
};

struct pshell {
	ssh_session s;
	ssh_channel ch;
	const char *host;
	bool framed;         /* the perl loop runs: frames, not base64 */
	struct ps_stream out, err;
};

static void drop_front(struct strbuf *sb, size_t n)
{
	memmove(sb->buf, sb->buf + n, sb->len - n + 1); /* with the NUL */
	sb->len -= n;
}

/* Appends data to st, decoding whole base64 lines into dest until the
 * terminator line. -1 on bytes that are not the shell's framing. */
static int feed(struct ps_stream *st, const char *data, size_t n, struct strbuf *dest)
{
	strbuf_add(&st->pend, data, n);
	if (!st->marked) {
		const char *at = memmem(st->pend.buf, st->pend.len, PS_MARK, PS_MARK_LEN);
		if (!at)
			return 0;
		drop_front(&st->pend, (size_t)(at - st->pend.buf) + PS_MARK_LEN);
		st->marked = true;
	}
	size_t pos = 0, b64_end = 0;
	while (!st->done && pos < st->pend.len) {
		char *line = st->pend.buf + pos;
		char *nl = memchr(line, '\n', st->pend.len - pos);
		if (!nl)
			break;
		size_t len = (size_t)(nl - line);
		pos += len + 1;
		if (line[0] != '.') {
			b64_end = pos;
			continue;
		}
		if (len - 1 >= sizeof(st->term))
			return -1;
		memcpy(st->term, line + 1, len - 1);
		st->term[len - 1] = '\0';
		st->done = true;
	}
	if (b64_end && base64_decode(st->pend.buf, b64_end, dest) < 0)
		return -1;
	drop_front(&st->pend, pos);
	/* nothing follows a terminator: the shell answers one request at a time */
	return st->done && st->pend.len ? -1 : 0;
}

/* Reads both streams until each is done (stdout's terminator; stderr's,
 * or only its mark while starting). -1 when the channel ends first or
 * carries something else. */
static int pump(struct pshell *ps, struct strbuf *out, struct strbuf *err, bool starting)
{
	char buf[65536];
	for (;;) {
		bool err_done = starting ? ps->err.marked : ps->err.done;
		if (ps->out.done && err_done)
			return 0;
		/* wait on a stream still expected; drain the other as it comes, so
		 * that neither fills the channel's window while the other is awaited */
		int which = ps->out.done ? 1 : 0;
		int n = ssh_channel_read_timeout(ps->ch, buf, sizeof(buf), which, 100);
		if (n < 0) /* SSH_ERROR, or SSH_EOF: the shell is gone */
			return -1;
		if (n > 0 && feed(which ? &ps->err : &ps->out, buf, (size_t)n, which ? err : out) < 0)
			return -1;
		int e;
		while ((e = ssh_channel_read_nonblocking(ps->ch, buf, sizeof(buf), !which)) > 0)
			if (feed(which ? &ps->out : &ps->err, buf, (size_t)e, which ? out : err) < 0)
				return -1;
		if (e < 0)
			return -1;
		if (n == 0 && (ssh_channel_is_eof(ps->ch) || !ssh_channel_is_open(ps->ch)))
			return -1;
	}
}

static int write_all(struct pshell *ps, const char *p, size_t n, size_t *sent)
{
	while (n) {
		int k = ssh_channel_write(ps->ch, p, (uint32_t)(n > 65536 ? 65536 : n));
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		*sent += (size_t)k;
	}
	return 0;
}

static void stream_reset(struct ps_stream *st)
{
	strbuf_reset(&st->pend);
	st->done = false;
	st->term[0] = '\0';
}

/* Takes the complete frames at the front of pend: output into out/err,
 * and the final frame's letter and number into *end and *val. 1 when a
 * final frame ('r', 'E', 'k') was taken, 0 when more bytes are needed,
 * -1 on anything else. */
static int take_frames(struct strbuf *pend, struct strbuf *out, struct strbuf *err, char *end,
		       long *val)
{
	size_t pos = 0;
	int rc = 0;
	while (rc == 0 && pos < pend->len) {
		const char *h = pend->buf + pos;
		size_t avail = pend->len - pos;
		const char *nl = memchr(h, '\n', avail < 24 ? avail : 24);
		if (!nl) {
			if (avail >= 24)
				rc = -1;
			break;
		}
		char *e;
		if (h[1] != ' ' || h[2] < '0' || h[2] > '9')
			return -1;
		long n = strtol(h + 2, &e, 10);
		if (e != nl || n > 65536) /* the loop reads 64 KiB at most */
			return -1;
		size_t hl = (size_t)(nl - h) + 1;
		if (h[0] == 'o' || h[0] == 'e') {
			if (avail - hl < (size_t)n)
				break;
			strbuf_add(h[0] == 'o' ? out : err, nl + 1, (size_t)n);
			pos += hl + (size_t)n;
		} else if (h[0] == 'r' || h[0] == 'E' || h[0] == 'k') {
			*end = h[0];
			*val = n;
			pos += hl;
			rc = 1;
		} else
			return -1;
	}
	drop_front(pend, pos);
	/* nothing follows the final frame: the loop answers one request at a time */
	return rc == 1 && pend->len ? -1 : rc;
}

/* Reads the framed loop's answer to one request (or its ready frame) from
 * the channel's stdout; its stderr carries nothing of a command's and is
 * drained so that it never fills the channel's window. */
static int pump_framed(struct pshell *ps, struct strbuf *out, struct strbuf *err, char *end,
		       long *val)
{
	char buf[65536];
	for (;;) {
		int t = take_frames(&ps->out.pend, out, err, end, val);
		if (t)
			return t < 0 ? -1 : 0;
		int n = ssh_channel_read_timeout(ps->ch, buf, sizeof(buf), 0, 100);
		if (n < 0)
			return -1;
		if (n > 0)
			strbuf_add(&ps->out.pend, buf, (size_t)n);
		int e;
		while ((e = ssh_channel_read_nonblocking(ps->ch, buf, sizeof(buf), 1)) > 0)
			;
		if (e < 0)
			return -1;
		if (n == 0 && (ssh_channel_is_eof(ps->ch) || !ssh_channel_is_open(ps->ch)))
			return -1;
	}
}

void pshell_close(struct pshell *ps)
{
	if (!ps)
		return;
	if (ps->ch) {
		/* EOF on its input ends the shell; its EXIT trap cleans up */
		if (ssh_channel_is_open(ps->ch)) {
			ssh_channel_send_eof(ps->ch);
			ssh_channel_close(ps->ch);
		}
		ssh_channel_free(ps->ch);
	}
	strbuf_release(&ps->out.pend);
	strbuf_release(&ps->err.pend);
	free(ps);
}

struct pshell *pshell_open(ssh_session s, const char *host)
{
	struct pshell *ps = xcalloc(1, sizeof(*ps));
	ps->s = s;
	ps->host = host;
	strbuf_init(&ps->out.pend, 0);
	strbuf_init(&ps->err.pend, 0);
	struct strbuf junk = STRBUF_INIT;
	size_t sent = 0;
	ps->ch = ssh_channel_new(s);
	if (!ps->ch)
		goto fail;
	if (ssh_channel_open_session(ps->ch) != SSH_OK) {
		ssh_channel_free(ps->ch);
		ps->ch = NULL;
		goto fail;
	}
	if (ssh_channel_request_exec(ps->ch, PS_BOOT) != SSH_OK)
		goto fail;
	if (write_all(ps, ps_init, sizeof(ps_init) - 1, &sent) < 0)
		goto fail;
	if (pump(ps, &junk, &junk, true) < 0 || strncmp(ps->out.term, "ok", 2) || junk.len)
		goto fail;
	if (!strcmp(ps->out.term, "okp")) {
		/* the shell reads nothing past this line until the loop is ready */
		struct strbuf line = STRBUF_INIT;
		strbuf_addstr(&line, "perl -e ");
		sh_quote(&line, ps_driver);
		strbuf_addstr(&line, " \"$imc_D\" 5>&-; exit\n");
		stream_reset(&ps->out);
		int wrc = write_all(ps, line.buf, line.len, &sent);
		strbuf_release(&line);
		char end = 0;
		long val = -1;
		if (wrc < 0 || pump_framed(ps, &junk, &junk, &end, &val) < 0 || end != 'k' || junk.len)
			goto fail;
		ps->framed = true;
	} else if (strcmp(ps->out.term, "ok"))
		goto fail;
	log_debug("ssh", "%s: persistent shell, %s", host, ps->framed ? "framed" : "base64");
	strbuf_release(&junk);
	return ps;
fail:
	log_debug("ssh", "%s: no persistent shell (%s); one channel per command", host,
		  ssh_get_error(s));
	strbuf_release(&junk);
	pshell_close(ps);
	return NULL;
}

size_t pshell_max_stdin(const struct pshell *ps)
{
	return ps->framed ? PSHELL_MAX_STDIN_FRAMED : PSHELL_MAX_STDIN;
}

/* The shell ended, or answered out of turn, while a command ran: the
 * command may have run, and is not sent again. */
static int broken(struct pshell *ps, struct diag *d)
{
	const char *why = ssh_get_error(ps->s);
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: the connection's shell ended while running a command%s%s",
		   ps->host, why && *why ? ": " : "", why ? why : "");
	return -1;
}

/* pshell_exec through the framed loop: the request as it is, bytes and all. */
static int exec_framed(struct pshell *ps, const char *cmd, const void *in, size_t inlen,
		       struct conn_result *r, struct diag *d)
{
	char head[64];
	size_t cl = strlen(cmd);
	int hl = snprintf(head, sizeof(head), "x %zu %zu\n", cl, inlen);
	strbuf_reset(&ps->out.pend);
	size_t sent = 0;
	/* the loop runs a request only once all of it has come: one cut
	 * short was certainly not started */
	if (write_all(ps, head, (size_t)hl, &sent) < 0 || write_all(ps, cmd, cl, &sent) < 0 ||
	    write_all(ps, in, inlen, &sent) < 0)
		return 1;
	char end = 0;
	long val = -1;
	if (pump_framed(ps, &r->out, &r->err, &end, &val) < 0)
		goto broken;
	if (end == 'E')
		return 1;
	if (end != 'r' || val < 0 || val > 255)
		goto broken;
	r->rc = (int)val;
	return 0;
broken:
	return broken(ps, d);
}

int pshell_exec(struct pshell *ps, const char *cmd, const void *in, size_t inlen,
		struct conn_result *r, struct diag *d)
{
	if (inlen > pshell_max_stdin(ps))
		return 1;
	strbuf_reset(&r->out);
	strbuf_reset(&r->err);
	if (ps->framed)
		return exec_framed(ps, cmd, in, inlen, r, d);
	struct strbuf req = STRBUF_INIT;
	if (inlen) {
		/* a quoted here-document cannot end early: '.IMC' is no base64 line */
		char *b64 = base64_encode(in, inlen);
		strbuf_addstr(&req, "if base64 -d >\"$imc_D/i\" <<'.IMC'\n");
		for (size_t off = 0, n = strlen(b64); off < n; off += 76) {
			strbuf_add(&req, b64 + off, n - off < 76 ? n - off : 76);
			strbuf_addch(&req, '\n');
		}
		free(b64);
		strbuf_addstr(&req, ".IMC\nthen imc_x ");
		sh_quote(&req, cmd);
		strbuf_addstr(&req, " \"$imc_D/i\"; else printf '.\\n' >&5; printf '.E\\n'; fi\n");
	} else {
		strbuf_addstr(&req, "imc_x ");
		sh_quote(&req, cmd);
		strbuf_addstr(&req, " /dev/null\n");
	}
	stream_reset(&ps->out);
	stream_reset(&ps->err);
	strbuf_reset(&r->out);
	strbuf_reset(&r->err);
	size_t sent = 0;
	int rc = write_all(ps, req.buf, req.len, &sent);
	strbuf_release(&req);
	if (rc < 0) {
		/* a request is run only once its last line is complete */
		if (sent == 0)
			return 1;
		goto broken;
	}
	if (pump(ps, &r->out, &r->err, false) < 0)
		goto broken;
	if (!strcmp(ps->out.term, "E"))
		return 1;
	char *end;
	long v = strtol(ps->out.term, &end, 10);
	if (end == ps->out.term || *end || v < 0 || v > 255)
		goto broken;
	r->rc = (int)v;
	return 0;
broken:
	return broken(ps, d);
}
