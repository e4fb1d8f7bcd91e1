/* unit_time.h — a struct syslog_time from its fields, for the unit tests
 * that check timestamps (test_parser.c, test_hotpath.c). */
#ifndef SLUICE_UNIT_TIME_H
#define SLUICE_UNIT_TIME_H

#include <string.h>
#include "datetime.h"

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

#endif
