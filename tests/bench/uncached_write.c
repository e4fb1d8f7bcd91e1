/* uncached_write.c — what writing a log file costs the writer, through
 * the page cache, uncached (RWF_DONTCACHE) or direct (O_DIRECT), the way
 * omfile writes: with `uncached` the page-aligned part of each write goes
 * with pwritev2(RWF_DONTCACHE), the tail of the last page with write();
 * with `direct` CHUNK is rounded up to whole pages and every chunk is
 * written from a page-aligned buffer by an O_DIRECT descriptor (omfile's
 * full ioBufferSize), the last partial page by the ordinary one.
 *
 *   uncached_write FILE BYTES CHUNK MODE   (MODE 0 = cached, 1 = uncached, 2 = direct)
 *
 * Prints the writer's system time. Run by tests/bench/uncached_write.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s FILE BYTES CHUNK MODE\n", argv[0]);
		return 2;
	}
	long total = atol(argv[2]);
	size_t chunk = (size_t)atol(argv[3]);
	int mode = atoi(argv[4]);
	int uncached = mode == 1;
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	char *buf = NULL;
	if (mode == 2)
		chunk = (chunk + 4095) / 4096 * 4096;
	if (fd < 0 || posix_memalign((void **)&buf, 4096, chunk) != 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x', chunk);
	if (mode == 2) {
		int dfd = open(argv[1], O_WRONLY | O_DIRECT);
		long size = 0;
		for (; dfd >= 0 && size + (long)chunk <= total; size += (long)chunk)
			if (pwrite(dfd, buf, chunk, size) != (ssize_t)chunk) {
				perror("pwrite O_DIRECT");
				return 1;
			}
		if (dfd < 0 || write(fd, buf, (size_t)(total - size)) != (ssize_t)(total - size)) {
			perror(dfd < 0 ? "open O_DIRECT" : "write");
			return 1;
		}
	}
	for (long size = 0; mode != 2 && size < total; size += (long)chunk) {
		long end = size + (long)chunk;
		size_t span = uncached ? (size_t)(end - end % 4096 - size) : 0;
		if (span) {
			struct iovec v = { buf, span };
			if (pwritev2(fd, &v, 1, -1, RWF_DONTCACHE) != (ssize_t)span) {
				perror("pwritev2");
				return 1;
			}
		}
		if (chunk > span && write(fd, buf + span, chunk - span) != (ssize_t)(chunk - span)) {
			perror("write");
			return 1;
		}
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%s: %ld bytes in %zu-byte writes: system %.2f s\n",
	       mode == 2 ? "direct" : uncached ? "uncached" : "cached",
	       total, chunk, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	close(fd);
	return 0;
}
