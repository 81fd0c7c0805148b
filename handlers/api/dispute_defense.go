package api

import (
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
)

// DefendDispute handles POST /api/v1/disputes/{id}/defense: the merchant's
// answer to a dispute (MED 2.0), its text and evidence files.
func (a *API) DefendDispute(c *fiber.Ctx) error {
	id, err := disputeID(c)
	if err != nil {
		return err
	}
	in, apiErr := request.Defense(c)
	if apiErr != nil {
		return apiErr
	}
	d, err := a.Ops.DefendDispute(c.UserContext(), request.Actor(c), request.Scope(c), id, in)
	if err != nil {
		return reply.DefendDispute(err, id)
	}
	return c.JSON(d)
}

// DisputeEvidence handles GET /api/v1/disputes/{id}/evidence/{file}: one
// file of a defense, as it was sent.
func (a *API) DisputeEvidence(c *fiber.Ctx) error {
	id, err := disputeID(c)
	if err != nil {
		return err
	}
	fileID := c.Params("file")
	e, err := a.Store.Evidence(c.UserContext(), request.Scope(c), id, fileID)
	if err != nil {
		return reply.Evidence(err, fileID)
	}
	return reply.EvidenceFile(c, e.FileName, e.ContentType, e.Content)
}
