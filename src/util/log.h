/* log.h: leveled logging to stderr with a module tag, and the secret
 * redaction layer every log line and error message passes through.
 *
 * Level: IMC_LOG=error|warn|info|debug|trace (default warn), or -v (info),
 * -vv (debug). IMC_LOG may also name modules: "debug" or "cloud=trace,ssh".
 *
 * Secrets: whoever reads a credential (auth file, key, password, token)
 * registers it with secret_register(); from then on it is replaced by "***"
 * in every log line, every printed diagnostic and anything passed through
 * redact(). Registration copies the string; it is never freed (the set of
 * secrets lives as long as the process), but in a scope. Thread-safe. */
#ifndef IMC_LOG_H
#define IMC_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_TRACE };

/* Reads IMC_LOG; verbose (count of -v) raises the default level. */
void log_init(int verbose);
void log_set_level(enum log_level level);
bool log_enabled(enum log_level level, const char *module);
void log_msg(enum log_level level, const char *module, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_vmsg(enum log_level level, const char *module, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#define log_error(mod, ...) log_msg(LOG_ERROR, mod, __VA_ARGS__)
#define log_warn(mod, ...) log_msg(LOG_WARN, mod, __VA_ARGS__)
#define log_info(mod, ...) log_msg(LOG_INFO, mod, __VA_ARGS__)
#define log_debug(mod, ...) log_msg(LOG_DEBUG, mod, __VA_ARGS__)
#define log_trace(mod, ...) log_msg(LOG_TRACE, mod, __VA_ARGS__)

/* Registers a secret (ignored when shorter than 4 bytes: too many false hits). */
void secret_register(const char *secret);
/* A scope, in a long-running server: what this thread registers between
 * begin and end is released at end (a secret stays registered while any
 * other registration of it, by a scope or not, holds it). Without that,
 * every password a server ever saw would stay, and redact() would slow
 * with their number. Scopes do not nest. */
void secret_scope_begin(void);
void secret_scope_end(void);
/* Returns a malloc'd copy of s with every registered secret masked. */
char *redact(const char *s);
/* Number of registered secrets (for tests). */
int secret_count(void);
/* Forgets every registered secret. Only for programs that read many
 * unrelated inputs in one process (the fuzz harnesses), where the set would
 * otherwise grow with every input and slow every redact(). */
void secret_forget_all(void);

#endif
