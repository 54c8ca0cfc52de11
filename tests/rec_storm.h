/*
 * rec_storm.h - the markers around the calls rec_storm counts, shared with
 * rec_count, which counts the trace's records between them.  Sizes no
 * library asks for by chance.
 */
#ifndef REC_STORM_H
#define REC_STORM_H

#define REC_SPAN_BEGIN 0x5b5b5u /* malloc of this opens a thread's span */
#define REC_SPAN_END 0x5e5e5u   /* and this closes it */

#endif
