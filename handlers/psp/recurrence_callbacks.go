package psp

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/apipix"
	"payments/store"
)

// Pix Automático's callbacks: API Pix posts recurrences that changed to
// webhookrec's URL + "/rec" and recurring charges to webhookcobr's +
// "/cobr". As with Pix, each item is a hint: the recurrence (GET /rec) or
// the charge (GET /cobr) is read before anything changes, so a forged or
// replayed callback costs a GET at most.

var (
	// RecIDPattern is a recurrence's id (idRec), TxIDPattern a charge's txid.
	RecIDPattern = regexp.MustCompile(`^[a-zA-Z0-9]{29}$`)
	TxIDPattern  = regexp.MustCompile(`^[a-zA-Z0-9]{26,35}$`)
)

// RecCallback handles POST /psp/webhook/rec (mutual TLS).
func (p *PSP) RecCallback(c *fiber.Ctx) error {
	if err := p.mtls(c); err != nil {
		return err
	}
	return p.recCallback(c)
}

// RecCallbackWithToken handles POST /psp/webhook/{token}/rec.
func (p *PSP) RecCallbackWithToken(c *fiber.Ctx) error {
	if err := p.pathToken(c); err != nil {
		return err
	}
	return p.recCallback(c)
}

// CobRCallback handles POST /psp/webhook/cobr (mutual TLS).
func (p *PSP) CobRCallback(c *fiber.Ctx) error {
	if err := p.mtls(c); err != nil {
		return err
	}
	return p.cobrCallback(c)
}

// CobRCallbackWithToken handles POST /psp/webhook/{token}/cobr.
func (p *PSP) CobRCallbackWithToken(c *fiber.Ctx) error {
	if err := p.pathToken(c); err != nil {
		return err
	}
	return p.cobrCallback(c)
}

// recCallback reads {"recs":[{"idRec",...}]} and queues a read of each
// recurrence that is one of the service's live subscriptions.
func (p *PSP) recCallback(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "recs")
	if apiErr != nil {
		return apiErr
	}
	var items []apipix.RecNotification
	if err := json.Unmarshal(o.Raw("recs"), &items); err != nil || len(items) == 0 || len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "recs", "recs must be an array of 1 to %d recurrences.", MaxPixPerNotification)
	}
	for i, it := range items {
		if !RecIDPattern.MatchString(it.IDRec) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("recs[%d].idRec", i), "idRec must be 29 letters and digits.")
		}
	}
	ctx := c.UserContext()
	var notice operations.PSPNotice
	for _, it := range items {
		sub, err := p.Store.LiveSubscriptionByRecID(ctx, it.IDRec)
		if errors.Is(err, store.ErrNotFound) {
			continue // not ours: nothing to read
		}
		if err != nil {
			return err
		}
		notice.Recurrences = append(notice.Recurrences, *sub)
	}
	if _, err := p.Ops.ReceivePSPNotice(ctx, pspActor(c), notice); err != nil {
		return err
	}
	return c.JSON(callbackJSON{Received: len(items), Queued: len(notice.Recurrences)})
}

// cobrCallback reads {"cobsr":[{"txid",...}]} and queues a read of each
// recurring charge that is one of the service's live cycles.
func (p *PSP) cobrCallback(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "cobsr")
	if apiErr != nil {
		return apiErr
	}
	var items []apipix.CobRNotification
	if err := json.Unmarshal(o.Raw("cobsr"), &items); err != nil || len(items) == 0 || len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "cobsr", "cobsr must be an array of 1 to %d recurring charges.", MaxPixPerNotification)
	}
	for i, it := range items {
		if !TxIDPattern.MatchString(it.TxID) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("cobsr[%d].txid", i), "txid must be 26 to 35 letters and digits.")
		}
	}
	ctx := c.UserContext()
	var notice operations.PSPNotice
	for _, it := range items {
		cycle, err := p.Store.LiveCycleByTxID(ctx, it.TxID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		notice.Cycles = append(notice.Cycles, *cycle)
	}
	if _, err := p.Ops.ReceivePSPNotice(ctx, pspActor(c), notice); err != nil {
		return err
	}
	queued := len(notice.Cycles)
	return c.JSON(callbackJSON{Received: len(items), Queued: queued})
}
