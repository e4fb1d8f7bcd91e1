/* omkafka.h — what omkafka.c (the module: configuration, producers,
 * transactions) and omkafka_store.c (undelivered-message records, the
 * failedMsgFile, the errorFile and the statsFile) share.
 *
 * Threading: a struct rec_list belongs to one thread at a time (a worker,
 * or the main/housekeeping thread for the action's backlog); the files are
 * guarded by the mutex of their struct kafka_file, taken once per line
 * (errors and statistics are rare) or once per save.
 */
#ifndef SLUICE_OMKAFKA_H
#define SLUICE_OMKAFKA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sbuf.h"
#include "sluice.h"

/* ---- undelivered messages ----
 * A list of records in one growing byte arena, so keeping a message costs
 * no allocation of its own. Each record is a struct rec_hdr followed by
 * the topic, the key and the payload bytes, padded to 8 bytes. */
#define REC_NO_KEY UINT32_MAX
#define REC_PARTITION_AUTO (-1)   /* = RD_KAFKA_PARTITION_UA */

struct rec_hdr {
	uint32_t payload_len;
	uint32_t key_len;       /* REC_NO_KEY: the message has no key */
	uint32_t topic_len;
	int32_t partition;      /* REC_PARTITION_AUTO: librdkafka's partitioner */
	int64_t ts_ms;          /* message timestamp, ms since the epoch (0 = now) */
	int32_t err;            /* last librdkafka error (rd_kafka_resp_err_t) */
	uint32_t pad_;
};

struct rec_list {
	struct sbuf buf;
	size_t n;               /* records */
};

struct rec {
	const struct rec_hdr *h;
	const char *topic;
	const char *key;        /* NULL when h->key_len == REC_NO_KEY */
	const char *payload;
};

/* Append a record; returns false on ENOMEM (the list is unchanged). */
bool rec_add(struct rec_list *l, const char *topic, size_t topic_len, const void *key,
	     size_t key_len, const void *payload, size_t payload_len, int32_t partition,
	     int64_t ts_ms, int32_t err);
/* Iterate: start with *off = 0; returns false at the end. */
bool rec_next(const struct rec_list *l, size_t *off, struct rec *r);
/* Append every record of src to dst. Returns false on ENOMEM. */
bool rec_append_all(struct rec_list *dst, const struct rec_list *src);
static inline void rec_reset(struct rec_list *l) { sbuf_reset(&l->buf); l->n = 0; }
void rec_free(struct rec_list *l);

/* ---- files ---- */
struct kafka_file {
	pthread_mutex_t mtx;
	char *path;             /* NULL: not configured */
	int fd;                 /* -1: not open (opened on first write) */
};

void kfile_init(struct kafka_file *f, const char *path);
void kfile_fini(struct kafka_file *f);
/* Close so the next write opens the file again (HUP, logrotate). */
void kfile_reopen(struct kafka_file *f);
/* Append one line (a LF is added); one write() under the mutex. */
void kfile_write_line(struct kafka_file *f, const char *line, size_t len);

/* errorFile: one JSON object per line, as rsyslog's omkafka writes it:
 * {"errcode":N,"errmsg":"...","data":"<payload>"} plus "topic" and "key"
 * (sluice). */
void errfile_write(struct kafka_file *f, const char *topic, size_t topic_len,
		   const char *key, size_t key_len, const char *payload, size_t len, int err,
		   const char *errmsg);

/* failedMsgFile. Loading accepts sluice's format (first line
 * "#sluice-omkafka-failed v1", then one escaped record per line) and
 * rsyslog's (TOPIC TAB PAYLOAD per line). Records are appended to `out`.
 * A missing file is not an error. Returns the number of records loaded or
 * -1 after logging why the file could not be read. */
long failed_load(const char *path, struct rec_list *out);
/* Replace the file atomically (temp file, fsync, rename) by the records
 * of lists[0..n-1] in that order; removes it when they are all empty.
 * Returns false after logging the error. */
bool failed_save(const char *path, const struct rec_list *const *lists, int n);

#endif
