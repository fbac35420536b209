/* outfile.c - output files written whole or not at all (outfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	o->f = NULL;
}

int outfile_open(struct outfile *o, const char *path, const char *mode)
{
	struct stat st;
	size_t n = strlen(path) + 32;
	int e;

	o->f = NULL;
	o->tmp = NULL;
	if (!(o->path = strdup(path)))
		return -ENOMEM;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		if ((o->f = fopen(path, mode)))
			return 0;
		goto fail;
	}
	if (!(o->tmp = malloc(n))) {
		errno = ENOMEM;
		goto fail;
	}
	snprintf(o->tmp, n, "%s.tmp.%d", path, (int)getpid());
	if ((o->f = fopen(o->tmp, mode)))
		return 0;
fail:
	e = errno ? errno : EIO;
	outfile_free(o);
	errno = e;
	return -e;
}

static int place(struct outfile *o, int e)
{
	if (o->tmp) {
		if (!e && rename(o->tmp, o->path))
			e = errno ? errno : EIO;
		if (e)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	errno = e;
	return -e;
}

int outfile_place(struct outfile *o)
{
	return place(o, 0);
}

int outfile_commit(struct outfile *o)
{
	int e = 0;

	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		e = errno ? errno : EIO;
	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	return place(o, e);
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	outfile_free(o);
}
