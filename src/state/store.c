/* store.c: the SQLite state store (see store.h). One connection per process,
 * WAL journal so readers never block the writer, busy_timeout so concurrent
 * writers wait for each other instead of failing with SQLITE_BUSY, and
 * BEGIN IMMEDIATE for explicit transactions so a read-then-write sequence
 * never deadlocks on lock upgrade. The schema is versioned with
 * PRAGMA user_version; migrations[] brings an older database forward. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state/store.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct state_store {
	sqlite3 *db;
	char *home;
	int depth; /* nesting of state_begin */
};

/* Schema migrations: migrations[i] brings user_version i to i+1. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE infra ("
	" id TEXT PRIMARY KEY, created REAL NOT NULL, radl TEXT NOT NULL, radl_path TEXT,"
	" cloud TEXT, extra_vars TEXT, auth_path TEXT, phase INTEGER NOT NULL DEFAULT 0,"
	" worker_pid INTEGER NOT NULL DEFAULT 0, worker_start INTEGER NOT NULL DEFAULT 0,"
	" next_vm INTEGER NOT NULL DEFAULT 0, ctxt_max INTEGER NOT NULL DEFAULT 0,"
	" deleted INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE vm ("
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, num INTEGER NOT NULL,"
	" system TEXT NOT NULL, cloud TEXT NOT NULL, cloud_cred TEXT, state INTEGER NOT NULL,"
	" cloud_id TEXT, public_ip TEXT, private_ip TEXT, ssh_port INTEGER NOT NULL DEFAULT 0,"
	" user TEXT, hostkey TEXT, spec TEXT, nic_ips TEXT, data TEXT, note TEXT,"
	" ctxt INTEGER NOT NULL DEFAULT -1,"
	" created REAL NOT NULL, PRIMARY KEY (infra_id, num));"
	"CREATE TABLE net ("
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, name TEXT NOT NULL,"
	" cloud TEXT NOT NULL, cloud_id TEXT, cidr TEXT, public INTEGER NOT NULL DEFAULT 0,"
	" outports TEXT, data TEXT, PRIMARY KEY (infra_id, name, cloud));"
	"CREATE TABLE step ("
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, step INTEGER NOT NULL,"
	" vm INTEGER NOT NULL, configure TEXT NOT NULL, status INTEGER NOT NULL DEFAULT 0,"
	" started REAL NOT NULL DEFAULT 0, ended REAL NOT NULL DEFAULT 0, error TEXT,"
	" PRIMARY KEY (infra_id, step, vm, configure));"
	"CREATE TABLE task_result ("
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, vm INTEGER NOT NULL,"
	" step INTEGER NOT NULL, task TEXT NOT NULL, status TEXT NOT NULL, msg TEXT, at REAL NOT NULL);"
	"CREATE TABLE log ("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, vm INTEGER NOT NULL,"
	" at REAL NOT NULL, text TEXT NOT NULL);"
	"CREATE INDEX log_by_infra ON log(infra_id, vm, seq);"
	"CREATE TABLE output ("
	" infra_id TEXT NOT NULL REFERENCES infra(id) ON DELETE CASCADE, name TEXT NOT NULL,"
	" path TEXT, value TEXT, PRIMARY KEY (infra_id, name));",
	/* 1 -> 2: who created it through `imc serve` (a salted hash of the
	 * REST user's credentials, never the password; NULL for the CLI's) */
	"ALTER TABLE infra ADD COLUMN owner TEXT;",
	/* 2 -> 3: what a destroyed infrastructure had (deploy/stats.c), kept
	 * in its tombstone for `imc serve`'s GET /stats */
	"ALTER TABLE infra ADD COLUMN summary TEXT;",
};

static const char *const phase_names[] = {
	[PHASE_NEW] = "new", [PHASE_CREATING] = "creating", [PHASE_CONFIGURING] = "configuring",
	[PHASE_DONE] = "done", [PHASE_INTERRUPTED] = "interrupted", [PHASE_DESTROYING] = "destroying",
};

const char *infra_phase_name(enum infra_phase p)
{
	return (unsigned)p < sizeof(phase_names) / sizeof(phase_names[0]) ? phase_names[p] : "unknown";
}

