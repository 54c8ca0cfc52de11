/*
 * report_export.c - mtrace-report --export: traces as tables that DuckDB,
 * Spark or Trino query, for the questions of a fleet rather than one
 * process (docs/FORMAT.md, "Table export, version 1"; docs/FLEET.md).
 *
 * Four tables, each partitioned the Hive way so the exports of many hosts
 * copied into one tree make one table:
 *   DIR/calls/host=H/pid=P/part-NNNN.csv.gz      one row per record
 *   DIR/blocks/host=H/pid=P/part-NNNN.csv.gz     one row per allocation
 *   DIR/stacks/host=H/pid=P/part-NNNN.csv.gz     one row per symbolised frame
 *   DIR/processes/host=H/pid=P/part-NNNN.csv.gz  one row per trace
 * host and pid are the partition columns, in the path and not in the
 * files (Spark refuses a column that is in both).
 *
 * One walk in time order through lib/'s merge writes calls and blocks as
 * it goes: memory is the live set and the symbolised stacks, as for the
 * report.  A realloc that moves or keeps a block ends the old block's row
 * (free_op "realloc") and starts a new one (alloc_op "realloc") at the
 * same time and thread, so every row is one address's life.  Several
 * traces are exported by up to --jobs forked children at once.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv_gz.h"
#include "report.h"
#include "tool_output.h"
#include "report_map.h"

#define EXPORT_SCHEMA "malloc-trace-kit table export, version 1\n"

static const char *prog = "mtrace-report";

static const char calls_header[] =
	"tid,seq,ts_ns,op,size,alignment,ptr,result,usable,stack_id";
static const char blocks_header[] =
	"ptr,alloc_tid,free_tid,alloc_seq,free_seq,alloc_ts_ns,free_ts_ns,size,usable,stack_id,alloc_op,"
	"free_op";
static const char stacks_header[] = "stack_id,depth,function,file,line,module,build_id,address";
static const char processes_header[] =
	"ppid,exe,build_id,start_time_ns,duration_ns,allocator,complete,stop_reason,calls,threads,"
	"blocks,stacks";

/* free_op of a block whose address was handed out again with no free
 * recorded in between (records lost); its free columns stay empty. */
#define FREE_UNSEEN UINT8_MAX

/* An allocation not yet freed. */
struct live_block {
	uint64_t ptr;        /* the key */
	uint64_t ts_ns, seq, size, usable, stack;
	uint32_t thread;     /* the trace's thread index: x->threads */
	uint8_t call;
};

/* A cell whose text is known before the row (a call's name, a thread's
 * tid and seq): rows copy a fixed 24 bytes and advance by len, rather than
 * calling strlen and a memcpy of unknown length (call names: 3.3% of an
 * export's instructions) or formatting the same number again. */
struct cell_text {
	char text[24];
	size_t len;
};

/* A number's cell kept for a later row that shows the same number. */
struct kept_number {
	struct cell_text cell; /* len 0 while none is kept */
	uint64_t value;
};

/* A thread's tid, and the seq of its latest record: the next is one more,
 * counted up in the text itself rather than formatted anew. */
struct thread_cells {
	struct cell_text tid;
	struct kept_number seq;
};

struct exporter {
	const struct mt_trace *t;
	const struct mt_trace_info *in;
	struct csv_gz calls, blocks;
	struct u64map live;  /* struct live_block by address */
	uint64_t nblocks;
	struct cell_text ops[MT_CALL_COUNT + 1]; /* by call; the last for any other */
	struct thread_cells *threads;            /* by thread index */
	/* The record being handled's time and pointer passed in: the blocks
	 * row of the block it ends shows them again. */
	struct kept_number now_ts, now_ptr_in;
};

