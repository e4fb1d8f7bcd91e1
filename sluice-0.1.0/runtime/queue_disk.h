/* queue_disk.h — the disk part of Disk and disk-assisted queues, and the
 * on-disk format shared with tools/sluice-queue.
 *
 * Format (version 1; doc/queues.md has the byte layout):
 *   DIR/PREFIX.NNNNNNNN   segment files, numbered upwards, each opening
 *                         with an 80-byte header (magic "SLQSEG\r\n",
 *                         version, flags, segment number, encryption key
 *                         check, CRC32), followed by records:
 *                         marker "SLQR", u32 length, u32 CRC32 of the
 *                         stored payload, u32 CRC32 of these 12 bytes,
 *                         then the payload (encrypted: IV + ciphertext).
 *   DIR/PREFIX.qi         the state: where the oldest unconsumed record
 *                         is, written atomically (temp, fsync, rename).
 * All integers little-endian.
 *
 * Threading: a struct dq is not locked itself; the owning queue calls it
 * with its mutex held. The format helpers (dqf_*) are stateless.
 */
#ifndef SLUICE_QUEUE_DISK_H
#define SLUICE_QUEUE_DISK_H

#include "sluice.h"
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "sbuf.h"

struct msg;
struct queue;
struct queue_cfg;
struct dq;

#define DQF_VERSION 1
#define DQF_SEG_MAGIC "SLQSEG\r\n"
#define DQF_SEG_HDR 80
#define DQF_REC_MAGIC 0x52514c53u   /* "SLQR" little-endian */
#define DQF_REC_HDR 16
#define DQF_QI_MAGIC "SLQSTAT1"
#define DQF_QI_SIZE 64
#define DQF_MAX_REC (256u * 1024 * 1024)
#define DQF_SEG_ENCRYPTED 1u

struct dqf_seg_hdr {
	uint16_t version;
	uint16_t flags;
	uint64_t seg;
	uint16_t algo, mode;      /* libgcrypt ids when encrypted */
	uint8_t iv[16];
	uint8_t check[32];
};

struct dqf_state {
	uint64_t seg;             /* segment of the oldest unconsumed record */
	uint64_t off;             /* its offset */
	uint64_t records;         /* records waiting at the time (informative) */
};

/* A sequential reader of one segment file with a buffer. */
struct dqf_reader {
	int fd;
	uint64_t fsize;
	uint64_t off;             /* next record */
	char *buf;
	size_t cap, len;
	uint64_t base;            /* file offset of buf[0] */
};

enum dqf_next {
	DQF_REC,        /* a record: *payload, *len, *rec_off */
	DQF_EOF,        /* clean end */
	DQF_BAD,        /* a corrupt or torn span [*rec_off, *rec_off + *len) was skipped */
};

void dqf_seg_hdr_encode(const struct dqf_seg_hdr *h, unsigned char out[DQF_SEG_HDR]);
/* false: bad magic, CRC or version (*why says which) */
bool dqf_seg_hdr_decode(const unsigned char in[DQF_SEG_HDR], struct dqf_seg_hdr *h,
			const char **why);
void dqf_state_encode(const struct dqf_state *s, unsigned char out[DQF_QI_SIZE]);
bool dqf_state_decode(const unsigned char in[DQF_QI_SIZE], struct dqf_state *s);
/* Append one record (header + payload) to sb. */
bool dqf_rec_append(struct sbuf *sb, const void *payload, uint32_t len);

/* Open a segment for reading from `off` (0 = after the header). */
enum sl_rc dqf_reader_open(struct dqf_reader *r, const char *path, uint64_t off);
void dqf_reader_close(struct dqf_reader *r);
/* Make [off, off+n) of the file available in r's buffer; NULL when the
 * file is shorter. */
const unsigned char *dqf_reader_need(struct dqf_reader *r, uint64_t off, size_t n);
/* The next record. A payload pointer is valid until the next call. At
 * a corrupt span the reader looks for the next valid record header (its
 * own CRC and the payload's CRC must match) and reports the span. */
enum dqf_next dqf_reader_next(struct dqf_reader *r, const char **payload, uint32_t *len,
			      uint64_t *rec_off);

/* Message (de)serialization, payload version 1: reception metadata,
 * origin, ruleset name, raw bytes and the $! tree. Messages are parsed
 * again after reading (parser_parse), so the format holds no parser
 * state and stays valid across parser changes. */
bool dqf_msg_serialize(struct sbuf *sb, const struct msg *m);
/* NULL on a malformed payload. `parse`: run the parser (action queues
 * want parsed messages; rule queues parse in their consumer). */
struct msg *dqf_msg_deserialize(const char *p, size_t len);
/* Describe a payload for the dump tool (one line, no parsing). */
bool dqf_msg_describe(const char *p, size_t len, struct sbuf *out);

/* Encryption (libgcrypt), NULL when built without it or not configured. */
struct dq_crypto;
/* Set up from queue.cry.*; false after an error message naming `qname`. */
bool dq_crypto_create(struct dq_crypto **out, const struct queue_cfg *c, const char *qname);
void dq_crypto_destroy(struct dq_crypto *cr);
/* Fill a segment header's key-check fields. */
bool dq_crypto_seg_init(struct dq_crypto *cr, struct dqf_seg_hdr *h);
/* true when the key decrypts the header's check block. */
bool dq_crypto_seg_check(struct dq_crypto *cr, const struct dqf_seg_hdr *h);
bool dq_crypto_encrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out);
bool dq_crypto_decrypt(struct dq_crypto *cr, const struct dqf_seg_hdr *h, const char *in,
		       size_t len, struct sbuf *out);

/* ---- the disk part of a queue (called with the queue's mutex held) ---- */

/* Open DIR/PREFIX.*, verify every segment (reporting corrupt spans with
 * file and offset), count what is waiting. */
enum sl_rc dq_open(struct dq **out, struct queue *q);
/* Write up to n messages (one write() per batch; fdatasync with
 * syncQueueFiles). Returns how many were written: fewer when
 * maxDiskSpace is reached (*full set) or on a write error. The queue
 * keeps ownership of the messages. */
int dq_put(struct dq *d, struct msg **msgs, int n, bool *full);
/* Read up to max messages into out (new references). *ticket identifies
 * the batch for dq_done. */
int dq_take(struct dq *d, struct msg **out, int max, uint64_t *ticket);
/* The batch is done: advance the committed position, delete consumed
 * segments, checkpoint every checkpointInterval records. */
void dq_done(struct dq *d, uint64_t ticket);
/* The batch was handed back (shutdown): reading restarts at its first
 * record, which is safe because nothing after it was committed. */
void dq_untake(struct dq *d, uint64_t ticket);
uint64_t dq_count(const struct dq *d);
/* Write the state file and close. Empty queues leave no files. */
void dq_close(struct dq *d);

#endif
