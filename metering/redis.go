package metering

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// redisKeys are the names the meter uses. The {units} hash tag keeps them
// in one Redis Cluster slot, which the move script needs.
type redisKeys struct {
	pending  string // hash key id -> units, where requests count
	batches  string // set of batch ids moved out of pending, not yet deleted
	flushing string // prefix of one batch's hash
}

func newRedisKeys(prefix string) redisKeys {
	return redisKeys{pending: prefix + "{units}:pending", batches: prefix + "{units}:batches",
		flushing: prefix + "{units}:batch:"}
}

// moveScript turns the pending hash into a batch and records the batch id
// in one atomic step, so no unit is ever in neither place.
const moveScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then
	redis.call('RENAME', KEYS[1], KEYS[2])
	redis.call('SADD', KEYS[3], ARGV[1])
	return 1
end
return 0`

// DialRedis makes the client the meter counts with. Retries are off: a
// retried HINCRBY whose first attempt did land would count a unit twice.
func DialRedis(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.MaxRetries = -1
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true
	return redis.NewClient(opt), nil
}

func (m *Meter) flushRedis(ctx context.Context) error {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	if err := m.move.Run(ctx, m.rdb, []string{m.keys.pending, m.keys.flushing + id, m.keys.batches}, id).Err(); err != nil {
		return fmt.Errorf("metering: move pending units: %w", err)
	}
	// Finish every batch, not only ours: some may be left by a process
	// that stopped between moving and deleting.
	ids, err := m.rdb.SMembers(ctx, m.keys.batches).Result()
	if err != nil {
		return fmt.Errorf("metering: list batches: %w", err)
	}
	for _, id := range ids {
		if err := m.persistBatch(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// persistBatch writes one batch to the store (idempotently, by its id) and
// then removes it from Redis.
func (m *Meter) persistBatch(ctx context.Context, id string) error {
	key := m.keys.flushing + id
	raw, err := m.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("metering: read batch: %w", err)
	}
	units := make(map[string]int64, len(raw))
	for keyID, v := range raw {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("metering: batch %s: units of %s: %w", id, keyID, err)
		}
		units[keyID] = n
	}
	if err := m.store.AddUnits(ctx, id, units); err != nil {
		return fmt.Errorf("metering: persist batch: %w", err)
	}
	if err := m.rdb.Del(ctx, key).Err(); err != nil {
		return fmt.Errorf("metering: delete batch: %w", err)
	}
	return m.rdb.SRem(ctx, m.keys.batches, id).Err()
}
