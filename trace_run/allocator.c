/*
 * allocator.c - finding allocator libraries and checking which one is live
 * (see allocator.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "allocator.h"
#include "trace_format.h"

static const struct {
	const char *name, *soname, *package;
} known[] = {
	{ "jemalloc", "libjemalloc.so.2", "libjemalloc2" },
	{ "tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4" },
	{ "mimalloc", "libmimalloc.so.2", "libmimalloc2.0" },
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *slash = strrchr(info->dlpi_name, '/');
	if (!slash || strncmp(slash, "/libc.so", 8))
		return 0;
	snprintf(data, PATH_MAX, "%.*s", (int)(slash - info->dlpi_name), info->dlpi_name);
	return 1;
}

/*
 * Where the Debian package puts soname: the C library's directory, taken
 * under /usr first when the C library was loaded through the /lib link (the
 * package lists the /usr path).  Returns 0, or -1 with lib set to the path
 * a user should expect.
 */
static int locate(const char *soname, char *lib, size_t lib_len)
{
	char dir[PATH_MAX] = "/usr/lib", plain[PATH_MAX + 64];
	dl_iterate_phdr(find_libc, dir);
	const char *usr = strncmp(dir, "/lib/", 5) ? "" : "/usr";
	snprintf(lib, lib_len, "%s%s/%s", usr, dir, soname);
	if (!access(lib, R_OK))
		return 0;
	snprintf(plain, sizeof plain, "%s/%s", dir, soname);
	if (*usr && !access(plain, R_OK)) {
		snprintf(lib, lib_len, "%s", plain);
		return 0;
	}
	return -1;
}

/*
 * Whether the dynamic loader can preload path: otherwise it prints its own
 * complaint and carries on without it, and the user gets two lines for one
 * mistake.  Tried by running "trace_run --version" with path in LD_PRELOAD
 * and the loader's complaint, if any, caught: dlopen would be no test, as
 * allocators with initial-exec TLS (jemalloc) can be preloaded but not
 * opened, and the library's constructors run in that child, not here.
 * Returns 0, or -1 with the loader's reason in why.
 */