static const char *const step_names[] = {
	[STEP_PENDING] = "pending", [STEP_RUNNING] = "running", [STEP_OK] = "ok",
	[STEP_FAILED] = "failed", [STEP_SKIPPED] = "skipped",
};

const char *step_status_name(enum step_status s)
{
	return (unsigned)s < sizeof(step_names) / sizeof(step_names[0]) ? step_names[s] : "unknown";
}

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void db_error(struct state_store *st, struct diag *d, const char *what)
{
	diag_error(d, IMC_EXIT_IOERR, NULL, "state store (%s/imc.db): %s: %s", st->home, what,
		   sqlite3_errmsg(st->db));
}

static int exec_sql(struct state_store *st, const char *sql, struct diag *d)
{
	char *err = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "state store (%s/imc.db): %s", st->home,
			   err ? err : "error");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

/* Prepares sql and binds arguments described by types: 's' text (NULL ok),
 * 'i' int, 'l' long long, 'd' double. */
static sqlite3_stmt *prep(struct state_store *st, struct diag *d, const char *sql, const char *types, ...)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		db_error(st, d, "prepare");
		return NULL;
	}
	va_list ap;
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		int col = i + 1, rc = SQLITE_OK;
		switch (types[i]) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(stmt, col, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(stmt, col);
			break;
		}
		case 'i': rc = sqlite3_bind_int(stmt, col, va_arg(ap, int)); break;
		case 'l': rc = sqlite3_bind_int64(stmt, col, va_arg(ap, long long)); break;
		case 'd': rc = sqlite3_bind_double(stmt, col, va_arg(ap, double)); break;
		}
		if (rc != SQLITE_OK) {
			va_end(ap);
			db_error(st, d, "bind");
			sqlite3_finalize(stmt);
			return NULL;
		}
	}
	va_end(ap);
	return stmt;
}

/* Runs a prepared write to completion and finalizes it. */
static int done(struct state_store *st, sqlite3_stmt *stmt, struct diag *d)
{
	if (!stmt)
		return -1;
	int rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		db_error(st, d, "write");
		return -1;
	}
	return 0;
}

static char *col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

/* An absolute path: the deployment worker and the provisioner change
 * directory, and key paths must keep working. */
