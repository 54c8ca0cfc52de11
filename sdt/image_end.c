/*
 * image_end.c - finish the trace when the process image ends without
 * running destructors: exec, _exit and _Exit.
 *
 * Without this every program that execs (shell wrappers, env, pyenv
 * shims...) or leaves through _exit (shells, forked children) would leave
 * a trace whose header was never completed and whose windows were never
 * closed.  _exit stops the recording; exec seals the trace first, an
 * exec'd image starts its own file (PREFIX.PID.2...), and after a failed
 * exec recording goes on in the same file.  glibc's exec functions call
 * each other internally, not through the PLT, so each is wrapped.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <unistd.h>

#include "recorder.h"
#include "visibility.h"


extern char **environ;

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execvpe_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef void exit_fn(int);

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

MT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int was = mt_recorder_exec_begin();
	int rc = ((execve_fn *)next("execve"))(path, argv, envp);
	mt_recorder_exec_failed(was);
	return rc;
}

MT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int was = mt_recorder_exec_begin();
	int rc = ((execvpe_fn *)next("execvpe"))(file, argv, envp);
	mt_recorder_exec_failed(was);
	return rc;
}

MT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int was = mt_recorder_exec_begin();
	int rc = ((fexecve_fn *)next("fexecve"))(fd, argv, envp);
	mt_recorder_exec_failed(was);
	return rc;
}

MT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

MT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list forms: count the arguments, then build argv on the stack. */
static size_t count_args(va_list ap)
{
	va_list c;
	size_t n = 1;
	va_copy(c, ap);
	while (va_arg(c, char *))
		n++;
	va_end(c);
	return n;
}

/* argv[0..n], the last being the terminating NULL. */
static void fill_args(char **argv, const char *arg0, size_t n, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

/* Declares `argv` (on the stack) holding arg0 and the arguments after it,
 * and leaves `ap` just past their NULL, open, for execle's envp. */
#define ARGV_FROM_LIST(arg0)                 \
	va_list ap;                          \
	va_start(ap, arg0);                  \
	size_t nargs_ = count_args(ap);      \
	char *argv[nargs_ + 1];              \
	fill_args(argv, arg0, nargs_, &ap)

MT_EXPORT int execl(const char *path, const char *arg, ...)
{
	ARGV_FROM_LIST(arg);
	va_end(ap);
	return execve(path, argv, environ);
}

MT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	ARGV_FROM_LIST(arg);
	va_end(ap);
	return execvpe(file, argv, environ);
}

MT_EXPORT int execle(const char *path, const char *arg, ...)
{
	ARGV_FROM_LIST(arg);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

MT_EXPORT void _exit(int status)
{
	mt_recorder_image_end();
	((exit_fn *)next("_exit"))(status);
	__builtin_unreachable();
}

MT_EXPORT void _Exit(int status)
{
	mt_recorder_image_end();
	((exit_fn *)next("_Exit"))(status);
	__builtin_unreachable();
}
