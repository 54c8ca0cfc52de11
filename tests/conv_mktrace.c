/*
 * conv_mktrace.c - write a trace from a readable script, so each converter
 * test states its input calls, with their threads and timestamps, next to
 * the workload it expects.
 *
 * Usage: conv_mktrace OUT.mtrace < SCRIPT.  One call per line:
 *   TID TS CALL ARGS... [= PTR|NULL]      ('#' starts a comment)
 * ARGS are as in C (PTR may be NULL), TS in nanoseconds:
 *   1 100 malloc 24 = 0x1000
 *   2 150 realloc 0x1000 48 = 0x2000
 *   2 160 posix_memalign 64 100 = NULL
 *   1 170 free 0x2000
 *   1 180 event 1
 * Records go through mt_trace_writer in script order, so a thread's records
 * are in its own line order whatever the timestamps say.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static unsigned long lineno;

static void die(const char *what)
{
	fprintf(stderr, "conv_mktrace: line %lu: %s\n", lineno, what);
	exit(1);
}

static uint64_t number(const char *tok)
{
	if (!tok)
		die("missing argument");
	if (strcmp(tok, "NULL") == 0)
		return 0;
	char *end;
	uint64_t v = strtoull(tok, &end, 0);
	if (*end)
		die("not a number");
	return v;
}

static unsigned call_of(const char *name)
{
	for (unsigned c = MT_CALL_MALLOC; c < MT_CALL_COUNT; c++)
		if (strcmp(name, mt_call_name(c)) == 0)
			return c;
	die("unknown call");
	return 0;
}

/* Fills r from the tokens after TID and TS. */
static void parse_call(char **tok, int n, struct mt_rec *r)
{
	int i = 0;
	r->call = (uint8_t)call_of(tok[i++]);
	if (r->call == MT_CALL_EVENT) {
		r->event = (uint32_t)number(tok[i]);
		return;
	}
	if (mt_call_has_in(r->call)) {
		r->ptr_in = number(tok[i++]);
		if (!r->ptr_in)
			r->flags |= MT_RF_NULL_IN;
	}
	if (mt_call_has_align(r->call))
		r->align = number(i < n ? tok[i++] : NULL);
	if (mt_call_has_nmemb(r->call))
		r->nmemb = number(i < n ? tok[i++] : NULL);
	if (r->call != MT_CALL_FREE)
		r->size = number(i < n ? tok[i++] : NULL);
	if (!mt_call_allocates(r->call))
		return;
	if (i + 2 != n || strcmp(tok[i], "=") != 0)
		die("an allocating call needs '= PTR' or '= NULL'");
	r->ptr_out = number(tok[i + 1]);
	if (!r->ptr_out) {
		r->flags |= MT_RF_NULL_OUT;
		r->rc = r->call == MT_CALL_POSIX_MEMALIGN ? 12 : 0;
	} else {
		r->usable = mt_rec_requested(r);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: conv_mktrace OUT.mtrace < SCRIPT\n");
		return 2;
	}
	struct mt_error e;
	struct mt_trace_info info = { .pid = 4242, .ts_freq = 1000000000u,
				      .ts_source = MT_TS_MONOTONIC_NS };
	strcpy(info.exe, "/usr/bin/conv_mktrace-script");
	struct mt_trace_writer *w = mt_trace_writer_open(argv[1], &info, 0, &e);
	if (!w) {
		mt_error_print("conv_mktrace", &e);
		return 1;
	}
	char line[1024];
	while (fgets(line, sizeof line, stdin)) {
		lineno++;
		char *tok[16], *save;
		int n = 0;
		for (char *t = strtok_r(line, " \t\n", &save); t && n < 16 && *t != '#';
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		if (!n)
			continue;
		if (n < 3)
			die("expected TID TS CALL ...");
		struct mt_rec r = { .ts = number(tok[1]) };
		parse_call(tok + 2, n - 2, &r);
		if (mt_trace_writer_add(w, (uint32_t)number(tok[0]), &r, &e) < 0) {
			mt_error_print("conv_mktrace", &e);
			return 1;
		}
	}
	if (mt_trace_writer_close(w, 0, &e) < 0) {
		mt_error_print("conv_mktrace", &e);
		return 1;
	}
	return 0;
}