static char *absolute(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

char *state_default_home(const char *home)
{
	if (home && *home)
		return absolute(home);
	const char *env = getenv("IMC_HOME");
	if (env && *env)
		return absolute(env);
	const char *h = getenv("HOME");
	if (!h || !*h) {
		struct passwd *pw = getpwuid(getuid());
		h = pw ? pw->pw_dir : "/";
	}
	return xasprintf("%s/.imc", h);
}

/* Serialises the umask changes of state_open (see there). */
static pthread_mutex_t umask_lock = PTHREAD_MUTEX_INITIALIZER;

static int mkdir_private(const char *path, struct diag *d)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *state_infra_dir(const struct state_store *st, const char *id, struct diag *d)
{
	char *top = xasprintf("%s/infra", st->home);
	char *dir = xasprintf("%s/%s", top, id);
	int rc = mkdir_private(top, d) < 0 ? -1 : mkdir_private(dir, d);
	free(top);
	if (rc < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

static int migrate(struct state_store *st, struct diag *d)
{
	/* Serialise concurrent first opens: the migration runs in one
	 * IMMEDIATE transaction and re-reads the version inside it. */
	if (exec_sql(st, "BEGIN IMMEDIATE", d) < 0)
		return -1;
	sqlite3_stmt *s = prep(st, d, "PRAGMA user_version", "");
	if (!s)
		goto fail;
	int ver = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	int nmig = (int)(sizeof(migrations) / sizeof(migrations[0]));
	if (ver > nmig) {
		diag_error(d, IMC_EXIT_IOERR, NULL,
			   "state store %s/imc.db has schema version %d, newer than this imc (%d)",
			   st->home, ver, nmig);
		goto fail;
	}
	for (; ver < nmig; ver++) {
		if (exec_sql(st, migrations[ver], d) < 0)
			goto fail;
		char *pragma = xasprintf("PRAGMA user_version = %d", ver + 1);
		int rc = exec_sql(st, pragma, d);
		free(pragma);
		if (rc < 0)
			goto fail;
	}
	return exec_sql(st, "COMMIT", d);
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct state_store *state_open(const char *home, struct diag *d)
{
	struct state_store *st = xcalloc(1, sizeof(*st));
	st->home = xstrdup(home);
	if (mkdir_private(home, d) < 0) {
		state_close(st);
		return NULL;
	}
	char *path = xasprintf("%s/imc.db", home);
	/* Create the file 0600 ourselves: sqlite would use the umask. Only
	 * when it is missing (O_EXCL): closing a descriptor of the file
	 * drops every POSIX lock the process holds on it, and in imc serve
	 * the other threads' connections hold SQLite's locks on it (their
	 * reads failed with "disk I/O error" under load). imc serve opens
	 * the store once before its threads start, so the file exists. */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open state store '%s': %s", path, strerror(errno));
		free(path);
		state_close(st);
		return NULL;
	}
	if (fd >= 0)
		close(fd);
	/* the umask is the process's: in imc serve, threads open stores at
	 * once, and without the lock one could save another's 077 as the
	 * mask to restore, leaving it 077 for good */
	pthread_mutex_lock(&umask_lock);
	mode_t old = umask(077); /* the -wal and -shm files too */
	int rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL);
	umask(old);
	pthread_mutex_unlock(&umask_lock);
	free(path);
	if (rc != SQLITE_OK) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open state store in '%s': %s", home,
			   st->db ? sqlite3_errmsg(st->db) : "out of memory");
		state_close(st);
		return NULL;
	}
	sqlite3_busy_timeout(st->db, 30000);
	pthread_mutex_lock(&umask_lock);
	mode_t old2 = umask(077);
	rc = exec_sql(st, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;", d);
	umask(old2);
	pthread_mutex_unlock(&umask_lock);
	if (rc < 0 || migrate(st, d) < 0) {
		state_close(st);
		return NULL;
	}
	return st;
}

void state_close(struct state_store *st)
{
	if (!st)
		return;
	if (st->db)
		sqlite3_close(st->db);
	free(st->home);
	free(st);
}

const char *state_home(const struct state_store *st)
{
	return st->home;
}

int state_begin(struct state_store *st, struct diag *d)
{
	if (st->depth++ > 0)
		return 0;
	if (exec_sql(st, "BEGIN IMMEDIATE", d) < 0) {
		st->depth--;
		return -1;
	}
	return 0;
}

int state_commit(struct state_store *st, struct diag *d)
{
	if (st->depth == 0 || --st->depth > 0)
		return 0;
	return exec_sql(st, "COMMIT", d);
}

void state_rollback(struct state_store *st)
{
	if (st->depth == 0)
		return;
	st->depth = 0;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ---- infrastructures ---- */

int state_infra_insert(struct state_store *st, const struct state_infra *in, struct diag *d)
{
	return done(st, prep(st, d,
		"INSERT INTO infra (id, created, radl, radl_path, cloud, extra_vars, auth_path, phase,"
		" worker_pid, worker_start, next_vm, ctxt_max, deleted, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		"sdsssssiiliiis", in->id, in->created ? in->created : now(), in->radl, in->radl_path,
		in->cloud, in->extra_vars, in->auth_path, (int)in->phase, (int)in->worker_pid,
		in->worker_start, in->next_vm, in->ctxt_max, in->deleted ? 1 : 0, in->owner), d);
}

static void infra_from_row(sqlite3_stmt *s, struct state_infra *out)
{
	memset(out, 0, sizeof(*out));
	out->id = col_str(s, 0);
	out->created = sqlite3_column_double(s, 1);
	out->radl = col_str(s, 2);
	out->radl_path = col_str(s, 3);
	out->cloud = col_str(s, 4);
	out->extra_vars = col_str(s, 5);
	out->auth_path = col_str(s, 6);
	out->phase = (enum infra_phase)sqlite3_column_int(s, 7);
	out->worker_pid = (pid_t)sqlite3_column_int(s, 8);
	out->worker_start = sqlite3_column_int64(s, 9);
	out->next_vm = sqlite3_column_int(s, 10);
	out->ctxt_max = sqlite3_column_int(s, 11);
	out->deleted = sqlite3_column_int(s, 12) != 0;
	out->owner = col_str(s, 13);
	out->summary = col_str(s, 14);
}

#define INFRA_COLS "id, created, radl, radl_path, cloud, extra_vars, auth_path, phase," \
	" worker_pid, worker_start, next_vm, ctxt_max, deleted, owner, summary"

int state_infra_get(struct state_store *st, const char *id, struct state_infra *out, struct diag *d)
{
	sqlite3_stmt *s = prep(st, d, "SELECT " INFRA_COLS " FROM infra WHERE id = ?", "s", id);
	if (!s)
		return -1;
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		infra_from_row(s, out);
		sqlite3_finalize(s);
		return 0;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE) {
		memset(out, 0, sizeof(*out));
		return 1;
	}
	db_error(st, d, "read");
	return -1;
}

int state_infra_resolve(struct state_store *st, const char *prefix, char **id, struct diag *d)
{
	*id = NULL;
	for (const char *p = prefix; *p; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-') {
			diag_error(d, IMC_EXIT_USAGE, NULL, "'%s' is not an infrastructure id", prefix);
			return -1;
		}
	if (!*prefix) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "empty infrastructure id");
		return -1;
	}
	char *pat = xasprintf("%s%%", prefix);
	sqlite3_stmt *s = prep(st, d, "SELECT id FROM infra WHERE id = ? OR id LIKE ? ORDER BY id = ? DESC, id LIMIT 3",
			       "sss", prefix, pat, prefix);
	free(pat);
	if (!s)
		return -1;
	char *found[3] = { 0 };
	int n = 0, rc;
	while (n < 3 && (rc = sqlite3_step(s)) == SQLITE_ROW)
		found[n++] = col_str(s, 0);
	sqlite3_finalize(s);
	int ret;
	if (n == 0)
		ret = 1;
	else if (strcmp(found[0], prefix) == 0 || n == 1) {
		*id = found[0];
		found[0] = NULL;
		ret = 0;
	} else {
		diag_error(d, IMC_EXIT_USAGE, NULL, "infrastructure id '%s' is ambiguous ('%s', '%s', ...)",
			   prefix, found[0], found[1]);
		ret = -1;
	}
	for (int i = 0; i < n; i++)
		free(found[i]);
	return ret;
}