/* The cells' texts; 0, or -1 when out of memory. */
static int init_cells(struct exporter *x)
{
	for (unsigned c = 0; c <= MT_CALL_COUNT; c++) {
		const char *name = mt_call_name(c);
		struct cell_text *o = &x->ops[c];
		o->len = strlen(name);
		assert(o->len < sizeof o->text);
		memcpy(o->text, name, o->len);
	}
	size_t n = mt_trace_threads(x->t);
	if (!(x->threads = calloc(n ? n : 1, sizeof *x->threads)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct cell_text *c = &x->threads[i].tid;
		c->len = (size_t)(csv_u64(c->text, mt_trace_thread_tid(x->t, i), ',') - c->text) - 1;
	}
	return 0;
}

/* c's text at p, then sep; p needs 25 bytes. */
static inline char *text_cell(char *p, const struct cell_text *c, char sep)
{
	memcpy(p, c->text, sizeof c->text);
	p[c->len] = sep;
	return p + c->len + 1;
}

/* v's cell at p, then sep, kept in k. */
static inline char *keep_u64(char *p, struct kept_number *k, uint64_t v, char sep)
{
	k->cell.len = (size_t)(csv_u64(k->cell.text, v, ',') - k->cell.text) - 1;
	k->value = v;
	return text_cell(p, &k->cell, sep);
}

/* v's cell at p, then sep: k's text when it holds v. */
static inline char *reuse_u64(char *p, const struct kept_number *k, uint64_t v, char sep)
{
	return k->cell.len && k->value == v ? text_cell(p, &k->cell, sep) : csv_u64(p, v, sep);
}

/* The text of seq, the thread's record being handled. */
static inline const struct cell_text *seq_text(struct thread_cells *c, uint64_t seq)
{
	char *t = c->seq.cell.text;
	size_t i = c->seq.cell.len;
	if (i && seq == c->seq.value + 1) {
		while (i && t[i - 1] == '9')
			t[--i] = '0';
		if (i)
			t[i - 1]++;
	}
	if (!i) /* the first record, a gap, or one digit more */
		c->seq.cell.len = (size_t)(csv_u64(t, seq, ',') - t) - 1;
	c->seq.value = seq;
	return &c->seq.cell;
}

static inline char *op_cell(char *p, const struct exporter *x, unsigned call, char sep)
{
	return text_cell(p, &x->ops[call < MT_CALL_COUNT ? call : MT_CALL_COUNT], sep);
}

/* ---- blocks ---- */

/* One blocks row; free_call 0 for a block still live at the end. */
static void block_row(struct exporter *x, const struct live_block *b, size_t free_thread,
		      uint64_t free_seq, uint64_t free_ts_ns, unsigned free_call)
{
	struct csv_gz *w = &x->blocks;
	int freed = free_call && free_call != FREE_UNSEEN;
	char *p = csv_gz_room(w, 10 * CSV_GZ_CELL_MAX + 64);
	p = reuse_u64(p, &x->now_ptr_in, b->ptr, ',');
	p = text_cell(p, &x->threads[b->thread].tid, ',');
	p = freed ? text_cell(p, &x->threads[free_thread].tid, ',') : csv_null(p, ',');
	p = csv_u64(p, b->seq, ',');
	/* a block ends at the record being handled, whose seq is its thread's */
	assert(!freed || x->threads[free_thread].seq.value == free_seq);
	p = freed ? text_cell(p, &x->threads[free_thread].seq.cell, ',') : csv_null(p, ',');
	p = csv_u64(p, b->ts_ns, ',');
	p = freed ? reuse_u64(p, &x->now_ts, free_ts_ns, ',') : csv_null(p, ',');
	p = csv_u64(p, b->size, ',');
	p = csv_u64(p, b->usable, ',');
	p = b->stack ? csv_u64(p, b->stack, ',') : csv_null(p, ',');
	p = op_cell(p, x, b->call, ',');
	if (free_call == FREE_UNSEEN) {
		memcpy(p, "unseen\n", 7);
		p += 7;
	} else {
		p = free_call ? op_cell(p, x, free_call, '\n') : csv_null(p, '\n');
	}
	csv_gz_advance(w, p);
	csv_gz_end_row(w);
	x->nblocks++;
}

static void release(struct exporter *x, uint64_t ptr, size_t thread, uint64_t seq, uint64_t ts_ns,
		    unsigned call)
{
	struct live_block *b = u64map_find(&x->live, ptr);
	if (!b)
		return; /* allocated before the recording started: no row */
	block_row(x, b, thread, seq, ts_ns, call);
	u64map_remove(&x->live, b);
}

/* The life of blocks, as report_analyse.c's step() sees it; 0 or -1 when
 * out of memory. */
static int track(struct exporter *x, const struct mt_rec *r, size_t thread, uint64_t seq,
		 uint64_t ts_ns)
{
	int frees_in = mt_call_has_in(r->call) && !(r->flags & MT_RF_NULL_IN);
	/* realloc that fails keeps the old block; realloc(p, 0) returning NULL freed it. */
	if (frees_in && (mt_call_allocates(r->call) ? !(r->flags & MT_RF_NULL_OUT) || !r->size : 1))
		release(x, r->ptr_in, thread, seq, ts_ns, r->call);
	if (!mt_call_allocates(r->call) || r->flags & MT_RF_NULL_OUT)
		return 0;
	int added;
	struct live_block *b = u64map_add(&x->live, r->ptr_out, &added);
	if (!b)
		return -1;
	if (!added)
		block_row(x, b, 0, 0, 0, FREE_UNSEEN);
	*b = (struct live_block){ .ptr = r->ptr_out, .ts_ns = ts_ns, .seq = seq, .size = mt_rec_requested(r),
				  .usable = r->usable, .stack = r->stack, .thread = (uint32_t)thread,
				  .call = r->call };
	return 0;
}

/* ---- calls ---- */

static void call_row(struct exporter *x, const struct mt_rec *r, size_t thread, uint64_t seq,
		     uint64_t ts_ns)
{
	struct csv_gz *w = &x->calls;
	char *p = csv_gz_room(w, 10 * CSV_GZ_CELL_MAX + 64);
	unsigned f = mt_call_field_set(r->call);
	int out = (f & MT_FIELD_OUT) && !(r->flags & MT_RF_NULL_OUT);
	p = text_cell(p, &x->threads[thread].tid, ',');
	p = text_cell(p, seq_text(&x->threads[thread], seq), ',');
	p = keep_u64(p, &x->now_ts, ts_ns, ',');
	if (r->call == MT_CALL_EVENT) { /* rare: glibc's events */
		const char *event = mt_event_name(r->event);
		size_t n = strlen(event);
		memcpy(p, event, n);
		p[n] = ',';
		p += n + 1;
	} else {
		p = op_cell(p, x, r->call, ',');
	}
	p = f & MT_FIELD_SIZE ? csv_u64(p, mt_rec_requested(r), ',') : csv_null(p, ',');
	p = f & MT_FIELD_ALIGN ? csv_u64(p, r->align, ',') : csv_null(p, ',');
	p = f & MT_FIELD_IN && !(r->flags & MT_RF_NULL_IN) ? keep_u64(p, &x->now_ptr_in, r->ptr_in, ',')
							    : csv_null(p, ',');
	p = out ? csv_u64(p, r->ptr_out, ',') : csv_null(p, ',');
	p = out ? csv_u64(p, r->usable, ',') : csv_null(p, ',');
	p = r->stack ? csv_u64(p, r->stack, '\n') : csv_null(p, '\n');
	csv_gz_advance(w, p);
	csv_gz_end_row(w);
}

/* Records read ahead of the one being handled: their live-set slots are
 * prefetched, so a big program's live set (far larger than the caches)
 * costs one wait on memory per LOOKAHEAD records rather than one each. */
#define LOOKAHEAD 16

struct pending {
	struct mt_rec r;
	size_t thread;
	uint64_t seq;
};

/* The slots track() will touch for r. */
static void prefetch_blocks(const struct exporter *x, const struct mt_rec *r)
{
	if (r->call == MT_CALL_EVENT)
		return;
	if (mt_call_has_in(r->call) && !(r->flags & MT_RF_NULL_IN))
		u64map_prefetch(&x->live, r->ptr_in);
	if (mt_call_allocates(r->call) && !(r->flags & MT_RF_NULL_OUT))
		u64map_prefetch(&x->live, r->ptr_out);
}

/* One record into calls and blocks; 0 or -1 when out of memory. */
static int handle(struct exporter *x, struct mt_rec *r, size_t thread, uint64_t seq)
{
	uint64_t ns = trace_ns(x->in, r->ts);
	if (r->stack && !mt_trace_stack_find(x->t, r->stack))
		r->stack = 0; /* as the report: a stack the table lacks is unknown */
	call_row(x, r, thread, seq, ns);
	return r->call != MT_CALL_EVENT ? track(x, r, thread, seq, ns) : 0;
}

/* Every record in time order into calls and blocks; 0 or -1 with e set. */
static int walk(struct exporter *x, struct mt_error *e)
{
	struct mt_trace_merge *m = mt_trace_merge_open(x->t);
	if (!m)
		return mt_error_set(e, mt_trace_path(x->t), "out of memory");
	struct pending ahead[LOOKAHEAD];
	size_t first = 0, count = 0;
	int rc = 1;
	for (;;) {
		while (rc == 1 && count < LOOKAHEAD) {
			struct pending *p = &ahead[(first + count) % LOOKAHEAD];
			rc = mt_trace_merge_next(m, &p->r, &p->thread, &p->seq, e);
			if (rc == 1) {
				prefetch_blocks(x, &p->r);
				count++;
			}
		}
		if (!count)
			break;
		struct pending *p = &ahead[first];
		first = (first + 1) % LOOKAHEAD;
		count--;
		if (handle(x, &p->r, p->thread, p->seq)) {
			rc = mt_error_set(e, mt_trace_path(x->t), "out of memory");
			break;
		}
	}
	mt_trace_merge_close(m);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < x->live.cap; i++) {
		const struct live_block *b = u64map_slot(&x->live, i);
		if (b)
			block_row(x, b, 0, 0, 0, 0);
	}
	return 0;
}

