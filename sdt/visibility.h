/*
 * visibility.h - which of the interposer's symbols the world sees.
 *
 * The libraries are built with -fvisibility=hidden, and only the malloc
 * family, exec/_exit and mtrace_* are exported (MT_EXPORT).  A declaration
 * of hidden data must say so too (MT_HIDDEN): the compiler then reads it
 * RIP-relative in one instruction instead of through the GOT, which the
 * per-call path does for the gate words and the next allocator's table.
 */
#ifndef MT_VISIBILITY_H
#define MT_VISIBILITY_H

#define MT_EXPORT __attribute__((visibility("default")))
#define MT_HIDDEN __attribute__((visibility("hidden")))

#endif
