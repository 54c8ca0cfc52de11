/*
 * report_symbols.c - stack addresses to functions, files and lines, with
 * elfutils (libdwfl and libdw).
 *
 * The trace's module map says which file was mapped where in the traced
 * process, and with which build-id.  For each module map (a new one after
 * every dlopen or dlclose) one Dwfl is built, by path when the file is
 * still there and otherwise by build-id (libdwfl's own search under
 * /usr/lib/debug/.build-id, and debuginfod when DEBUGINFOD_URLS is set);
 * debug information in a separate file is found the standard way
 * (.gnu_debuglink or build-id).  A frame's inlined calls come out as frames
 * of their own, innermost first, the way the program's source reads.
 * Anything that cannot be found leaves the address and the module name.
 *
 * Every address is resolved once (a cache by address and module map), so
 * the cost grows with the distinct frames, not with the records.
 */
#include "config.h"

#include <dwarf.h>
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "report_map.h"

/* libstdc++'s demangler, for C++ linkage names. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct resolved {          /* the frames one address expands to */
	uint64_t key;          /* resolved_key() */
	size_t first, n;       /* in symbols.frames */
};

struct cached_stack {
	uint64_t id;           /* the key */
	size_t first, n;       /* in symbols.stack_frames */
};

struct symbols {
	const struct mt_trace *t;
	Dwfl **dwfl;           /* by module map generation, built on first use */
	uint32_t ngen;
	struct frame *frames;  /* the expansions of all addresses resolved */
	size_t nframes, frames_cap;
	struct u64map addr;    /* struct resolved */
	struct frame *stack_frames;
	size_t nstack_frames, stack_frames_cap;
	struct u64map stacks;  /* struct cached_stack */
	char **owned;          /* strings we allocated (demangled names) */
	size_t nowned, owned_cap;
};

static int grow(void *array, size_t *cap, size_t used, size_t size)
{
	if (used < *cap)
		return 0;
	size_t ncap = *cap ? 2 * *cap : 64;
	void *n = realloc(*(void **)array, ncap * size);
	if (!n)
		return -1;
	*(void **)array = n;
	*cap = ncap;
	return 0;
}

static const char *own(struct symbols *s, char *str)
{
	if (!str || grow(&s->owned, &s->owned_cap, s->nowned, sizeof *s->owned)) {
		free(str);
		return NULL;
	}
	return s->owned[s->nowned++] = str;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

/* ---- finding the files ---- */

/* Whether the file at fd is the one recorded: same build-id, or none to
 * compare.  A program rebuilt since the recording must not lend its
 * symbols to the old addresses. */
static int same_build(Dwfl_Module *mod, int fd)
{
	const unsigned char *want;
	GElf_Addr vaddr;
	int wantlen = dwfl_module_build_id(mod, &want, &vaddr);
	if (wantlen <= 0)
		return 1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *have;
	ssize_t havelen = elf ? dwelf_elf_gnu_build_id(elf, &have) : -1;
	int same = havelen == wantlen && memcmp(have, want, (size_t)wantlen) == 0;
	elf_end(elf);
	return same;
}

/* The module's file at its recorded path if it is still that build, else
 * whatever libdwfl finds by build-id. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	int fd = name && name[0] == '/' ? open(name, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && same_build(mod, fd) && (*file_name = strdup(name)))
		return fd;
	if (fd >= 0)
		close(fd);
	return dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static Dwfl *build_dwfl(const struct mt_trace *t, uint32_t generation)
{
	Dwfl *d = dwfl_begin(&callbacks);
	if (!d)
		return NULL;
	dwfl_report_begin(d);
	for (size_t i = 0; i < mt_trace_module_count(t); i++) {
		const struct mt_trace_module *m = mt_trace_module_at(t, i);
		if (m->generation != generation)
			continue;
		Dwfl_Module *mod = dwfl_report_module(d, m->path, m->start, m->end);
		if (mod && m->build_id_len)
			dwfl_module_report_build_id(mod, m->build_id, m->build_id_len, 0);
	}
	dwfl_report_end(d, NULL, NULL);
	return d;
}

static Dwfl *dwfl_for(struct symbols *s, uint32_t generation)
{
	if (generation >= s->ngen) {
		Dwfl **n = realloc(s->dwfl, (generation + 1) * sizeof *n);
		if (!n)
			return NULL;
		memset(n + s->ngen, 0, (generation + 1 - s->ngen) * sizeof *n);
		s->dwfl = n;
		s->ngen = generation + 1;
	}
	if (!s->dwfl[generation])
		s->dwfl[generation] = build_dwfl(s->t, generation);
	return s->dwfl[generation];
}

/* ---- one address ---- */

static const char *die_function(struct symbols *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (linkage) {
		int status;
		char *d = __cxa_demangle(linkage, NULL, NULL, &status);
		if (d && status == 0)
			return own(s, d);
		free(d);
	}
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* The file named by an inlined call's DW_AT_call_file. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word file, l;
	Dwarf_Files *files;
	size_t nfiles;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &l) == 0)
		*line = (int)l;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || file >= nfiles)
		return NULL;
	return dwarf_filesrc(files, file, NULL, NULL);
}

