package metering

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// redisKeys are the names the meter uses. The {units} hash tag keeps them
// in one Redis Cluster slot, which the push script needs.
type redisKeys struct {
	batches string // set of batch ids pushed and not yet moved to the store
	batch   string // prefix of one batch's hash: key id -> units
}

func newRedisKeys(prefix string) redisKeys {
	return redisKeys{batches: prefix + "{units}:batches", batch: prefix + "{units}:batch:"}
}

// pushScript stores a batch and lists it in one atomic step. Running it
// twice with the same batch writes the same values: a retry is harmless.
const pushScript = `
for i = 2, #ARGV, 2 do
	redis.call('HSET', KEYS[1], ARGV[i], ARGV[i+1])
end
redis.call('SADD', KEYS[2], ARGV[1])
return 1`

// DialRedis makes the client the meter uses.
func DialRedis(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true
	return redis.NewClient(opt), nil
}

func (m *Meter) pushToRedis(ctx context.Context, b batch) error {
	args := make([]any, 0, 1+2*len(b.units))
	args = append(args, b.id)
	for id, n := range b.units {
		args = append(args, id, n)
	}
	if err := m.push.Run(ctx, m.rdb, []string{m.keys.batch + b.id, m.keys.batches}, args...).Err(); err != nil {
		return fmt.Errorf("metering: push to Redis: %w", err)
	}
	return nil
}

// moveToStore writes every listed batch to the store (idempotently, by its
// id) and only then removes it from Redis.
func (m *Meter) moveToStore(ctx context.Context) error {
	ids, err := m.rdb.SMembers(ctx, m.keys.batches).Result()
	if err != nil {
		m.redisFailed(err)
		return nil // nothing listed can be moved; the pushers keep their copies
	}
	m.redisAnswered()
	for _, id := range ids {
		if err := m.moveBatch(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (m *Meter) moveBatch(ctx context.Context, id string) error {
	key := m.keys.batch + id
	raw, err := m.rdb.HGetAll(ctx, key).Result()
	if err != nil {
		m.redisFailed(err)
		return nil
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
	if err := m.deleteBatch(ctx, id); err != nil {
		m.redisFailed(err)
	}
	return nil
}

// deleteBatch removes a batch the store has applied from Redis.
func (m *Meter) deleteBatch(ctx context.Context, id string) error {
	if err := m.rdb.Del(ctx, m.keys.batch+id).Err(); err != nil {
		return err
	}
	return m.rdb.SRem(ctx, m.keys.batches, id).Err()
}
