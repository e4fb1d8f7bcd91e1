/* datetime.c — syslog timestamps: taking the current time, scanning
 * RFC3339 and RFC3164 timestamps exactly as rsyslog 8.2302 does (including
 * its quirks: empty numbers read as 0, a year-first 3164 stamp miscounts the
 * remaining length by one), converting to epoch seconds, and formatting in
 * every form the property replacer knows.
 *
 * Threading: every function is reentrant. The only shared state is libc's
 * timezone data, read through localtime_r().
 */
#include "datetime.h"
#include "parser.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *const dt_month_names[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

const char *const dt_wday_names[7] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
};

/* ------------------------------------------------------------------ now */

void dt_from_epoch(struct syslog_time *t, time_t secs, uint32_t usecs)
{
	struct tm tm;
	long bias;

	localtime_r(&secs, &tm);
	memset(t, 0, sizeof(*t));
	t->year = (int16_t)(tm.tm_year + 1900);
	t->month = (uint8_t)(tm.tm_mon + 1);
	t->day = (uint8_t)tm.tm_mday;
	t->hour = (uint8_t)tm.tm_hour;
	t->minute = (uint8_t)tm.tm_min;
	t->second = (uint8_t)tm.tm_sec;
	t->secfrac = usecs;
	t->secfrac_digits = 6;
	bias = tm.tm_gmtoff;
	if (bias < 0) {
		t->off_mode = '-';
		bias = -bias;
	} else {
		t->off_mode = '+';
	}
	t->off_hour = (uint8_t)(bias / 3600);
	t->off_minute = (uint8_t)((bias % 3600) / 60);
	t->valid = 1;
}

void dt_now(struct syslog_time *t, struct timespec *now)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	dt_from_epoch(t, ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000));
	if (now)
		*now = ts;
}

/* ------------------------------------------------------------- scanning */

/* A cursor over the text being scanned. `len` is rsyslog's own count of
 * the bytes left, which the year-first 3164 form gets wrong by one; reads
 * are bounded by `end` (a byte at or past `end` reads as NUL, as it would
 * in rsyslog's NUL-terminated buffer), so a wrong count is harmless. */
struct scan {
	const char *p;
	const char *end;
	int len;
};

static inline unsigned char sc_peek(const struct scan *s)
{
	return s->p < s->end ? (unsigned char)*s->p : 0;
}

/* rsyslog's srSLMGParseInt32: digits while the value is below
 * INT_MAX/10-1; no digit at all yields 0. */
static inline __attribute__((always_inline)) int sc_int(struct scan *s)
{
	/* on locals: the byte reads could alias *s, which would otherwise be
	 * loaded and stored again for every digit */
	const char *p = s->p, *end = s->end;
	int len = s->len, v = 0;
	unsigned c;

	while (len > 0 && p < end && (c = (unsigned char)*p - '0') <= 9 && v < INT_MAX / 10 - 1) {
		v = v * 10 + (int)c;
		p++;
		len--;
	}
	s->p = p;
	s->len = len;
	return v;
}

/* Read one byte and advance, like rsyslog's `*pszTS++`. */
static inline unsigned char sc_next(struct scan *s)
{
	unsigned char c = sc_peek(s);
	s->p++;
	return c;
}