/* ---- stacks and processes ---- */

/* Lower-case hex of a build-id; "" when there is none. */
static const char *hex(char *out, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;
	for (i = 0; i < n && i < 64; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * i] = 0;
	return out;
}

static void stack_rows(struct csv_gz *w, const struct mt_trace *t, struct symbols *s)
{
	char id[129];
	for (size_t i = 0; i < mt_trace_stack_count(t); i++) {
		const struct mt_trace_stack *st = mt_trace_stack_at(t, i);
		size_t n;
		const struct frame *f = symbols_stack(s, st->id, &n);
		for (size_t d = 0; d < n; d++) {
			const struct mt_trace_module *m =
				mt_trace_module_find(t, st->generation, f[d].address);
			char *p = csv_gz_room(w, 2 * CSV_GZ_CELL_MAX);
			p = csv_u64(p, st->id, ',');
			csv_gz_advance(w, csv_u64(p, d, ','));
			csv_gz_string(w, f[d].function, ',');
			csv_gz_string(w, f[d].file, ',');
			p = csv_gz_room(w, CSV_GZ_CELL_MAX);
			csv_gz_advance(w, f[d].line ? csv_u64(p, (uint64_t)f[d].line, ',')
						    : csv_null(p, ','));
			csv_gz_string(w, f[d].module, ',');
			csv_gz_string(w, m && m->build_id_len ? hex(id, m->build_id, m->build_id_len)
							      : NULL,
				      ',');
			csv_gz_advance(w, csv_u64(csv_gz_room(w, CSV_GZ_CELL_MAX), f[d].address, '\n'));
			csv_gz_end_row(w);
		}
	}
}

