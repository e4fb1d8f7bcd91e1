/* queue_cfg.c — the queue.* parameters: rsyslog 8.2302's defaults per
 * role (action, main_queue()/ruleset, legacy main queue), parsing them from
 * a config object with FILE:LINE errors, copying and freeing.
 *
 * Threading: config time only (main thread).
 */
#include "queue.h"
#include "module.h"
#include "ast.h"
#include "log.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void queue_cfg_defaults(struct queue_cfg *c, enum queue_role role, bool legacy_main)
{
	memset(c, 0, sizeof(*c));
	c->min_dequeue_batch_size = 0;
	c->min_dequeue_batch_timeout = 1000;
	c->worker_min_msgs = -1;
	c->high_watermark = c->low_watermark = -1;
	c->discard_mark = -1;
	c->discard_severity = 8;
	c->full_delay_mark = c->light_delay_mark = -1;
	c->timeout_enqueue = 2000;
	c->timeout_action_completion = 1000;
	c->timeout_worker_shutdown = 60000;
	c->save_on_shutdown = true;
	c->worker_threads = 1;
	c->checkpoint_interval = 0;
	c->sync_queue_files = false;
	c->dequeue_slowdown = 0;
	c->dequeue_time_begin = 0;
	c->dequeue_time_end = 25;
	switch (role) {
	case QUEUE_ROLE_ACTION:
		c->type = QUEUE_DIRECT;
		c->size = 1000;
		c->dequeue_batch_size = 128;
		c->timeout_shutdown = 10;
		c->max_file_size = 1024 * 1024;
		break;
	case QUEUE_ROLE_MAIN:
	case QUEUE_ROLE_RULESET:
		c->type = QUEUE_FIXED_ARRAY;
		c->size = 50000;
		c->dequeue_batch_size = 1024;
		c->timeout_shutdown = 1500;
		c->max_file_size = 16 * 1024 * 1024;
		if (legacy_main) {
			/* rsyslog's legacy main-queue defaults differ (REFERENCE §4). */
			c->size = 100000;
			c->dequeue_batch_size = 256;
			c->worker_threads = 2;
			c->worker_min_msgs = 40000;
			c->high_watermark = 80000;
			c->low_watermark = 20000;
			c->discard_mark = 98000;
			c->max_file_size = 1024 * 1024;
		}
		break;
	}
}

void queue_cfg_free(struct queue_cfg *c)
{
	free(c->filename);
	free(c->spool_directory);
	free(c->cry_provider);
	free(c->cry_key);
	free(c->cry_keyfile);
	free(c->cry_algo);
	free(c->cry_mode);
	c->filename = c->spool_directory = NULL;
	c->cry_provider = c->cry_key = c->cry_keyfile = c->cry_algo = c->cry_mode = NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? sl_xstrdup(s) : NULL;
}

void queue_cfg_copy(struct queue_cfg *dst, const struct queue_cfg *src)
{
	*dst = *src;
	dst->filename = dup_or_null(src->filename);
	dst->spool_directory = dup_or_null(src->spool_directory);
	dst->cry_provider = dup_or_null(src->cry_provider);
	dst->cry_key = dup_or_null(src->cry_key);
	dst->cry_keyfile = dup_or_null(src->cry_keyfile);
	dst->cry_algo = dup_or_null(src->cry_algo);
	dst->cry_mode = dup_or_null(src->cry_mode);
}

struct qparam {
	const char *name;
	size_t off;
	int kind; /* 0 int, 1 size, 2 bool, 3 string, 4 type */
};

#define QOFF(f) offsetof(struct queue_cfg, f)
static const struct qparam qparams[] = {
	{ "queue.type", QOFF(type), 4 },
	{ "queue.size", QOFF(size), 1 },
	{ "queue.dequeuebatchsize", QOFF(dequeue_batch_size), 1 },
	{ "queue.mindequeuebatchsize", QOFF(min_dequeue_batch_size), 1 },
	{ "queue.mindequeuebatchsize.timeout", QOFF(min_dequeue_batch_timeout), 0 },
	{ "queue.workerthreads", QOFF(worker_threads), 0 },
	{ "queue.workerthreadminimummessages", QOFF(worker_min_msgs), 1 },
	{ "queue.highwatermark", QOFF(high_watermark), 1 },
	{ "queue.lowwatermark", QOFF(low_watermark), 1 },
	{ "queue.discardmark", QOFF(discard_mark), 1 },
	{ "queue.discardseverity", QOFF(discard_severity), 0 },
	{ "queue.fulldelaymark", QOFF(full_delay_mark), 1 },
	{ "queue.lightdelaymark", QOFF(light_delay_mark), 1 },
	{ "queue.timeoutshutdown", QOFF(timeout_shutdown), 0 },
	{ "queue.timeoutenqueue", QOFF(timeout_enqueue), 0 },
	{ "queue.timeoutactioncompletion", QOFF(timeout_action_completion), 0 },
	{ "queue.timeoutworkerthreadshutdown", QOFF(timeout_worker_shutdown), 0 },
	{ "queue.maxfilesize", QOFF(max_file_size), 1 },
	{ "queue.maxdiskspace", QOFF(max_disk_space), 1 },
	{ "queue.saveonshutdown", QOFF(save_on_shutdown), 2 },
	{ "queue.filename", QOFF(filename), 3 },
	{ "queue.spooldirectory", QOFF(spool_directory), 3 },
	{ "queue.checkpointinterval", QOFF(checkpoint_interval), 0 },
	{ "queue.syncqueuefiles", QOFF(sync_queue_files), 2 },
	{ "queue.dequeueslowdown", QOFF(dequeue_slowdown), 0 },
	{ "queue.dequeuetimebegin", QOFF(dequeue_time_begin), 0 },
	{ "queue.dequeuetimeend", QOFF(dequeue_time_end), 0 },
	{ "queue.cry.provider", QOFF(cry_provider), 3 },
	{ "queue.cry.key", QOFF(cry_key), 3 },
	{ "queue.cry.keyfile", QOFF(cry_keyfile), 3 },
	{ "queue.cry.algo", QOFF(cry_algo), 3 },
	{ "queue.cry.mode", QOFF(cry_mode), 3 },
};

