package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// client calls the API with one key.
type client struct {
	base string
	key  string
	http *http.Client
}

// apiError is an error answer, in the API's one error shape.
type apiError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param"`
}

func (e *apiError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("%s (%s, HTTP %d)", e.Message, e.Code, e.Status)
}

// connection holds the flags every command takes.
type connection struct {
	apiKey, baseURL *string
}

func connectionFlags(fs *flag.FlagSet, getenv func(string) string) connection {
	base := getenv("PAYMENTS_BASE_URL")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	return connection{
		apiKey:  fs.String("api-key", getenv("PAYMENTS_API_KEY"), "API key (default $PAYMENTS_API_KEY)"),
		baseURL: fs.String("base-url", base, "the service's address (default $PAYMENTS_BASE_URL or http://127.0.0.1:8080)"),
	}
}

func (c connection) client() (*client, error) {
	if *c.apiKey == "" {
		return nil, fmt.Errorf("%w: no API key: pass --api-key or set PAYMENTS_API_KEY", errUsage)
	}
	return &client{base: strings.TrimRight(*c.baseURL, "/"), key: *c.apiKey, http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// do sends a request and decodes a 2xx JSON answer into out (raw, when
// out is *json.RawMessage); any other answer is an *apiError.
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("User-Agent", "paymentsctl")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return decodeError(res.StatusCode, data)
	}
	if raw, ok := out.(*json.RawMessage); ok {
		*raw = data
		return nil
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

func decodeError(status int, data []byte) *apiError {
	var body struct {
		Error apiError `json:"error"`
	}
	e := &apiError{Status: status, Message: strings.TrimSpace(string(data))}
	if json.Unmarshal(data, &body) == nil && body.Error.Code != "" {
		e = &body.Error
		e.Status = status
	}
	return e
}

// printJSON writes raw JSON indented.
func printJSON(out io.Writer, raw []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := out.Write(b.Bytes())
	return err
}

// parseArgs parses flags that may come before and after the positional
// arguments (Go's flag stops at the first positional one).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
