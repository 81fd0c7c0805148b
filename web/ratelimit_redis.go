package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisCounter counts in Redis, so every instance shares one budget per key.
type redisCounter struct {
	client *redis.Client
	// prefix namespaces the keys (tests sharing one Redis each have their own).
	prefix string
}

func (r *redisCounter) hit(ctx context.Context, key string, window time.Time, size time.Duration) (int64, error) {
	k := r.prefix + "ratelimit:" + key + ":" + strconv.FormatInt(window.Unix(), 10)
	var incr *redis.IntCmd
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		incr = p.Incr(ctx, k)
		p.Expire(ctx, k, 2*size)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("redis rate counter: %w", err)
	}
	return incr.Val(), nil
}

// OpenRedis connects to REDIS_URL and checks that Redis answers, so a wrong
// URL or a down server fails at start with a message that names the address
// and never the password.
func OpenRedis(ctx context.Context, url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, errors.New("REDIS_URL is not a valid redis:// URL")
	}
	client := redis.NewClient(opts)
	pingCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pingCtx).Err(); err != nil {
		_ = client.Close()
		var netErr net.Error
		if errors.As(err, &netErr) {
			return nil, fmt.Errorf("redis at %s is unreachable: %w", opts.Addr, netErr)
		}
		return nil, fmt.Errorf("redis at %s did not answer PING: %w", opts.Addr, err)
	}
	return client, nil
}
