/* infile.c - input files are regular files. A FIFO would block the open
 * until some writer came (and a pipe cannot be re-read for --loop); a
 * directory reads as a puzzling read error; /dev/null and other devices
 * read as empty or endless input. Each is refused, saying what it is. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"

static const char *not_regular(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory, not a regular file";
	if (S_ISFIFO(m))
		return "a FIFO, not a regular file";
	if (S_ISCHR(m))
		return "a character device, not a regular file";
	if (S_ISBLK(m))
		return "a block device, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	return "not a regular file";
}

int infile_open(FILE **f, const char *path, const char **why)
{
	struct stat st;
	int fd, fl, e;

	*f = NULL;
	if (!*path) {
		*why = "an empty file name";
		return -ENOENT;
	}
	/* O_NONBLOCK: opening a FIFO for reading returns at once */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st))
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*why = not_regular(st.st_mode);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || !(*f = fdopen(fd, "rb")))
		goto fail;
	return 0;
fail:
	e = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	*why = strerror(e);
	return -e;
}
