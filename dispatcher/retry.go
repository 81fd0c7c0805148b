package dispatcher

import (
	"time"
)

// retrySchedule is the delay before each retry after a failed attempt: the
// first retry 5s after the first failure, the last 24h after the eleventh.
var retrySchedule = []time.Duration{
	5 * time.Second, 30 * time.Second, 2 * time.Minute, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// MaxAttempts is the first attempt plus one per scheduled retry.
var MaxAttempts = len(retrySchedule) + 1

// maxRetryAfter clamps a receiver's Retry-After to the schedule's longest
// wait (its last retry's), for the delivery and the webhook's pause alike.
var maxRetryAfter = retrySchedule[len(retrySchedule)-1]

// Auto-disable: a webhook failing without a single success for this long,
// over at least this many attempts, is disabled.
const (
	AutoDisableAfter    = 5 * 24 * time.Hour
	AutoDisableFailures = 10
)

// retryDelay returns the wait before the next attempt after the attempt-th
// failed, and false when the attempts are used up. jitter in [0,1) adds up to
// 20%. retryAfter (from a 429 or 503) is honoured: the wait is at least that
// long, clamped to a day.
func retryDelay(attempt int, retryAfter time.Duration, jitter float64) (time.Duration, bool) {
	if attempt < 1 || attempt >= MaxAttempts {
		return 0, false
	}
	base := retrySchedule[attempt-1]
	delay := base + time.Duration(float64(base)*0.2*jitter)
	if retryAfter > delay {
		delay = min(retryAfter, maxRetryAfter)
	}
	return delay, true
}
