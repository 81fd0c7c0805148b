package store

import (
	"context"
	"fmt"
	"time"

	"payments/store/ids"
)

// UserSession is one of a person's signed-in browsers.
type UserSession struct {
	ID         string    `bun:"id"`
	UserID     string    `bun:"user_id"`
	IP         *string   `bun:"ip"`
	UserAgent  string    `bun:"user_agent"`
	CreatedAt  time.Time `bun:"created_at"`
	LastSeenAt time.Time `bun:"last_seen_at"`
}

// SessionLimits end a session idle longer than Idle or older than MaxAge.
type SessionLimits struct {
	Idle, MaxAge time.Duration
}

// OpenSession records a new session of user id (in its epoch), from ip
// with userAgent, and returns its id.
func (s *Store) OpenSession(ctx context.Context, userID string, epoch int, ip, userAgent string) (string, error) {
	id := ids.New("sess")
	now := s.Now()
	_, err := s.idb(ctx).NewRaw(`INSERT INTO user_sessions (id, user_id, epoch, ip, user_agent, created_at, last_seen_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, id, userID, epoch, inetOf(ip), truncateRunes(userAgent, 300), now, now).Exec(ctx)
	if err != nil {
		return "", fmt.Errorf("store: open session: %w", err)
	}
	return id, nil
}

// TouchSession says whether session id of user id is still on (not ended,
// of the user's current epoch, within limits) and marks it seen now (at
// most once a minute: a write per request is not needed for "last seen").
func (s *Store) TouchSession(ctx context.Context, id, userID string, limits SessionLimits) (bool, error) {
	now := s.Now()
	var on bool
	err := s.idb(ctx).NewRaw(`WITH live AS (
			SELECT us.id, us.last_seen_at FROM user_sessions AS us JOIN users AS u ON u.id = us.user_id
			WHERE us.id = ? AND us.user_id = ? AND us.ended_at IS NULL AND us.epoch = u.session_epoch
				AND us.last_seen_at > ? AND us.created_at > ?
		), seen AS (
			UPDATE user_sessions SET last_seen_at = ? FROM live
			WHERE user_sessions.id = live.id AND live.last_seen_at < ?
		)
		SELECT EXISTS (SELECT 1 FROM live)`,
		id, userID, now.Add(-limits.Idle), now.Add(-limits.MaxAge), now, now.Add(-time.Minute)).Scan(ctx, &on)
	if err != nil {
		return false, fmt.Errorf("store: touch session: %w", err)
	}
	return on, nil
}

// UserSessions lists user id's sessions that are on, most recently seen
// first.
func (s *Store) UserSessions(ctx context.Context, userID string, limits SessionLimits) ([]UserSession, error) {
	now := s.Now()
	var out []UserSession
	err := s.idb(ctx).NewRaw(`SELECT us.id, us.user_id, host(us.ip) AS ip, us.user_agent, us.created_at, us.last_seen_at
		FROM user_sessions AS us JOIN users AS u ON u.id = us.user_id
		WHERE us.user_id = ? AND us.ended_at IS NULL AND us.epoch = u.session_epoch AND us.last_seen_at > ? AND us.created_at > ?
		ORDER BY us.last_seen_at DESC`, userID, now.Add(-limits.Idle), now.Add(-limits.MaxAge)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	return out, nil
}

// EndSessionsOf ends user id's sessions: one (only), or all but one
// (except), and says how many ended.
func (s *Store) EndSessionsOf(ctx context.Context, userID, only, except string) (int, error) {
	q := s.idb(ctx).NewUpdate().Table("user_sessions").Set("ended_at = ?", s.Now()).
		Where("user_id = ? AND ended_at IS NULL", userID)
	if only != "" {
		q = q.Where("id = ?", only)
	}
	if except != "" {
		q = q.Where("id <> ?", except)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: end sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
