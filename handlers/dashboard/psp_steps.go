package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"payments/pix/apipix"
	"payments/views"
)

// pspSteps are the calls to the PSP about these objects, for the page.
func (d *Dashboard) pspSteps(c *fiber.Ctx, objectIDs []string) ([]views.PSPStep, error) {
	calls, err := d.Store.CallsForObjects(c.UserContext(), objectIDs)
	if err != nil {
		return nil, err
	}
	steps := make([]views.PSPStep, 0, len(calls))
	for _, call := range calls {
		s := views.PSPStep{Kind: call.Kind, ObjectID: call.ObjectID, Status: call.Status, Attempts: call.Attempts, At: when(c, call.UpdatedAt)}
		if call.LastError != nil {
			s.LastError, s.Trouble = *call.LastError, apipix.Trouble(*call.LastError)
		}
		steps = append(steps, s)
	}
	return steps, nil
}
