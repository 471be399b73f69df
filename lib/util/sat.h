/*
 * sat: time arithmetic that cannot overflow.
 *
 * Trace times are int64 nanoseconds.  The readers keep only events whose
 * start and end lie within +-SAT_TIME_LIMIT_NS (about 146 years either side
 * of the epoch), so the difference of any two such times fits in an int64;
 * sums of many durations can still pass INT64_MAX, and reports read back
 * hold any int64, so every sum and difference of times goes through these
 * helpers, which saturate at INT64_MIN / INT64_MAX instead of wrapping
 * (signed overflow is undefined behaviour in C).
 */
#ifndef VT_SAT_H
#define VT_SAT_H

#include <stdint.h>

#define SAT_TIME_LIMIT_NS ((INT64_C(1) << 62) - 1)

/* Whether t is a time the analyses accept (see above). */
static inline int sat_time_ok(int64_t t)
{
	return t >= -SAT_TIME_LIMIT_NS && t <= SAT_TIME_LIMIT_NS;
}

/* a + b, clamped to the int64 range. */
static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a - b, clamped to the int64 range. */
static inline int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a * b, clamped to the int64 range. */
static inline int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* x rounded toward zero and clamped to the int64 range; NaN gives 0. */
static inline int64_t sat_of_double(double x)
{
	if (!(x == x))
		return 0;
	if (x >= 9223372036854775808.0)
		return INT64_MAX;
	if (x < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

#endif
