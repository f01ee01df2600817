package ratelimit

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// takeScript is the shared token bucket: it refills the key's bucket up to
// the caller's clock, takes up to ARGV[4] whole tokens and returns how many
// it took and, when none, how long (µs) until one is there. Being one
// script, two processes can never take the same token.
//
// The clock is the caller's (ARGV[1], µs) rather than Redis TIME so tests
// can drive it; a clock behind the stored one only skips the refill, so
// skew between servers costs at most rate x skew tokens once.
const takeScript = `
local now, rate, burst, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local force = ARGV[5] == '1'
local b = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens, ts = tonumber(b[1]) or burst, tonumber(b[2]) or now
if now > ts then
	tokens = math.min(burst, tokens + (now - ts) * rate / 1e6)
	ts = now
end
tokens = math.min(burst, tokens)
local got = math.max(0, math.min(want, math.floor(tokens)))
if force then got = want end -- charged for work already admitted: may go into debt
tokens = tokens - got
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(ts))
-- a bucket left alone longer than it takes to fill is the same as none
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
local wait = 0
if got == 0 then wait = math.ceil((1 - tokens) / rate * 1e6) end
return {got, wait}`

// take asks Redis for up to want tokens of key's bucket.
func (s *shared) take(key string, lim Limit, want int64, now time.Time) (int64, time.Duration, error) {
	return s.run(key, lim, want, now, "0")
}

// takeForced takes want tokens even if the bucket goes into debt.
func (s *shared) takeForced(key string, lim Limit, want int64, now time.Time) (int64, time.Duration, error) {
	return s.run(key, lim, want, now, "1")
}

func (s *shared) run(key string, lim Limit, want int64, now time.Time, force string) (int64, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	res, err := s.script.Run(ctx, s.rdb, []string{s.prefix + key},
		now.UnixMicro(), strconv.FormatFloat(lim.Rate, 'g', -1, 64), max(lim.Burst, 1), want, force).Int64Slice()
	if err != nil {
		return 0, 0, err
	}
	return res[0], time.Duration(res[1]) * time.Microsecond, nil
}

func newTakeScript() *redis.Script { return redis.NewScript(takeScript) }