static int loadable(const char *path, char *why, size_t why_len)
{
	char msg[512] = "";
	int fds[2], status;
	if (pipe(fds)) {
		snprintf(why, why_len, "%s: pipe: %s", path, strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(fds[1], 2);
		setenv("LD_PRELOAD", path, 1);
		execl("/proc/self/exe", "trace_run", "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t len = 0;
	ssize_t n;
	while (pid > 0 && len < sizeof msg - 1 && (n = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	msg[len] = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		snprintf(why, why_len, "%s: cannot try preloading it: %s", path, strerror(errno));
		return -1;
	}
	if (!len && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	/* "ERROR: ld.so: object 'P' from LD_PRELOAD cannot be preloaded (WHY): ignored." */
	char *from = strstr(msg, "preloaded ("), *to;
	if (from && (to = strstr(from, "): ignored")))
		*to = 0, from += strlen("preloaded (");
	else
		msg[strcspn(msg, "\n")] = 0, from = msg;
	snprintf(why, why_len, "%s: not a library the loader can preload (%s)", path,
		 *from ? from : "it exits with an error");
	return -1;
}

/* NAME's library ("" for glibc): 0, or the exit status with why, as
 * rt_allocator_check says. */
static int resolve(const char *name, char *lib, size_t lib_len, char *why, size_t why_len)
{
	if (!strcmp(name, "glibc")) {
		lib[0] = 0;
		return 0;
	}
	if (strchr(name, '/')) {
		snprintf(lib, lib_len, "%s", name);
		if (access(lib, R_OK)) {
			snprintf(why, why_len, "%s: not found", name);
			return 1;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcmp(name, known[i].name))
			continue;
		if (locate(known[i].soname, lib, lib_len) == 0)
			return 0;
		snprintf(why, why_len, "%s: %s: not found (install the %s package)", name, lib,
			 known[i].package);
		return 1;
	}
	snprintf(why, why_len, "%s: unknown allocator (glibc, jemalloc, tcmalloc, mimalloc, "
		 "or a library path containing '/')", name);
	return 2;
}

/* The usage errors first: --allocator and --compare then give one exit
 * status to a command line wrong in both ways, and the loader is tried
 * only for a replay that could run. */
int rt_allocator_check(const char *name, int tuned, int in_compare, int probe, char *lib,
		       size_t lib_len, char *why, size_t why_len)
{
	int status = resolve(name, lib, lib_len, why, why_len);
	if (status)
		return status;
	if (*lib && tuned) {
		snprintf(why, why_len, in_compare ? "-o sets glibc's malloc, which %s in --compare replaces"
						  : "-o sets glibc's malloc, which --allocator=%s replaces",
			 name);
		return 2;
	}
	return probe && *lib && loadable(lib, why, why_len) ? 1 : 0;
}

static const char *origin(const char *symbol)
{
	Dl_info info;
	void *sym = dlsym(RTLD_DEFAULT, symbol);
	if (sym && dladdr(sym, &info) && info.dli_fname)
		return info.dli_fname;
	return "unknown";
}

const char *rt_malloc_origin(void)
{
	return origin("malloc");
}

int rt_malloc_is_libc(void)
{
	const char *path = rt_malloc_origin(), *slash = strrchr(path, '/');
	return !strncmp(slash ? slash + 1 : path, "libc.so", 7);
}

/* Whether the loaded object named as in LD_PRELOAD defines malloc itself
 * (dlsym on its handle also searches its dependencies, the C library
 * among them, so the answer is checked against the object's own path). */
static int defines_malloc(const char *name)
{
	void *h = dlopen(name, RTLD_NOLOAD | RTLD_LAZY);
	struct link_map *map;
	Dl_info info;
	int own = 0;
	if (!h)
		return 0;
	void *sym = dlsym(h, "malloc");
	if (sym && dladdr(sym, &info) && info.dli_fname && !dlinfo(h, RTLD_DI_LINKMAP, &map))
		own = !strcmp(info.dli_fname, map->l_name);
	dlclose(h);
	return own;
}

int rt_allocator_unpreload(void)
{
	const char *old = getenv("LD_PRELOAD");
	char list[PATH_MAX * 4], kept[PATH_MAX * 4] = "", *save;
	int dropped = 0;
	if (!old || snprintf(list, sizeof list, "%s", old) >= (int)sizeof list)
		return 0;
	/* ld.so(8): the entries are separated by colons or spaces */
	for (char *s = strtok_r(list, ": ", &save); s; s = strtok_r(NULL, ": ", &save)) {
		if (defines_malloc(s)) {
			dropped++;
			continue;
		}
		size_t len = strlen(kept);
		snprintf(kept + len, sizeof kept - len, "%s%s", len ? ":" : "", s);
	}
	if (dropped && *kept)
		setenv("LD_PRELOAD", kept, 1);
	else if (dropped)
		unsetenv("LD_PRELOAD");
	return dropped;
}

unsigned rt_allocator_foreign(void)
{
	static const struct {
		unsigned call;
		const char *symbol;
	} entries[] = {
		{ MT_CALL_REALLOCARRAY, "reallocarray" },
		{ MT_CALL_MEMALIGN, "memalign" },
		{ MT_CALL_POSIX_MEMALIGN, "posix_memalign" },
		{ MT_CALL_ALIGNED_ALLOC, "aligned_alloc" },
		{ MT_CALL_VALLOC, "valloc" },
		{ MT_CALL_PVALLOC, "pvalloc" },
		{ MT_CALL_FREE_SIZED, "free_sized" },
		{ MT_CALL_FREE_ALIGNED_SIZED, "free_aligned_sized" },
	};
	unsigned mask = 0;
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		if (!rt_allocator_own(entries[i].symbol))
			mask |= 1u << entries[i].call;
	return mask;
}

int rt_allocator_own(const char *symbol)
{
	char mine[PATH_MAX];
	snprintf(mine, sizeof mine, "%s", rt_malloc_origin());
	return !strcmp(origin(symbol), mine);
}