int state_infra_list(struct state_store *st, char ***ids, size_t *n, struct diag *d)
{
	return state_infra_list_all(st, false, ids, n, d);
}

int state_infra_list_all(struct state_store *st, bool deleted_too, char ***ids, size_t *n, struct diag *d)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, d, deleted_too ? "SELECT id FROM infra ORDER BY created, id"
				      : "SELECT id FROM infra WHERE deleted = 0 ORDER BY created, id", "");
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = col_str(s, 0);
	}
	sqlite3_finalize(s);
	return 0;
}

int state_infra_set_phase(struct state_store *st, const char *id, enum infra_phase p, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE infra SET phase = ? WHERE id = ?", "is", (int)p, id), d);
}

int state_infra_set_worker(struct state_store *st, const char *id, pid_t pid, long long start, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE infra SET worker_pid = ?, worker_start = ? WHERE id = ?", "ils",
			     (int)pid, start, id), d);
}

int state_infra_set_owner(struct state_store *st, const char *id, const char *owner, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE infra SET owner = ? WHERE id = ?", "ss", owner, id), d);
}

int state_infra_set_radl(struct state_store *st, const char *id, const char *radl, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE infra SET radl = ? WHERE id = ?", "ss", radl, id), d);
}

int state_infra_take_nums(struct state_store *st, const char *id, int n, int *first, struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	sqlite3_stmt *s = prep(st, d, "SELECT next_vm FROM infra WHERE id = ?", "s", id);
	if (!s || sqlite3_step(s) != SQLITE_ROW) {
		if (s)
			sqlite3_finalize(s);
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "infrastructure '%s' vanished from the store", id);
		state_rollback(st);
		return -1;
	}
	*first = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (done(st, prep(st, d, "UPDATE infra SET next_vm = ? WHERE id = ?", "is", *first + n, id), d) < 0) {
		state_rollback(st);
		return -1;
	}
	return state_commit(st, d);
}

