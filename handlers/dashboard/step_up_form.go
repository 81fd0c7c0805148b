package dashboard

import (
	"encoding/json"
	"errors"

	"github.com/gofiber/fiber/v2"

	"payments/operations"
)

// A form whose change first wants a fresh second factor sends its person
// to prove it (web's error handler: /dashboard/verify?next=the page); what
// they typed is kept for that page, which shows the form as they filled it
// when they come back, instead of an empty one.

// keepForStepUp keeps fields for page when err asks for a step-up, and
// returns err.
func (d *Dashboard) keepForStepUp(c *fiber.Ctx, err error, page string, fields map[string]string) error {
	if errors.Is(err, operations.ErrStepUpRequired) {
		if b, jerr := json.Marshal(fields); jerr == nil {
			if serr := d.setFlash(c, "stepup-form:"+page, string(b)); serr != nil {
				return serr
			}
		}
	}
	return err
}

// keptForm is what keepForStepUp kept for page (nil: nothing), once.
func (d *Dashboard) keptForm(c *fiber.Ctx, page string) (map[string]string, error) {
	raw, err := d.takeFlash(c, "stepup-form:"+page)
	if err != nil || raw == "" {
		return nil, err
	}
	var fields map[string]string
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return nil, nil // a kept form that no longer reads is an empty form
	}
	return fields, nil
}
