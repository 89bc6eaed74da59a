/* local-name.c: the deterministic naming scheme of the local backend (so
 * cleanup can find what a crashed process created, see local.h) and the
 * small file helpers (rm -r, atomic-mode file writes, locks,
 * IPv4 text) its other files share. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/xalloc.h"
#include "util/banned.h"

int local_tag(const char *infra_id, char tag[LOCAL_TAG_LEN + 1], struct diag *d)
{
	size_t n = 0;
	for (const char *p = infra_id ? infra_id : ""; *p && n < LOCAL_TAG_LEN; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p))
			break;
		tag[n++] = (char)tolower((unsigned char)*p);
	}
	tag[n] = '\0';
	if (n < LOCAL_TAG_LEN) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL,
			   "infrastructure id '%s' does not start with 8 hex digits",
			   infra_id ? infra_id : "");
		return -1;
	}
	return 0;
}

char *local_netns_name(const char *tag, int num)
{
	return xasprintf("imc-%s-%d", tag, num);
}

void local_bridge_name(const char *tag, unsigned h, char out[LOCAL_IFNAMSIZ])
{
	snprintf(out, LOCAL_IFNAMSIZ, "imc%s-%03x", tag, h & 0xfff);
}

static char b36(int v)
{
	return "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
}

void local_veth_prefix(const char *tag, int num, char out[LOCAL_IFNAMSIZ])
{
	snprintf(out, LOCAL_IFNAMSIZ, "imc%s%c%c%c", tag, b36(num / 1296), b36(num / 36),
		 b36(num));
}

void local_veth_name(const char *tag, int num, int nic, char out[LOCAL_IFNAMSIZ])
{
	snprintf(out, LOCAL_IFNAMSIZ, "imc%s%c%c%c%c", tag, b36(num / 1296), b36(num / 36),
		 b36(num), b36(nic));
}

char *local_vm_dir(const struct local_ctx *c, int num)
{
	return xasprintf("%s/vm/%d", c->infra_dir, num);
}

/* A word safe to put in a file line, a hosts entry or a name: letters,
 * digits, '-', '_', '.', not starting with '.' or '-'. */
bool local_valid_word(const char *s, size_t max)
{
	if (!s || !*s || strlen(s) > max || s[0] == '.' || s[0] == '-')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

unsigned local_hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

int local_rmtree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = xasprintf("%s/%s", path, de->d_name);
		if (local_rmtree(sub) < 0)
			ret = -1;
		free(sub);
	}
	closedir(dir);
	if (rmdir(path) < 0 && errno != ENOENT)
		ret = -1;
	return ret;
}

static int write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int local_write_file(const char *path, const char *data, size_t len, mode_t mode,
		     struct diag *d)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot replace '%s': %s", path,
			   strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path,
			   strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	if (close(fd) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path,
			   strerror(errno));
		return -1;
	}
	return 0;
}

int local_rewrite_file(const char *path, const char *data, size_t len, struct diag *d)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 0) < 0 || write_all(fd, data, len) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path,
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int local_lock(const char *path, struct diag *d)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot open lock '%s': %s", path,
			   strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void local_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

char *local_ip_str(uint32_t ip)
{
	return xasprintf("%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

int local_parse_cidr(const char *s, uint32_t *base, int *prefix)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	struct in_addr a;
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	int p = 32;
	if (slash) {
		char *end;
		long v = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || (*end && !isspace((unsigned char)*end)) || v < 0 || v > 32)
			return -1;
		p = (int)v;
	}
	uint32_t ip = ntohl(a.s_addr);
	uint32_t mask = p == 0 ? 0 : 0xffffffffu << (32 - p);
	*base = ip & mask;
	*prefix = p;
	return 0;
}