static int delete_children(struct state_store *st, const char *id, struct diag *d)
{
	static const char *const tables[] = { "vm", "net", "step", "task_result", "log", "output" };
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char *sql = xasprintf("DELETE FROM %s WHERE infra_id = ?", tables[i]);
		int rc = done(st, prep(st, d, sql, "s", id), d);
		free(sql);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int state_infra_tombstone(struct state_store *st, const char *id, const char *summary, struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	if (delete_children(st, id, d) < 0 ||
	    done(st, prep(st, d, "UPDATE infra SET deleted = 1, radl = '', extra_vars = NULL,"
			  " worker_pid = 0, phase = ?, summary = ? WHERE id = ?", "iss", (int)PHASE_DONE,
			  summary, id), d) < 0) {
		state_rollback(st);
		return -1;
	}
	return state_commit(st, d);
}

int state_infra_forget(struct state_store *st, const char *id, struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	if (delete_children(st, id, d) < 0 ||
	    done(st, prep(st, d, "DELETE FROM infra WHERE id = ?", "s", id), d) < 0) {
		state_rollback(st);
		return -1;
	}
	return state_commit(st, d);
}

void state_infra_release(struct state_infra *in)
{
	if (!in)
		return;
	free(in->id);
	free(in->radl);
	free(in->radl_path);
	free(in->cloud);
	free(in->extra_vars);
	free(in->auth_path);
	free(in->owner);
	free(in->summary);
	memset(in, 0, sizeof(*in));
}

int state_infra_last_change(struct state_store *st, const char *id, double *at, struct diag *d)
{
	/* the latest time anything of it was recorded: its creation, a VM, a
	 * step's end, a log line */
	sqlite3_stmt *s = prep(st, d,
		"SELECT max(i.created, coalesce((SELECT max(created) FROM vm WHERE infra_id = i.id), 0),"
		" coalesce((SELECT max(ended) FROM step WHERE infra_id = i.id), 0),"
		" coalesce((SELECT max(at) FROM log WHERE infra_id = i.id), 0)) FROM infra i WHERE i.id = ?",
		"s", id);
	if (!s)
		return -1;
	int rc = sqlite3_step(s);
	*at = rc == SQLITE_ROW ? sqlite3_column_double(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		db_error(st, d, "reading an infrastructure's times");
		return -1;
	}
	return 0;
}

/* ---- VMs ---- */

#define VM_COLS "infra_id, num, system, cloud, cloud_cred, state, cloud_id, public_ip, private_ip," \
	" ssh_port, user, hostkey, spec, nic_ips, data, note, created, ctxt"

int state_vm_insert(struct state_store *st, const struct state_vm *vm, struct diag *d)
{
	return done(st, prep(st, d, "INSERT INTO vm (" VM_COLS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		"sisssisssissssssdi", vm->infra_id, vm->num, vm->system, vm->cloud, vm->cloud_cred,
		(int)vm->state, vm->cloud_id, vm->public_ip, vm->private_ip, vm->ssh_port, vm->user,
		vm->hostkey, vm->spec, vm->nic_ips, vm->data, vm->note,
		vm->created ? vm->created : now(), vm->ctxt), d);
}

int state_vm_update(struct state_store *st, const struct state_vm *vm, struct diag *d)
{
	return done(st, prep(st, d,
		"UPDATE vm SET system = ?, cloud = ?, cloud_cred = ?, state = ?, cloud_id = ?, public_ip = ?,"
		" private_ip = ?, ssh_port = ?, user = ?, hostkey = ?, spec = ?, nic_ips = ?, data = ?,"
		" note = ?, ctxt = ? WHERE infra_id = ? AND num = ?",
		"sssisssissssssisi", vm->system, vm->cloud, vm->cloud_cred, (int)vm->state, vm->cloud_id,
		vm->public_ip, vm->private_ip, vm->ssh_port, vm->user, vm->hostkey, vm->spec,
		vm->nic_ips, vm->data, vm->note, vm->ctxt, vm->infra_id, vm->num), d);
}

int state_vm_set_state(struct state_store *st, const char *id, int num, enum vm_state s, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE vm SET state = ? WHERE infra_id = ? AND num = ?", "isi",
			     (int)s, id, num), d);
}