/* The executable's build-id, from the module map when stacks were recorded. */
static const char *exe_build_id(char *out, const struct mt_trace *t)
{
	const char *exe = mt_trace_get_info(t)->exe;
	for (size_t i = 0; i < mt_trace_module_count(t); i++) {
		const struct mt_trace_module *m = mt_trace_module_at(t, i);
		if (m->build_id_len && strcmp(m->path, exe) == 0)
			return hex(out, m->build_id, m->build_id_len);
	}
	return NULL;
}

static void process_row(struct csv_gz *w, const struct mt_trace *t, uint64_t calls,
			uint64_t blocks)
{
	const struct mt_trace_info *in = mt_trace_get_info(t);
	char id[129];
	int complete = (in->flags & MT_FHF_CLOSED) && in->stop_reason == MT_STOP_NONE;
	csv_gz_advance(w, csv_u64(csv_gz_room(w, CSV_GZ_CELL_MAX), in->ppid, ','));
	csv_gz_string(w, in->exe, ',');
	csv_gz_string(w, exe_build_id(id, t), ',');
	char *p = csv_gz_room(w, 2 * CSV_GZ_CELL_MAX);
	p = csv_u64(p, in->start_realtime_ns, ',');
	/* only a closed trace knows when it ended */
	p = in->flags & MT_FHF_CLOSED && in->end_ts >= in->start_ts ? csv_u64(p, trace_ns(in, in->end_ts), ',')
								     : csv_null(p, ',');
	csv_gz_advance(w, p);
	csv_gz_string(w, mt_allocator_name(in), ',');
	csv_gz_string(w, complete ? "true" : "false", ',');
	csv_gz_string(w, in->stop_reason == MT_STOP_NONE ? NULL : mt_stop_reason_name(in->stop_reason),
		      ',');
	p = csv_gz_room(w, 4 * CSV_GZ_CELL_MAX);
	p = csv_u64(p, calls, ',');
	p = csv_u64(p, mt_trace_threads(t), ',');
	p = csv_u64(p, blocks, ',');
	p = csv_u64(p, mt_trace_stack_count(t), '\n');
	csv_gz_advance(w, p);
	csv_gz_end_row(w);
}

