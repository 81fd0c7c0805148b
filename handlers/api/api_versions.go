package api

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/versions"
)

// apiVersion is one dated version as GET /api/v1/api_versions lists it.
type apiVersion struct {
	Object  string   `json:"object"`
	Version string   `json:"version"`
	Current bool     `json:"current"`
	Changes []string `json:"changes"`
}

// ListAPIVersions handles GET /api/v1/api_versions: the changelog, every
// dated version newest first with the breaking changes it made (the
// first's: none). The version a request is answered in is its answer's
// Payments-Version header.
func (a *API) ListAPIVersions(c *fiber.Ctx) error {
	if _, _, apiErr := parseListQuery(c, nil, nil); apiErr != nil {
		return apiErr
	}
	out := make([]apiVersion, 0, len(versions.API))
	for _, v := range slices.Backward(versions.API) {
		item := apiVersion{Object: "api_version", Version: v.Date, Current: v.Date == versions.API.Current(), Changes: []string{}}
		for _, change := range v.Changes {
			item.Changes = append(item.Changes, change.Summary)
		}
		out = append(out, item)
	}
	return c.JSON(fiber.Map{"object": "list", "url": "/api/v1/api_versions", "has_more": false, "data": out})
}