int state_vm_set_hostkey(struct state_store *st, const char *id, int num, const char *key, struct diag *d)
{
	return done(st, prep(st, d, "UPDATE vm SET hostkey = ? WHERE infra_id = ? AND num = ?", "ssi",
			     key, id, num), d);
}

static void vm_from_row(sqlite3_stmt *s, struct state_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->infra_id = col_str(s, 0);
	vm->num = sqlite3_column_int(s, 1);
	vm->system = col_str(s, 2);
	vm->cloud = col_str(s, 3);
	vm->cloud_cred = col_str(s, 4);
	vm->state = (enum vm_state)sqlite3_column_int(s, 5);
	vm->cloud_id = col_str(s, 6);
	vm->public_ip = col_str(s, 7);
	vm->private_ip = col_str(s, 8);
	vm->ssh_port = sqlite3_column_int(s, 9);
	vm->user = col_str(s, 10);
	vm->hostkey = col_str(s, 11);
	vm->spec = col_str(s, 12);
	vm->nic_ips = col_str(s, 13);
	vm->data = col_str(s, 14);
	vm->note = col_str(s, 15);
	vm->created = sqlite3_column_double(s, 16);
	vm->ctxt = sqlite3_column_int(s, 17);
}

int state_vm_get(struct state_store *st, const char *id, int num, struct state_vm *out, struct diag *d)
{
	sqlite3_stmt *s = prep(st, d, "SELECT " VM_COLS " FROM vm WHERE infra_id = ? AND num = ?", "si", id, num);
	if (!s)
		return -1;
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		vm_from_row(s, out);
	else
		memset(out, 0, sizeof(*out));
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	db_error(st, d, "read");
	return -1;
}

int state_vm_list(struct state_store *st, const char *id, struct state_vm **vms, size_t *n, struct diag *d)
{
	*vms = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, d, "SELECT " VM_COLS " FROM vm WHERE infra_id = ? ORDER BY num", "s", id);
	if (!s)
		return -1;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*vms = xreallocarray(*vms, *n + 1, sizeof(**vms));
		vm_from_row(s, &(*vms)[(*n)++]);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		db_error(st, d, "read");
		return -1;
	}
	return 0;
}

int state_vm_delete(struct state_store *st, const char *id, int num, struct diag *d)
{
	if (state_begin(st, d) < 0)
		return -1;
	if (done(st, prep(st, d, "DELETE FROM vm WHERE infra_id = ? AND num = ?", "si", id, num), d) < 0 ||
	    done(st, prep(st, d, "DELETE FROM step WHERE infra_id = ? AND vm = ?", "si", id, num), d) < 0) {
		state_rollback(st);
		return -1;
	}
	return state_commit(st, d);
}

void state_vm_release(struct state_vm *vm)
{
	if (!vm)
		return;
	free(vm->infra_id);
	free(vm->system);
	free(vm->cloud);
	free(vm->cloud_cred);
	free(vm->cloud_id);
	free(vm->public_ip);
	free(vm->private_ip);
	free(vm->user);
	free(vm->hostkey);
	free(vm->spec);
	free(vm->nic_ips);
	free(vm->data);
	free(vm->note);
	memset(vm, 0, sizeof(*vm));
}

void state_vm_list_free(struct state_vm *vms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		state_vm_release(&vms[i]);
	free(vms);
}

/* ---- networks ---- */

int state_net_upsert(struct state_store *st, const struct state_net *net, struct diag *d)
{
	return done(st, prep(st, d,
		"INSERT INTO net (infra_id, name, cloud, cloud_id, cidr, public, outports, data)"
		" VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(infra_id, name, cloud) DO UPDATE SET"
		" cloud_id = excluded.cloud_id, cidr = excluded.cidr, public = excluded.public,"
		" outports = excluded.outports, data = excluded.data",
		"sssssiss", net->infra_id, net->name, net->cloud, net->cloud_id, net->cidr,
		net->public ? 1 : 0, net->outports, net->data), d);
}