static int push(struct symbols *s, const struct frame *f)
{
	if (grow(&s->frames, &s->frames_cap, s->nframes, sizeof *s->frames))
		return -1;
	s->frames[s->nframes++] = *f;
	return 0;
}

/* Appends the frames of one return address (inlined calls expanded). */
static void expand(struct symbols *s, uint64_t address, uint32_t generation)
{
	const struct mt_trace_module *tm = mt_trace_module_find(s->t, generation, address - 1);
	struct frame f = { .address = address, .module = tm ? base_name(tm->path) : NULL };
	Dwfl *d = dwfl_for(s, generation);
	Dwfl_Module *mod = d ? dwfl_addrmodule(d, address - 1) : NULL;
	if (!mod) {
		push(s, &f);
		return;
	}
	/* A return address: the call is the instruction before it. */
	Dwarf_Addr pc = address - 1, bias;
	Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
	if (line)
		f.file = dwfl_lineinfo(line, NULL, &f.line, NULL, NULL, NULL);
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
	if (n > 0) {
		/* Past an inlined body, dwarf_getscopes follows its abstract
		 * origin; the containing functions are the DIE's own parents. */
		Dwarf_Die inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	size_t pushed = 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		f.function = die_function(s, &scopes[i]);
		push(s, &f);
		pushed++;
		if (tag == DW_TAG_subprogram)
			break;
		/* The caller of an inlined body is at its call site. */
		f.file = call_file(cu, &scopes[i], &f.line);
	}
	free(scopes);
	if (!pushed) {
		GElf_Sym sym;
		f.function = dwfl_module_addrinfo(mod, pc, &(GElf_Off){ 0 }, &sym, NULL, NULL, NULL);
		if (f.function) {
			int status;
			char *dm = __cxa_demangle(f.function, NULL, NULL, &status);
			if (dm && status == 0)
				f.function = own(s, dm);
			else
				free(dm);
		}
		push(s, &f);
	}
}

/* An address and its module map in one key: user-space addresses take 48
 * bits (x86-64, AArch64), module maps are numbered from 1. */
static uint64_t resolved_key(uint64_t address, uint32_t generation)
{
	return (uint64_t)generation << 48 | (address & ((1ull << 48) - 1));
}

/* The resolution of an address, made on first use. */
static const struct resolved *resolve(struct symbols *s, uint64_t address, uint32_t generation)
{
	int added;
	struct resolved *r = u64map_add(&s->addr, resolved_key(address, generation), &added);
	if (r && added) {
		r->first = s->nframes;
		expand(s, address, generation);
		r->n = s->nframes - r->first;
	}
	return r;
}

/* ---- stacks ---- */

struct symbols *symbols_open(const struct mt_trace *t)
{
	struct symbols *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->t = t;
	u64map_init(&s->addr, sizeof(struct resolved));
	u64map_init(&s->stacks, sizeof(struct cached_stack));
	return s;
}

void symbols_close(struct symbols *s)
{
	if (!s)
		return;
	for (uint32_t g = 0; g < s->ngen; g++)
		if (s->dwfl[g])
			dwfl_end(s->dwfl[g]);
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->dwfl);
	free(s->frames);
	u64map_free(&s->addr);
	free(s->stack_frames);
	u64map_free(&s->stacks);
	free(s);
}

const struct frame *symbols_stack(struct symbols *s, uint64_t id, size_t *n)
{
	const struct mt_trace_stack *st = id ? mt_trace_stack_find(s->t, id) : NULL;
	int added;
	struct cached_stack *c = st ? u64map_add(&s->stacks, id, &added) : NULL;
	*n = 0;
	if (!c)
		return NULL;
	if (added) {
		size_t first = s->nstack_frames;
		for (size_t i = 0; i < st->nframes; i++) {
			const struct resolved *r = resolve(s, st->frames[i], st->generation);
			for (size_t k = 0; r && k < r->n; k++) {
				if (grow(&s->stack_frames, &s->stack_frames_cap, s->nstack_frames,
					 sizeof *s->stack_frames))
					return NULL;
				s->stack_frames[s->nstack_frames++] = s->frames[r->first + k];
			}
		}
		c->first = first;
		c->n = s->nstack_frames - first;
	}
	*n = c->n;
	return s->stack_frames + c->first;
}
