/* infile.c - input files are regular files. A FIFO would block the open
 * until some writer came (and a pipe cannot be re-read for --loop); a
 * directory reads as a puzzling read error; /dev/null and other devices
 * read as empty or endless input. Each is refused, saying what it is. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

/* Standard input is the process's, so its copy is too: spooled once into
 * a temporary file nobody else can name (unlinked at once), which every
 * open of "-" then reads through its own file description, from the start
 * (a capture is read again for --loop, and "- -" reads it twice). A
 * regular file on standard input is read in place. */
static int stdin_fd = -1;

static int spool_stdin(const char **why)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	char buf[65536];
	struct stat st;
	int fd, e;

	if (fstat(STDIN_FILENO, &st))
		goto fail;
	if (isatty(STDIN_FILENO)) {
		*why = "standard input is a terminal, not a capture";
		return -EINVAL;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = not_regular(st.st_mode);
		return -EISDIR;
	}
	if (S_ISREG(st.st_mode)) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			goto fail;
		stdin_fd = fd;
		return 0;
	}
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/tcsim-stdin-XXXXXX", dir) >= sizeof(tmpl)) {
		*why = "TMPDIR is too long";
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	unlink(tmpl);
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_fd;
		if (n == 0)
			break;
		while (w < n) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				goto fail_fd;
			w += k;
		}
	}
	stdin_fd = fd;
	return 0;
fail_fd:
	e = errno ? errno : EIO;
	close(fd);
	*why = strerror(e);
	return -e;
fail:
	e = errno ? errno : EIO;
	*why = strerror(e);
	return -e;
}

int infile_open_stdin(FILE **f, const char **why)
{
	char path[64];
	int fd, e;

	*f = NULL;
	if (stdin_fd < 0 && (e = spool_stdin(why)) < 0)
		return e;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", stdin_fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(*f = fdopen(fd, "rb"))) {
		e = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		*why = strerror(e);
		return -e;
	}
	return 0;
}
