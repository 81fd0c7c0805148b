package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"payments/dispatcher/signature"
	"payments/store/ids"
)

// listenWebhookID stands where a webhook's id is in production headers.
const listenWebhookID = "wh_listen"

// listenState is what listen keeps between runs, per service and key: the
// secret it signs with and the last event it forwarded.
type listenState struct {
	Secret      string `json:"secret"`
	LastEventID string `json:"last_event_id"`
	path        string
}

func loadListenState(base, key string) (*listenState, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	sum := sha256.Sum256([]byte(base + "\x00" + key))
	st := &listenState{path: filepath.Join(dir, "paymentsctl", "listen-"+hex.EncodeToString(sum[:8])+".json")}
	if b, err := os.ReadFile(st.path); err == nil {
		_ = json.Unmarshal(b, st)
	}
	if st.Secret == "" {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		st.Secret = "whsec_" + base64.StdEncoding.EncodeToString(b)
		if err := st.save(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (st *listenState) save() error {
	if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(st)
	tmp := st.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, st.path)
}

func listen(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	conn := connectionFlags(fs, getenv)
	forward := fs.String("forward-to", "", "local URL to POST each event to (required)")
	events := fs.String("events", "", "event types to forward, comma-separated (default: all)")
	version := fs.String("api-version", "v2", "body shape: v2 or v1")
	fromNow := fs.Bool("from-now", false, "skip what happened since the last run")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if u, err := url.Parse(*forward); *forward == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: --forward-to must be an http(s) URL, e.g. http://localhost:3000/hooks", errUsage)
	}
	if *version != "v1" && *version != "v2" {
		return fmt.Errorf("%w: --api-version must be v2 or v1", errUsage)
	}
	c, err := conn.client()
	if err != nil {
		return err
	}
	st, err := loadListenState(c.base, c.key)
	if err != nil {
		return err
	}
	if *fromNow {
		st.LastEventID = ""
	}
	q := url.Values{"api_version": {*version}}
	if *events != "" {
		q.Set("type", *events)
	}
	fmt.Fprintf(out, "Ready! Forwarding events to %s\nYour webhook signing secret is %s (verify with it as in production; it stays the same between runs)\n",
		*forward, st.Secret)
	if st.LastEventID != "" {
		fmt.Fprintf(out, "Resuming after %s (--from-now skips what was missed)\n", st.LastEventID)
	}
	local := &http.Client{Timeout: 15 * time.Second}
	backoff := time.Second
	for ctx.Err() == nil {
		started := time.Now()
		err := c.stream(ctx, "/api/v1/events/stream?"+q.Encode(), st.LastEventID, func(id, eventType string, body []byte) error {
			line := forwardOne(ctx, local, *forward, id, eventType, *version, body, st.Secret)
			// Saved before it is said: what the line reports forwarded is
			// not forwarded again by the next run.
			st.LastEventID = id
			err := st.save()
			fmt.Fprint(out, line)
			return err
		})
		var apiErr *apiError
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.As(err, &apiErr) && apiErr.Status == http.StatusUnauthorized:
			return err
		case errors.As(err, &apiErr) && apiErr.Code == "resource_missing":
			fmt.Fprintf(out, "The service no longer has %s (older than its retention): continuing from now\n", st.LastEventID)
			st.LastEventID = ""
			continue
		case errors.As(err, &apiErr) && apiErr.Status/100 == 4:
			return err
		}
		if time.Since(started) > 30*time.Second {
			backoff = time.Second
		}
		fmt.Fprintf(out, "Connection to %s lost (%v); reconnecting in %s\n", c.base, err, backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
	return nil
}

// stream reads the Server-Sent Events at path after lastID, calling each
// for every event, until the connection ends.
func (c *client) stream(ctx context.Context, path, lastID string, each func(id, eventType string, body []byte) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", "paymentsctl")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := (&http.Client{}).Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return decodeError(res.StatusCode, data)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var id, eventType string
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case line == "":
			if id != "" && data.Len() > 0 {
				if err := each(id, eventType, bytes.Clone(data.Bytes())); err != nil {
					return err
				}
			}
			id, eventType = "", ""
			data.Reset()
		case field == "id":
			id = value
		case field == "event":
			eventType = value
		case field == "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// forwardOne POSTs one event to the local URL with the production headers,
// signed with the session's secret, and returns the line that says so.
func forwardOne(ctx context.Context, local *http.Client, to, id, eventType, version string, body []byte, secret string) string {
	now := time.Now()
	headers := signature.Headers(signature.Request{EventID: id, EventType: eventType, AttemptID: ids.New(ids.PrefixAttempt),
		WebhookID: listenWebhookID, APIVersion: version, Body: body, At: now, Secrets: []string{secret}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to, bytes.NewReader(body))
	if err != nil {
		return fmt.Sprintf("%s  %-22s %s  --> %v\n", now.Format("2006-01-02 15:04:05"), eventType, id, err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := local.Do(req)
	took := fmt.Sprintf("%.1fms", float64(time.Since(now).Microseconds())/1000)
	if err != nil {
		return fmt.Sprintf("%s  %-22s %s  --> POST %s failed: %v\n", now.Format("2006-01-02 15:04:05"), eventType, id, to, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	_ = res.Body.Close()
	return fmt.Sprintf("%s  %-22s %s  --> POST %s [%d] %s\n", now.Format("2006-01-02 15:04:05"), eventType, id, to, res.StatusCode, took)
}
