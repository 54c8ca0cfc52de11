/*
 * rec_fd.h - descriptors the recorder keeps open inside a program that may
 * close and reuse any descriptor number.
 *
 * Daemons close every descriptor above 2, and a program may then open its
 * own file under a number the recorder held; writing to that number would
 * put trace bytes into the program's file.  So each kept descriptor sits
 * above the low numbers programs assume are free, is remembered by the
 * file it refers to (device and inode), and is checked before each use.
 * Uses are rare (a window claim per 512 KiB of records, a message), so the
 * fstat does not show.
 */
#ifndef MT_REC_FD_H
#define MT_REC_FD_H

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MT_FD_MIN 64

struct mt_fd {
	int fd;   /* -1: none */
	dev_t dev;
	ino_t ino;
};

/* Takes fd over: moves it to a close-on-exec number >= MT_FD_MIN (closing
 * the original when `move`) and remembers its file.  0, or -1 with errno. */
static inline int mt_fd_keep(struct mt_fd *k, int fd, int move)
{
	struct stat st;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, MT_FD_MIN);
	if (high < 0 || fstat(high, &st) != 0) {
		if (high >= 0)
			close(high);
		return -1;
	}
	if (move)
		close(fd);
	*k = (struct mt_fd){ .fd = high, .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

/* Is k's number still open on the file it was kept for? */
static inline int mt_fd_ours(const struct mt_fd *k)
{
	struct stat st;
	return k->fd >= 0 && fstat(k->fd, &st) == 0 && st.st_dev == k->dev && st.st_ino == k->ino;
}

/* Closes k if it is still ours (else the number is the program's now). */
static inline void mt_fd_drop(struct mt_fd *k)
{
	if (mt_fd_ours(k))
		close(k->fd);
	k->fd = -1;
}

#endif
