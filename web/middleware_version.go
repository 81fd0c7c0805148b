package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
	"payments/versions"
)

// askedVersion reads a request's Payments-Version header: a version the
// API never had is 400 payments_version_unknown naming the header. Every
// answer says which version made it in its own Payments-Version: the
// header's, else (once apiKeyAuth knows the key) the account's pin, else
// the current one.
func askedVersion(list versions.List) fiber.Handler {
	current := list.Current()
	return func(c *fiber.Ctx) error {
		asked := strings.TrimSpace(c.Get(versions.Header))
		if asked == "" {
			c.Set(versions.Header, current) // until apiKeyAuth knows the pin
			return c.Next()
		}
		if !list.Known(asked) {
			c.Set(versions.Header, current)
			return reply.InvalidParam("payments_version_unknown", versions.Header,
				"The Payments-Version header names no version of this API ('%s'). The versions are %s; leave the header out to use your account's.",
				reply.Truncate(asked), strings.Join(list.Dates(), ", "))
		}
		c.Set(versions.Header, asked)
		request.SetVersion(c, asked, true)
		return c.Next()
	}
}

// pinVersion answers a request without a Payments-Version header in the
// version acct (the key's own account: a platform acting for a subaccount
// speaks its own integration's) is pinned to.
func pinVersion(c *fiber.Ctx, acct *store.Account) {
	if _, asked := request.Version(c); asked || acct == nil || acct.PaymentsVersion == "" {
		return
	}
	request.SetVersion(c, acct.PaymentsVersion, false)
	c.Set(versions.Header, acct.PaymentsVersion)
}

// convertVersion gives a request of an older version the shapes its
// integration was written against: its body as the current version reads
// it, and a successful answer turned back, one change at a time, into its
// version's. Only the routes a change names are touched; a request of the
// current version passes straight through.
func convertVersion(list versions.List) fiber.Handler {
	current := list.Current()
	return func(c *fiber.Ctx) error {
		version, _ := request.Version(c)
		if version == current {
			return c.Next()
		}
		route := list.Route(c.Method(), strings.TrimSuffix(c.Path(), "/"))
		if route == "" {
			return c.Next()
		}
		if len(c.Body()) > 0 && list.ChangesRequest(version, route) {
			c.Request().SetBody(list.Request(version, route, c.Body()))
		}
		if err := c.Next(); err != nil {
			return err
		}
		if status := c.Response().StatusCode(); status < 200 || status > 299 {
			return nil
		}
		body, err := list.Response(version, route, c.Response().Body())
		if err != nil {
			return fmt.Errorf("web: answer in version %s: %w", version, err)
		}
		c.Response().SetBody(body)
		return nil
	}
}

// versionDocuments are the OpenAPI document as each version describes the
// API, made once from the current one by the changes' Document converters.
type versionDocuments struct {
	list versions.List
	once sync.Once
	docs map[string][]byte
	err  error
}

func (d *versionDocuments) document(version string) ([]byte, error) {
	d.once.Do(func() {
		d.docs = map[string][]byte{d.list.Current(): OpenAPIDocument}
		for _, v := range d.list.Dates() {
			if v == d.list.Current() {
				continue
			}
			var doc map[string]any
			dec := json.NewDecoder(bytes.NewReader(OpenAPIDocument))
			dec.UseNumber()
			if d.err = dec.Decode(&doc); d.err != nil {
				return
			}
			d.list.Document(v, doc)
			if info, ok := doc["info"].(map[string]any); ok {
				info["version"] = v
			}
			b, err := json.MarshalIndent(doc, "", "  ")
			if d.err = err; err != nil {
				return
			}
			d.docs[v] = append(b, '\n')
		}
	})
	return d.docs[version], d.err
}

// serveOpenAPI handles GET /api/v1/openapi.json: the document of the
// version the Payments-Version header names (the current one without it),
// so a client generated from it is the one that version's integrator was
// built with.
func (d *versionDocuments) serveOpenAPI(c *fiber.Ctx) error {
	version, _ := request.Version(c)
	doc, err := d.document(version)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	c.Set(fiber.HeaderVary, versions.Header)
	return c.Send(doc)
}
