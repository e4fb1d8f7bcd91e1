/* unit_time.h — a struct syslog_time from its fields, and a message
 * received at a given time, for the unit tests that check timestamps and
 * parsed messages (test_parser.c, test_hotpath.c). */
#ifndef SLUICE_UNIT_TIME_H
#define SLUICE_UNIT_TIME_H

#include <string.h>
#include "datetime.h"
#include "msg.h"
#include <check.h>

static inline struct syslog_time mkt(int y, int mo, int d, int h, int mi, int s, uint32_t frac,
				     int digits, char mode, int oh, int om)
{
	struct syslog_time t;
	memset(&t, 0, sizeof(t));
	t.year = (int16_t)y;
	t.month = (uint8_t)mo;
	t.day = (uint8_t)d;
	t.hour = (uint8_t)h;
	t.minute = (uint8_t)mi;
	t.second = (uint8_t)s;
	t.secfrac = frac;
	t.secfrac_digits = (uint8_t)digits;
	t.off_mode = mode;
	t.off_hour = (uint8_t)oh;
	t.off_minute = (uint8_t)om;
	t.valid = 1;
	return t;
}

/* A message with these bytes, received at epoch + usec (not parsed). */
static inline struct msg *unit_msg_at(const char *raw, size_t len, time_t epoch, long usec)
{
	struct syslog_time rcvd;
	dt_from_epoch(&rcvd, epoch, usec);
	struct msg *m = msg_create(raw, len, NULL, &rcvd, epoch);
	ck_assert_ptr_nonnull(m);
	return m;
}

#endif
