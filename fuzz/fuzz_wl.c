/*
 * fuzz_wl.c - libFuzzer target for the workload reader and its full check
 * (lib/wl_reader.c, lib/wl_check.c), the gate every workload passes before
 * trace_run replays it: whatever it accepts must be safe to replay.
 */
#include <stdint.h>

#include "fuzz_file.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct fuzz_file in;
	if (!in.path[0])
		fuzz_file_init(&in, "workload");
	fuzz_file_fill(&in, data, len);

	struct mt_error e;
	struct mt_wl *w = mt_wl_open(in.path, 1, &e);
	if (!w)
		return 0;
	const struct mt_wl_info *info = mt_wl_get_info(w);
	for (uint32_t i = 0; i < info->threads; i++) {
		(void)mt_wl_get_thread(w, i);
		(void)mt_wl_stream(w, i);
	}
	mt_wl_close(w);
	return 0;
}
