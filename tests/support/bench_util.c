/* bench_util.c - see bench_util.h */
#include "bench_util.h"

#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

long bench_vm_hwm_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

int bench_run_self(char *const argv[], char *out, size_t outlen)
{
	int fds[2], status;
	size_t got = 0;
	ssize_t k;
	pid_t pid;

	out[0] = '\0';
	fflush(stdout);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fds[1]);
	while (got < outlen - 1 && (k = read(fds[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)k;
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}