/* ---- one trace ---- */

static char *partition(const char *dir, const char *table, const char *host, uint32_t pid)
{
	char *p;
	return asprintf(&p, "%s/%s/host=%s/pid=%" PRIu32, dir, table, host, pid) < 0 ? NULL : p;
}

/* Opens table's partition of trace t into w; 0, or -1 with e set. */
static int open_table(struct csv_gz *w, const struct mt_trace *t, const char *table,
		      const char *header, const struct report_opts *o, const char *host,
		      struct mt_error *e)
{
	char *dir = partition(o->export_dir, table, host, mt_trace_get_info(t)->pid);
	if (!dir)
		return mt_error_set(e, o->export_dir, "out of memory");
	int rc = csv_gz_open(w, dir, header, o->part_rows, e);
	free(dir);
	return rc;
}

static int export_one(const char *path, const struct report_opts *o, const char *host)
{
	struct mt_trace *t = mt_tool_open_trace(prog, path);
	if (!t)
		return 1;
	struct mt_error e;
	struct exporter *x = calloc(1, sizeof *x);
	struct csv_gz *side = malloc(sizeof *side); /* stacks, then processes */
	struct symbols *s = symbols_open(t);
	int rc = -1;
	if (!x || !side || !s) {
		mt_error_set(&e, path, "out of memory");
		goto out;
	}
	x->t = t;
	x->in = mt_trace_get_info(t);
	if (init_cells(x)) {
		mt_error_set(&e, path, "out of memory");
		goto out;
	}
	u64map_init(&x->live, sizeof(struct live_block));
	if (open_table(&x->calls, t, "calls", calls_header, o, host, &e))
		goto out;
	if (open_table(&x->blocks, t, "blocks", blocks_header, o, host, &e)) {
		csv_gz_close(&x->calls, NULL);
		goto out;
	}
	rc = walk(x, &e);
	rc |= csv_gz_close(&x->calls, rc ? NULL : &e);
	rc |= csv_gz_close(&x->blocks, rc ? NULL : &e);
	u64map_free(&x->live);
	if (rc)
		goto out;
	rc = open_table(side, t, "stacks", stacks_header, o, host, &e);
	if (rc == 0) {
		stack_rows(side, t, s);
		rc = csv_gz_close(side, &e);
	}
	if (rc == 0)
		rc = open_table(side, t, "processes", processes_header, o, host, &e);
	if (rc == 0) {
		process_row(side, t, x->calls.total_rows, x->nblocks);
		rc = csv_gz_close(side, &e);
	}
	if (rc == 0)
		printf("%s: host %s pid %" PRIu32 ": %" PRIu64 " calls, %" PRIu64
		       " blocks, %zu stacks\n",
		       path, host, x->in->pid, x->calls.total_rows, x->nblocks,
		       mt_trace_stack_count(t));
out:
	if (rc)
		mt_error_print(prog, &e);
	symbols_close(s);
	free(side);
	if (x)
		free(x->threads);
	free(x);
	mt_trace_close(t);
	return rc ? 1 : 0;
}

