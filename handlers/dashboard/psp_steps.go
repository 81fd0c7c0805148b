package dashboard

import (
	"context"

	"payments/store"
	"payments/views"
)

// pspSteps are the calls to the PSP about these objects, for the page.
func (d *Dashboard) pspSteps(ctx context.Context, objectIDs []string) ([]views.PSPStep, error) {
	calls, err := d.Store.CallsForObjects(ctx, objectIDs)
	if err != nil {
		return nil, err
	}
	steps := make([]views.PSPStep, 0, len(calls))
	for _, c := range calls {
		s := views.PSPStep{Kind: c.Kind, Label: views.PSPStepLabel(c.Kind), ObjectID: c.ObjectID, Status: c.Status,
			Attempts: c.Attempts, At: views.FormatTime(c.UpdatedAt)}
		if c.LastError != nil {
			s.LastError = *c.LastError
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// liveModeOff refuses a live money movement when no PSP is configured.
func (d *Dashboard) liveModeOff(scope store.Scope) bool { return scope.Livemode && !d.LiveMode }
