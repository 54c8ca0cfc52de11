/*
 * rec_config.c - see rec_config.h.  Runs in library constructors and in
 * mtrace_start, so it uses only getenv/unsetenv (no allocation) and the
 * stdio-free messages of rec_text.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_config.h"
#include "rec_text.h"

/* A 0-or-1 variable: 1 when set to 1; a bad value is said, with what
 * happens instead (`otherwise`), and reads as 0. */
static int load_flag(const char *name, const char *otherwise)
{
	const char *v = getenv(name);
	if (!v || strcmp(v, "0") == 0)
		return 0;
	if (strcmp(v, "1") == 0)
		return 1;
	mt_say(MT_SAY_ERROR, name, " must be 0 or 1, not '", v, "'; ", otherwise, NULL);
	return 0;
}

static void load_prefix(struct mt_config *c)
{
	const char *v = getenv("MTRACE_CTL_FILE");
	if (v && !*v) {
		mt_say(MT_SAY_ERROR, "MTRACE_CTL_FILE is empty; using ", MT_DEFAULT_PREFIX, NULL);
		v = NULL;
	} else if (v && strlen(v) >= MT_PREFIX_MAX) {
		mt_say(MT_SAY_ERROR, "MTRACE_CTL_FILE is too long; using ", MT_DEFAULT_PREFIX, NULL);
		v = NULL;
	}
	strcpy(c->prefix, v ? v : MT_DEFAULT_PREFIX);
}

/* Decimal pid, or 0 when s is not one. */
static pid_t parse_pid(const char *s)
{
	long v = 0;
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return 0;
		v = v * 10 + (*s - '0');
	}
	return (pid_t)v;
}

/* Stays in the environment: every image and child must see it. */
static void load_only(struct mt_config *c)
{
	const char *v = getenv("MTRACE_RECORD_ONLY");
	c->only_pid = 0;
	if (!v)
		return;
	c->only_pid = parse_pid(v);
	if (!c->only_pid)
		mt_say(MT_SAY_ERROR, "MTRACE_RECORD_ONLY must be a process id, not '", v,
		       "'; every process records", NULL);
}

static void load_list(struct mt_config *c)
{
	const char *v = getenv("MTRACE_RECORD_LIST");
	c->list[0] = 0;
	if (!v)
		return;
	if (!*v || strlen(v) >= sizeof c->list)
		mt_say(MT_SAY_ERROR, "MTRACE_RECORD_LIST is empty or too long; ignored", NULL);
	else
		strcpy(c->list, v);
}

void mt_config_load(struct mt_config *c)
{
	mt_quiet = load_flag("MTRACE_CTL_QUIET", "messages stay on");
	c->glibc_events = load_flag("MTRACE_GLIBC_EVENTS", "no glibc events in the trace");
	c->precise_time = load_flag("MTRACE_PRECISE_TIME",
				    "a record may carry an earlier record's time");
	load_prefix(c);
	load_only(c);
	load_list(c);
}