int state_net_list(struct state_store *st, const char *id, struct state_net **nets, size_t *n, struct diag *d)
{
	*nets = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, d, "SELECT infra_id, name, cloud, cloud_id, cidr, public, outports, data"
			       " FROM net WHERE infra_id = ? ORDER BY rowid", "s", id);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*nets = xreallocarray(*nets, *n + 1, sizeof(**nets));
		struct state_net *nt = &(*nets)[(*n)++];
		nt->infra_id = col_str(s, 0);
		nt->name = col_str(s, 1);
		nt->cloud = col_str(s, 2);
		nt->cloud_id = col_str(s, 3);
		nt->cidr = col_str(s, 4);
		nt->public = sqlite3_column_int(s, 5) != 0;
		nt->outports = col_str(s, 6);
		nt->data = col_str(s, 7);
	}
	sqlite3_finalize(s);
	return 0;
}

int state_net_delete(struct state_store *st, const char *id, const char *name, struct diag *d)
{
	return done(st, prep(st, d, "DELETE FROM net WHERE infra_id = ? AND name = ?", "ss", id, name), d);
}

void state_net_list_free(struct state_net *nets, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(nets[i].infra_id);
		free(nets[i].name);
		free(nets[i].cloud);
		free(nets[i].cloud_id);
		free(nets[i].cidr);
		free(nets[i].outports);
		free(nets[i].data);
	}
	free(nets);
}

/* ---- steps ---- */

int state_step_clear(struct state_store *st, const char *id, struct diag *d)
{
	return done(st, prep(st, d, "DELETE FROM step WHERE infra_id = ?", "s", id), d);
}

int state_step_set(struct state_store *st, const char *id, const struct state_step *s, struct diag *d)
{
	return done(st, prep(st, d,
		"INSERT OR REPLACE INTO step (infra_id, step, vm, configure, status, started, ended, error)"
		" VALUES (?,?,?,?,?,?,?,?)", "siisidds", id, s->step, s->vm, s->configure, (int)s->status,
		s->started, s->ended, s->error), d);
}

int state_step_mark(struct state_store *st, const char *id, int step, int vm, enum step_status status,
		    const char *error, struct diag *d)
{
	double t = now();
	if (status == STEP_RUNNING)
		return done(st, prep(st, d, "UPDATE step SET status = ?, started = ? WHERE infra_id = ?"
				     " AND step = ? AND vm = ?", "idsii", (int)status, t, id, step, vm), d);
	return done(st, prep(st, d, "UPDATE step SET status = ?, ended = ?, error = ?,"
			     " started = CASE WHEN started = 0 THEN ? ELSE started END"
			     " WHERE infra_id = ? AND step = ? AND vm = ?", "idsdsii", (int)status,
			     t, error, t, id, step, vm), d);
}

int state_step_list(struct state_store *st, const char *id, struct state_step **steps, size_t *n, struct diag *d)
{
	*steps = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, d, "SELECT step, vm, configure, status, started, ended, error FROM step"
			       " WHERE infra_id = ? ORDER BY step, vm, configure", "s", id);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*steps = xreallocarray(*steps, *n + 1, sizeof(**steps));
		struct state_step *p = &(*steps)[(*n)++];
		p->step = sqlite3_column_int(s, 0);
		p->vm = sqlite3_column_int(s, 1);
		p->configure = col_str(s, 2);
		p->status = (enum step_status)sqlite3_column_int(s, 3);
		p->started = sqlite3_column_double(s, 4);
		p->ended = sqlite3_column_double(s, 5);
		p->error = col_str(s, 6);
	}
	sqlite3_finalize(s);
	return 0;
}

void state_step_list_free(struct state_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(steps[i].configure);
		free(steps[i].error);
	}
	free(steps);
}

int state_task_add(struct state_store *st, const char *id, int vm, int step, const char *task,
		   const char *status, const char *msg, struct diag *d)
{
	char *safe = msg ? redact(msg) : NULL;
	int rc = done(st, prep(st, d, "INSERT INTO task_result (infra_id, vm, step, task, status, msg, at)"
			       " VALUES (?,?,?,?,?,?,?)", "siisssd", id, vm, step, task, status, safe, now()), d);
	free(safe);
	return rc;
}

/* ---- logs ---- */

int state_log_add(struct state_store *st, const char *id, int vm, const char *text, struct diag *d)
{
	char *safe = redact(text);
	int rc = done(st, prep(st, d, "INSERT INTO log (infra_id, vm, at, text) VALUES (?,?,?,?)", "sids",
			       id, vm, now(), safe), d);
	free(safe);
	return rc;
}