/* queue.* parameters that rsyslog knows and that sluice accepts without
 * acting on them (doc/queues.md says why). */
static const char *const qparams_later[] = {
	"queue.samplinginterval", "queue.takeflowctlfrommsg",
};

bool queue_cfg_from_obj(struct queue_cfg *c, struct cfg_obj *o)
{
	bool ok = true;
	for (struct cfg_param *p = o->params; p; p = p->next) {
		if (strncmp(p->name, "queue.", 6) != 0)
			continue;
		const struct qparam *qp = NULL;
		for (size_t i = 0; i < SL_ARRAY_SIZE(qparams); i++)
			if (strcmp(p->name, qparams[i].name) == 0)
				qp = &qparams[i];
		if (!qp) {
			bool later = false;
			for (size_t i = 0; i < SL_ARRAY_SIZE(qparams_later); i++)
				if (strcmp(p->name, qparams_later[i]) == 0)
					later = true;
			if (later) {
				p->used = true;
				continue;
			}
			cfg_error(&p->pos, "queue parameter '%s' is not known", p->name);
			ok = false;
			continue;
		}
		p->used = true;
		if (p->val.is_array) {
			cfg_error(&p->pos, "parameter '%s' takes a single value, not an array", p->name);
			ok = false;
			continue;
		}
		const char *v = p->val.str;
		char *field = (char *)c + qp->off;
		int64_t n;
		bool b;
		switch (qp->kind) {
		case 0:
		case 1:
			if (!(qp->kind ? param_value_size(v, &n) : param_value_int(v, &n))) {
				cfg_error(&p->pos, "parameter '%s': '%s' is not a number", p->name, v);
				ok = false;
			} else {
				*(int64_t *)field = n;
			}
			break;
		case 2:
			if (!param_value_bool(v, &b)) {
				cfg_error(&p->pos, "parameter '%s': expected \"on\" or \"off\", not '%s'", p->name, v);
				ok = false;
			} else {
				*(bool *)field = b;
			}
			break;
		case 3:
			free(*(char **)field);
			*(char **)field = sl_xstrdup(v);
			break;
		case 4:
			if (!strcasecmp(v, "fixedarray"))
				c->type = QUEUE_FIXED_ARRAY;
			else if (!strcasecmp(v, "linkedlist"))
				c->type = QUEUE_LINKED_LIST;
			else if (!strcasecmp(v, "direct"))
				c->type = QUEUE_DIRECT;
			else if (!strcasecmp(v, "disk"))
				c->type = QUEUE_DISK;
			else {
				cfg_error(&p->pos, "queue.type '%s' is not known; expected FixedArray, "
					  "LinkedList, Direct or Disk", v);
				ok = false;
			}
			break;
		}
	}
	if (c->type == QUEUE_DISK && !c->filename) {
		cfg_error(&o->pos, "queue.type=\"Disk\" needs queue.filename");
		ok = false;
	}
	if (c->type == QUEUE_DIRECT && c->filename)
		cfg_warn(&o->pos, "queue.filename is ignored for a Direct queue");
	if (c->filename && (strchr(c->filename, '/') || !c->filename[0])) {
		cfg_error(&o->pos, "queue.filename '%s' must be a plain file name; the directory "
			  "is queue.spoolDirectory", c->filename);
		ok = false;
	}
	if (c->cry_provider && !c->filename) {
		cfg_error(&o->pos, "queue.cry.provider needs a disk or disk-assisted queue "
			  "(queue.filename)");
		ok = false;
	}
	if (c->cry_provider && !c->cry_key && !c->cry_keyfile) {
		cfg_error(&o->pos, "queue.cry.provider needs queue.cry.key or queue.cry.keyfile");
		ok = false;
	}
	if (c->discard_severity < 0 || c->discard_severity > 8) {
		cfg_error(&o->pos, "queue.discardSeverity must be 0..8, not %lld",
			  (long long)c->discard_severity);
		ok = false;
	}
	if (c->size < 1)
		c->size = 1;
	if (c->dequeue_batch_size < 1)
		c->dequeue_batch_size = 1;
	if (c->worker_threads < 1)
		c->worker_threads = 1;
	return ok;
}
