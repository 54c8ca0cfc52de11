/*
 * rec_list.h - telling mtrace-record which trace files a run made.
 *
 * A program run under mtrace-record may start any number of processes and
 * images, each writing its own file; mtrace-record names them all in one
 * table at the end and gives -o's name to the right one.  Each recorder
 * appends the name of every file it creates, as it creates it, to the list
 * file mtrace-record passes in MTRACE_RECORD_LIST.
 */
#ifndef MT_REC_LIST_H
#define MT_REC_LIST_H

/* Appends "path\n" to the list file with one O_APPEND write (so lines
 * from concurrent processes do not mix); a failure is said once per
 * process and does not stop recording.  Allocation-free. */
void mt_list_add(const char *list, const char *path);

#endif
