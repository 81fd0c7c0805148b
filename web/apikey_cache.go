package web

import (
	"context"
	"sync"
	"time"

	"payments/store"
)

// maxCachedKeys bounds the cache; past it the cache starts over.
const maxCachedKeys = 10_000

// keyCache keeps API keys found by their secret for a short TTL, so a busy
// integration does not cost a database lookup per request. Only keys that
// exist are kept (by SHA-256 of the secret, never the secret): a revoked key
// stops working within the TTL, in every instance.
type keyCache struct {
	ttl  time.Duration
	st   *store.Store
	mu   sync.Mutex
	keys map[string]cachedKey
}

type cachedKey struct {
	key     *store.APIKey
	expires time.Time
}

func newKeyCache(st *store.Store, ttl time.Duration) *keyCache {
	return &keyCache{ttl: ttl, st: st, keys: map[string]cachedKey{}}
}

// lookup returns the key whose secret this is, from the cache while fresh.
func (kc *keyCache) lookup(ctx context.Context, secret string) (*store.APIKey, error) {
	if kc.ttl <= 0 {
		return kc.st.APIKeyBySecret(ctx, secret)
	}
	hash := string(store.HashAPIKey(secret))
	now := time.Now()
	kc.mu.Lock()
	c, ok := kc.keys[hash]
	kc.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.key, nil
	}
	k, err := kc.st.APIKeyBySecret(ctx, secret)
	if err != nil {
		return nil, err
	}
	kc.mu.Lock()
	if len(kc.keys) >= maxCachedKeys {
		kc.keys = map[string]cachedKey{}
	}
	kc.keys[hash] = cachedKey{key: k, expires: now.Add(kc.ttl)}
	kc.mu.Unlock()
	return k, nil
}