/* ---- the export directory ---- */

/* DIR/_schema says which version of the tables DIR holds; an export never
 * mixes versions in one tree.  0, or -1 after printing why. */
static int check_schema(const char *dir)
{
	char *path;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	if (asprintf(&path, "%s/_schema", dir) < 0)
		return -1;
	int rc = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		char line[256] = "";
		if (!fgets(line, sizeof line, f) || strcmp(line, EXPORT_SCHEMA)) {
			fprintf(stderr, "%s: %s: holds another table schema (%s), not '%.*s'\n", prog,
				path, line[0] ? strtok(line, "\n") : "empty",
				(int)strlen(EXPORT_SCHEMA) - 1, EXPORT_SCHEMA);
			rc = -1;
		}
		fclose(f);
	} else if (!(f = fopen(path, "w")) || fputs(EXPORT_SCHEMA, f) < 0 || fclose(f)) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", prog, path, strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

/* The partition value of the host: a path component, so no '/'. */
static int host_name(char *out, size_t n, const char *given)
{
	if (given)
		snprintf(out, n, "%s", given);
	else if (gethostname(out, n - 1) == 0)
		out[n - 1] = 0;
	else
		snprintf(out, n, "unknown");
	if (!out[0] || strchr(out, '/') || strcmp(out, ".") == 0 || strcmp(out, "..") == 0) {
		fprintf(stderr, "%s: --host: '%s' cannot be a directory name\n", prog, out);
		return -1;
	}
	return 0;
}

/* One child per trace, at most o->jobs at a time. */
int export_traces(char *const *paths, int n, const struct report_opts *o)
{
	char host[256];
	if (host_name(host, sizeof host, o->host) || check_schema(o->export_dir))
		return o->host ? 2 : 1;
	if (o->jobs <= 1 || n == 1) {
		int status = 0;
		for (int i = 0; i < n; i++)
			status |= export_one(paths[i], o, host);
		return status;
	}
	fflush(stdout);
	int status = 0;
	unsigned running = 0;
	for (int i = 0; i < n || running; ) {
		if (i < n && running < o->jobs) {
			pid_t pid = fork();
			if (pid == 0) {
				int rc = export_one(paths[i], o, host);
				fflush(stdout);
				_exit(rc);
			}
			if (pid < 0) {
				fprintf(stderr, "%s: %s: cannot fork: %s\n", prog, paths[i],
					strerror(errno));
				status = 1;
			} else
				running++;
			i++;
			continue;
		}
		int ws;
		if (wait(&ws) < 0)
			break;
		running--;
		if (!WIFEXITED(ws) || WEXITSTATUS(ws))
			status = 1;
	}
	return status;
}