static inline int lc(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static inline bool isdig(char c)
{
	return c >= '0' && c <= '9';
}

static inline int d2(const char *q)
{
	return (q[0] - '0') * 10 + (q[1] - '0');
}

/* The eight bytes at p: a digit '0'..'9' where `dmask` has 0xff, the
 * byte of `want` where it has 0x00 (byte i of the text is bits 8i..8i+7:
 * x86 and every other little-endian machine; big-endian ones take the
 * byte-by-byte check). */
static inline bool swar_shape(const char *p, uint64_t dmask, uint64_t want)
{
	uint64_t w;
	memcpy(&w, p, 8);
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ULL & dmask, lo = 0x0f0f0f0f0f0f0f0fULL & dmask;
	/* a digit has the high nibble 3 and a low nibble that stays below
	 * 16 when 6 is added (no carry can cross into the next byte) */
	return (w & hi) == (0x3030303030303030ULL & dmask) &&
	       (((w & lo) + (0x0606060606060606ULL & dmask)) & hi) == 0 && (w & ~dmask) == want;
}

/* p[0..20) is "DDDD-DD-DDTDD:DD:DD" followed by a non-digit. */
static inline bool shape_3339(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return swar_shape(p, 0x00ffff00ffffffffULL, 0x2d00002d00000000ULL) &&     /* DDDD-DD- */
	       swar_shape(p + 8, 0xffff00ffff00ffffULL, 0x00003a0000540000ULL) && /* DDTDD:DD */
	       p[16] == ':' && isdig(p[17]) && isdig(p[18]) && !isdig(p[19]);
#else
	return isdig(p[0]) && isdig(p[1]) && isdig(p[2]) && isdig(p[3]) && p[4] == '-' &&
	       isdig(p[5]) && isdig(p[6]) && p[7] == '-' && isdig(p[8]) && isdig(p[9]) &&
	       p[10] == 'T' && isdig(p[11]) && isdig(p[12]) && p[13] == ':' && isdig(p[14]) &&
	       isdig(p[15]) && p[16] == ':' && isdig(p[17]) && isdig(p[18]) && !isdig(p[19]);
#endif
}

/* The general scan's ":mm:ss" after the hour `hour` (already read), with
 * rsyslog's range checks of all three. */
static bool scan_min_sec(struct scan *s, int hour, int *minute, int *second)
{
	if (hour < 0 || hour > 23)
		return false;
	if (s->len == 0 || sc_next(s) != ':')
		return false;
	s->len--;
	*minute = sc_int(s);
	if (*minute < 0 || *minute > 59)
		return false;
	if (s->len == 0 || sc_next(s) != ':')
		return false;
	s->len--;
	*second = sc_int(s);
	return *second >= 0 && *second <= 60;
}

/* The core of ParseTIMESTAMP3339. On success `*ts_end` is the cursor right
 * after the timestamp, and the scan is past the one SP that must follow
 * (unless the text ended). */
static bool scan_3339(struct scan *s, struct syslog_time *t, const char **ts_end)
{
	int year, month, day, hour, minute, second, secfrac = 0, prec = 0;
	int oh = 0, om = 0;
	char mode;

	/* not a timestamp at all (pmrfc3164 tries this first on every
	 * message): the general scan below would read no year digits and
	 * then want a '-' */
	unsigned char c0 = s->len > 0 ? sc_peek(s) : 0;
	if (!isdig((char)c0) && c0 != '-')
		return false;
	if (s->len >= 20 && s->end - s->p >= 20 && shape_3339(s->p)) {
		/* "YYYY-MM-DDTHH:MM:SS" and no digit after it: exactly what the
		 * general scan below reads, without its byte-by-byte loops */
		const char *q = s->p;
		year = d2(q) * 100 + d2(q + 2);
		month = d2(q + 5);
		day = d2(q + 8);
		hour = d2(q + 11);
		minute = d2(q + 14);
		second = d2(q + 17);
		if (year >= 2100 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
		    minute > 59 || second > 60)
			return false;
		s->p += 19;
		s->len -= 19;
	} else {
		year = sc_int(s);
		if (s->len == 0 || sc_next(s) != '-' || year < 0 || year >= 2100)
			return false;
		s->len--;
		month = sc_int(s);
		if (month < 1 || month > 12)
			return false;
		if (s->len == 0 || sc_next(s) != '-')
			return false;
		s->len--;
		day = sc_int(s);
		if (day < 1 || day > 31)
			return false;
		if (s->len == 0 || sc_next(s) != 'T')
			return false;
		s->len--;
		hour = sc_int(s);
		if (!scan_min_sec(s, hour, &minute, &second))
			return false;
	}
	if (s->len > 0 && sc_peek(s) == '.') {
		const char *start;
		s->len--;
		start = ++s->p;
		secfrac = sc_int(s);
		prec = (int)(s->p - start);
	}
	if (s->len == 0)
		return false;
	if (sc_peek(s) == 'Z') {
		s->len--;
		s->p++;
		mode = 'Z';
	} else if (sc_peek(s) == '+' || sc_peek(s) == '-') {
		mode = (char)sc_peek(s);
		s->len--;
		s->p++;
		oh = sc_int(s);
		if (oh < 0 || oh > 23)
			return false;
		if (s->len == 0 || sc_peek(s) != ':')
			return false;
		s->len--;
		s->p++;
		om = sc_int(s);
		if (om < 0 || om > 59)
			return false;
	} else {
		return false;
	}
	*ts_end = s->p;
	if (s->len > 0) {
		if (sc_peek(s) != ' ')
			return false;
		s->p++;
		s->len--;
	}

	memset(t, 0, sizeof(*t));
	t->year = (int16_t)year;
	t->month = (uint8_t)month;
	t->day = (uint8_t)day;
	t->hour = (uint8_t)hour;
	t->minute = (uint8_t)minute;
	t->second = (uint8_t)second;
	t->secfrac = (uint32_t)secfrac;
	t->secfrac_digits = (uint8_t)prec;
	t->off_mode = mode;
	t->off_hour = (uint8_t)oh;
	t->off_minute = (uint8_t)om;
	t->valid = 1;
	return true;
}

/* Month name, case-insensitive, as rsyslog's switch: 0 if none. */
static int scan_month(struct scan *s)
{
	unsigned char a = (unsigned char)lc(sc_next(s));
	unsigned char b = (unsigned char)lc(sc_peek(s));
	unsigned char c;

	switch (a) {
	case 'j':
		if (b == 'a') {
			s->p++;
			if (lc(sc_peek(s)) == 'n') { s->p++; return 1; }
		} else if (b == 'u') {
			s->p++;
			c = (unsigned char)lc(sc_peek(s));
			if (c == 'n') { s->p++; return 6; }
			if (c == 'l') { s->p++; return 7; }
		}
		return 0;
	case 'f':
		if (b != 'e') return 0;
		s->p++;
		if (lc(sc_peek(s)) == 'b') { s->p++; return 2; }
		return 0;
	case 'm':
		if (b != 'a') return 0;
		s->p++;
		c = (unsigned char)lc(sc_peek(s));
		if (c == 'r') { s->p++; return 3; }
		if (c == 'y') { s->p++; return 5; }
		return 0;
	case 'a':
		if (b == 'p') {
			s->p++;
			if (lc(sc_peek(s)) == 'r') { s->p++; return 4; }
		} else if (b == 'u') {
			s->p++;
			if (lc(sc_peek(s)) == 'g') { s->p++; return 8; }
		}
		return 0;
	case 's':
		if (b != 'e') return 0;
		s->p++;
		if (lc(sc_peek(s)) == 'p') { s->p++; return 9; }
		return 0;
	case 'o':
		if (b != 'c') return 0;
		s->p++;
		if (lc(sc_peek(s)) == 't') { s->p++; return 10; }
		return 0;
	case 'n':
		if (b != 'o') return 0;
		s->p++;
		if (lc(sc_peek(s)) == 'v') { s->p++; return 11; }
		return 0;
	case 'd':
		if (b != 'e') return 0;
		s->p++;
		if (lc(sc_peek(s)) == 'c') { s->p++; return 12; }
		return 0;
	default:
		return 0;
	}
}

/* The core of ParseTIMESTAMP3164 (without TZ string and year-after-time
 * detection, both off in rsyslog's default parser). `[yyyy ]Mmm [d]d
 * [yyyy ]hh:mm:ss[.frac][:]` followed by SP or the end. */
static bool scan_3164(struct scan *s, struct syslog_time *t,
		      const struct syslog_time *tz_like, const char **ts_end, bool year_after)
{
	int year = 0, month, day, hour, minute, second, secfrac = 0, prec = 0;
	unsigned char c;

	if (s->len < 3)
		return false;
	c = sc_peek(s);
	if (c >= '0' && c <= '9') {
		year = sc_int(s);
		if (year < 1970 || year > 2100 || sc_peek(s) != ' ')
			return false;
		s->p++; /* rsyslog skips this SP without counting it */
	}
	month = scan_month(s);
	if (month == 0)
		return false;
	s->len -= 3;
	const char *q = s->p;
	if (s->len >= 13 && s->end - q >= 13 && q[0] == ' ' && (q[1] == ' ' || isdig(q[1])) &&
	    isdig(q[2]) && q[3] == ' ' && isdig(q[4]) && isdig(q[5]) && q[6] == ':' &&
	    isdig(q[7]) && isdig(q[8]) && q[9] == ':' && isdig(q[10]) && isdig(q[11]) &&
	    !isdig(q[12])) {
		/* " dd hh:mm:ss" (or "  d hh:mm:ss"): exactly what the general
		 * scan below reads, without its byte-by-byte loops */
		day = q[1] == ' ' ? q[2] - '0' : d2(q + 1);
		hour = d2(q + 4);
		minute = d2(q + 7);
		second = d2(q + 10);
		if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
			return false;
		s->p += 12;
		s->len -= 12;
	} else {
		if (s->len == 0 || sc_next(s) != ' ')
			return false;
		s->len--;
		if (sc_peek(s) == ' ') { /* "Mar  1": one-digit day */
			s->len--;
			s->p++;
		}
		day = sc_int(s);
		if (day < 1 || day > 31)
			return false;
		if (s->len == 0 || sc_next(s) != ' ')
			return false;
		s->len--;
		hour = sc_int(s);
		if (year == 0 && hour > 1970 && hour < 2100) { /* Cisco: "Mmm dd yyyy hh:mm:ss" */
			year = hour;
			if (s->len == 0 || sc_next(s) != ' ')
				return false;
			s->len--;
			hour = sc_int(s);
		}
		if (!scan_min_sec(s, hour, &minute, &second))
			return false;
	}
	if (s->len > 0 && sc_peek(s) == '.') {
		const char *start;
		s->len--;
		start = ++s->p;
		secfrac = sc_int(s);
		prec = (int)(s->p - start);
	}
	/* pmrfc3164 detect.YearAfterTimestamp: " yyyy" (2000..2099) */
	if (year_after && year == 0 && s->len > 5 && sc_peek(s) == ' ') {
		int y = 0;
		for (int j = 1; j < 5; j++) {
			unsigned char d = s->p + j < s->end ? (unsigned char)s->p[j] : 0;
			if (d < '0' || d > '9')
				break;
			y = 10 * y + (d - '0');
		}
		if (s->len > 6 && (s->p + 5 < s->end ? s->p[5] : 0) != ' ')
			y = 0;
		if (y >= 2000 && y < 2100) {
			year = y;
			s->p += 5; /* the SP after the year is checked below */
			s->len -= 5;
		}
	}
	if (s->len > 0 && sc_peek(s) == ':') {
		s->p++;
		s->len--;
	}
	*ts_end = s->p;
	if (s->len > 0) {
		if (sc_peek(s) != ' ')
			return false;
		s->p++;
		s->len--;
	}

	*t = *tz_like;
	t->month = (uint8_t)month;
	if (year > 0)
		t->year = (int16_t)year;
	t->day = (uint8_t)day;
	t->hour = (uint8_t)hour;
	t->minute = (uint8_t)minute;
	t->second = (uint8_t)second;
	t->secfrac = (uint32_t)secfrac;
	t->secfrac_digits = (uint8_t)prec;
	t->valid = 1;
	return true;
}

static inline int clamp_len(size_t len)
{
	return len > INT_MAX ? INT_MAX : (int)len;
}

bool dt_parse_rfc3339(const char **p, size_t *len, struct syslog_time *t)
{
	struct scan s = { *p, *p + *len, clamp_len(*len) };
	struct syslog_time tmp;
	const char *ts_end;

	if (!scan_3339(&s, &tmp, &ts_end))
		return false;
	*t = tmp;
	*len -= (size_t)(ts_end - *p);
	*p = ts_end;
	return true;
}

bool dt_parse_rfc3164(const char **p, size_t *len, struct syslog_time *t,
		      const struct syslog_time *tz_like)
{
	struct scan s = { *p, *p + *len, clamp_len(*len) };
	struct syslog_time tmp;
	const char *ts_end;

	if (!scan_3164(&s, &tmp, tz_like, &ts_end, false))
		return false;
	*t = tmp;
	*len -= (size_t)(ts_end - *p);
	*p = ts_end;
	return true;
}

bool dt_scan_rfc3339_rs(const char **p, int *len, const char *end, struct syslog_time *t)
{
	struct scan s = { *p, end, *len };
	struct syslog_time tmp;
	const char *ts_end;

	if (!scan_3339(&s, &tmp, &ts_end))
		return false;
	*t = tmp;
	*p = s.p;
	*len = s.len;
	return true;
}

bool dt_scan_rfc3164_rs(const char **p, int *len, const char *end, struct syslog_time *t,
			const struct syslog_time *tz_like)
{
	struct scan s = { *p, end, *len };
	struct syslog_time tmp;
	const char *ts_end;

	if (!scan_3164(&s, &tmp, tz_like, &ts_end, false))
		return false;
	*t = tmp;
	*p = s.p;
	*len = s.len;
	return true;
}

bool dt_scan_rfc3164_rs_year(const char **p, int *len, const char *end, struct syslog_time *t,
			     const struct syslog_time *tz_like, bool detect_year_after)
{
	struct scan s = { *p, end, *len };
	struct syslog_time tmp;
	const char *ts_end;

	if (!scan_3164(&s, &tmp, tz_like, &ts_end, detect_year_after))
		return false;
	*t = tmp;
	*p = s.p;
	*len = s.len;
	return true;
}

/* ---------------------------------------------------------------- epoch */

/* rsyslog's syslogTime2time_t: years outside 1970..2100 give 0; 2000 is
 * the only century counted as a leap year (2100 is out of range anyway). */
time_t dt_to_epoch(const struct syslog_time *t)
{
	static const int month_days[13] = {
		0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334,
	};
	long long days, secs;
	int y = t->year;
	int mdays;
	int off;

	if (y < 1970 || y > 2100)
		return 0;
	mdays = (t->month >= 1 && t->month <= 12) ? month_days[t->month] : 0;
	if (((y % 100 != 0 && y % 4 == 0) || y == 2000) && t->month > 2)
		mdays++;
	/* days from 1970-01-01 to Jan 1 of year y */
	days = 365LL * (y - 1970) + ((y - 1969) / 4) - ((y - 1901) / 100) + ((y - 1601) / 400);
	days += mdays + t->day - 1;
	secs = days * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
	off = t->off_hour * 3600 + t->off_minute * 60;
	if (t->off_mode == '+')
		off = -off;
	/* 'Z' has zero offset; '-' is behind UTC, so add */
	secs += off;
	return (time_t)secs;
}

/* ----------------------------------------------------------- formatting */

/* "00" "01" ... "99" */
static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The last two decimal digits of v */
static inline void put2(char *o, unsigned v)
{
	memcpy(o, digits2 + 2 * (v % 100), 2);
}

/* The last four decimal digits of v (v >= 0) */
static inline void put4(char *o, int v)
{
	put2(o, (unsigned)v / 100);
	put2(o + 2, (unsigned)v);
}

/* The fraction as rsyslog prints it: as many digits as were written, but
 * counted modulo 6, and each "digit" squeezed through a short — so more
 * than six digits come out as rsyslog's odd bytes, byte for byte. */
static size_t put_secfrac(const struct syslog_time *t, char *o)
{
	static const uint32_t limit[7] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	if (t->secfrac_digits <= 6 && t->secfrac < limit[t->secfrac_digits]) {
		/* the usual case, every digit 0..9: the same bytes, without
		 * a division by a variable per digit */
		unsigned v = t->secfrac;
		size_t n = t->secfrac_digits, i = n;
		for (; i >= 2; i -= 2, v /= 100)
			put2(o + i - 2, v % 100);
		if (i)
			o[0] = (char)(v % 10 + '0');
		return n;
	}

	return dt_fmt_secfrac_general(t, o);
}

size_t dt_fmt_secfrac_general(const struct syslog_time *t, char *o)
{
	static const int ten_powers[6] = { 1, 10, 100, 1000, 10000, 100000 };
	if (t->secfrac_digits == 0)
		return 0;
	int power = ten_powers[(t->secfrac_digits - 1) % 6];
	int frac = (int)t->secfrac;
	size_t n = 0;
	while (power > 0) {
		int16_t digit = (int16_t)(frac / power);
		frac -= digit * power;
		power /= 10;
		o[n++] = (char)(digit + '0');
	}
	return n;
}

size_t dt_fmt_secfrac(const struct syslog_time *t, char *o)
{
	return t->secfrac_digits > 0 ? put_secfrac(t, o) : 0;
}

static inline const char *month_name(const struct syslog_time *t)
{
	return dt_month_names[(t->month + 11) % 12];
}

static size_t fmt_3164(const struct syslog_time *t, char *o, bool buggy_day)
{
	const char *mn = month_name(t);
	unsigned d10 = (t->day / 10) % 10;

	o[0] = mn[0];
	o[1] = mn[1];
	o[2] = mn[2];
	o[3] = ' ';
	o[4] = (buggy_day || d10 > 0) ? (char)(d10 + '0') : ' ';
	o[5] = (char)(t->day % 10 + '0');
	o[6] = ' ';
	put2(o + 7, t->hour);
	o[9] = ':';
	put2(o + 10, t->minute);
	o[12] = ':';
	put2(o + 13, t->second);
	o[15] = '\0';
	return 15;
}

size_t dt_fmt_rfc3164(const struct syslog_time *t, char *out)
{
	return fmt_3164(t, out, false);
}

size_t dt_fmt_rfc3164_buggyday(const struct syslog_time *t, char *out)
{
	return fmt_3164(t, out, true);
}

size_t dt_fmt_rfc3339(const struct syslog_time *t, char *o)
{
	size_t n;

	put4(o, t->year);
	o[4] = '-';
	put2(o + 5, t->month);
	o[7] = '-';
	put2(o + 8, t->day);
	o[10] = 'T';
	put2(o + 11, t->hour);
	o[13] = ':';
	put2(o + 14, t->minute);
	o[16] = ':';
	put2(o + 17, t->second);
	n = 19;
	if (t->secfrac_digits > 0) {
		o[n++] = '.';
		n += put_secfrac(t, o + n);
	}
	if (t->off_mode == 'Z') {
		o[n++] = 'Z';
	} else {
		o[n++] = t->off_mode;
		put2(o + n, t->off_hour);
		n += 2;
		o[n++] = ':';
		put2(o + n, t->off_minute);
		n += 2;
	}
	o[n] = '\0';
	return n;
}

size_t dt_fmt_mysql(const struct syslog_time *t, char *o)
{
	put4(o, t->year);
	put2(o + 4, t->month);
	put2(o + 6, t->day);
	put2(o + 8, t->hour);
	put2(o + 10, t->minute);
	put2(o + 12, t->second);
	o[14] = '\0';
	return 14;
}

size_t dt_fmt_pgsql(const struct syslog_time *t, char *o)
{
	put4(o, t->year);
	o[4] = '-';
	put2(o + 5, t->month);
	o[7] = '-';
	put2(o + 8, t->day);
	o[10] = ' ';
	put2(o + 11, t->hour);
	o[13] = ':';
	put2(o + 14, t->minute);
	o[16] = ':';
	put2(o + 17, t->second);
	o[19] = '\0';
	return 19;
}

size_t dt_fmt_unix(const struct syslog_time *t, char *out)
{
	/* rsyslog: snprintf(buf, 11, "%u", (unsigned) epoch) */
	unsigned v = (unsigned)dt_to_epoch(t);
	char tmp[16];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	return n;
}

size_t dt_fmt_subseconds(const struct syslog_time *t, char *out)
{
	size_t n;

	if (t->secfrac_digits > 0) {
		n = put_secfrac(t, out);
	} else {
		out[0] = '0';
		n = 1;
	}
	out[n] = '\0';
	return n;
}
