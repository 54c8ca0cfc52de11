/*
 * diag_logimport - runs mt_log_import on one log, so the shell tests can
 * check the importer (and its one-line errors) without depending on
 * trace2wl, which is another part's program.
 *
 * Usage: diag_logimport LOG TRACE     prints the sniffed kind, then imports
 */
#include "config.h"

#include <stdio.h>

#include "log_import.h"

static const char *kind_name(enum mt_log_kind k)
{
	return k == MT_LOG_MALLOC_LOG ? "malloc-log" : k == MT_LOG_GLIBC_MTRACE ? "mtrace"
	     : k == MT_LOG_TEXT ? "text" : "none";
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: diag_logimport LOG TRACE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (f) {
		uint8_t head[4096];
		size_t n = fread(head, 1, sizeof head, f);
		fclose(f);
		printf("%s\n", kind_name(mt_log_sniff(head, n)));
	}
	struct mt_error e;
	if (mt_log_import(argv[1], argv[2], &e)) {
		mt_error_print("diag_logimport", &e);
		return 1;
	}
	return 0;
}