int state_log_get(struct state_store *st, const char *id, int vm, struct strbuf *out, struct diag *d)
{
	sqlite3_stmt *s = vm == -2
		? prep(st, d, "SELECT at, vm, text FROM log WHERE infra_id = ? ORDER BY seq", "s", id)
		: prep(st, d, "SELECT at, vm, text FROM log WHERE infra_id = ? AND vm = ? ORDER BY seq", "si", id, vm);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		time_t t = (time_t)sqlite3_column_double(s, 0);
		struct tm tm;
		char ts[32];
		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
		const char *text = (const char *)sqlite3_column_text(s, 2);
		if (vm == -2 && sqlite3_column_int(s, 1) >= 0)
			strbuf_addf(out, "%s: VM %d: %s", ts, sqlite3_column_int(s, 1), text ? text : "");
		else
			strbuf_addf(out, "%s: %s", ts, text ? text : "");
		if (!out->len || out->buf[out->len - 1] != '\n')
			strbuf_addch(out, '\n');
	}
	sqlite3_finalize(s);
	return 0;
}

int state_log_each_since(struct state_store *st, const char *id, long long *seq,
			 void (*fn)(void *opaque, int vm, const char *text), void *opaque, struct diag *d)
{
	sqlite3_stmt *s = prep(st, d, "SELECT seq, vm, text FROM log WHERE infra_id = ? AND seq > ? ORDER BY seq",
			       "sl", id, *seq);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*seq = sqlite3_column_int64(s, 0);
		const char *text = (const char *)sqlite3_column_text(s, 2);
		fn(opaque, sqlite3_column_int(s, 1), text ? text : "");
	}
	sqlite3_finalize(s);
	return 0;
}

/* ---- outputs ---- */

int state_output_set(struct state_store *st, const char *id, const char *name, const char *path,
		     const char *value, struct diag *d)
{
	return done(st, prep(st, d, "INSERT OR REPLACE INTO output (infra_id, name, path, value) VALUES (?,?,?,?)",
			     "ssss", id, name, path, value), d);
}

int state_output_list(struct state_store *st, const char *id, struct state_output **outs, size_t *n,
		      struct diag *d)
{
	*outs = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, d, "SELECT name, path, value FROM output WHERE infra_id = ? ORDER BY name", "s", id);
	if (!s)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		*outs = xreallocarray(*outs, *n + 1, sizeof(**outs));
		struct state_output *o = &(*outs)[(*n)++];
		o->name = col_str(s, 0);
		o->path = col_str(s, 1);
		o->value = col_str(s, 2);
	}
	sqlite3_finalize(s);
	return 0;
}

void state_output_list_free(struct state_output *outs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(outs[i].name);
		free(outs[i].path);
		free(outs[i].value);
	}
	free(outs);
}

/* ---- locking and workers ---- */

int state_lock_infra(struct state_store *st, const char *id, bool wait, int *fd, struct diag *d)
{
	*fd = -1;
	char *dir = state_infra_dir(st, id, d);
	if (!dir)
		return -1;
	char *path = xasprintf("%s/lock", dir);
	free(dir);
	int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (f < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open lock '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	while (flock(f, wait ? LOCK_EX : LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR && wait)
			continue;
		int e = errno;
		close(f);
		if (e == EWOULDBLOCK)
			return 1;
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot lock infrastructure '%s': %s", id, strerror(e));
		return -1;
	}
	*fd = f;
	return 0;
}

void state_unlock_infra(int fd)
{
	if (fd >= 0)
		close(fd);
}

long long state_proc_start_time(pid_t pid)
{
	if (pid <= 0)
		return -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name (field 2) may hold spaces and ')': skip to the last ')' */
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	p++;
	/* fields from 3 on; starttime is field 22 */
	int field = 2;
	char state = 0;
	while (*p && field < 22) {
		while (*p == ' ')
			p++;
		field++;
		if (field == 3)
			state = *p;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (field != 22 || state == 'Z')
		return -1; /* a zombie is dead */
	return strtoll(p, NULL, 10);
}

bool state_worker_alive(pid_t pid, long long start)
{
	if (pid <= 0)
		return false;
	long long t = state_proc_start_time(pid);
	return t >= 0 && t == start;
}
