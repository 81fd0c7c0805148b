package psp

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/apipix"
	"payments/store"
)

// MED 2.0's callbacks: the PSP posts the infrações that opened or moved on
// to the webhook's URL + "/infracoes". Each item is a hint: the infração is
// read back (GET /v2/gn/infracoes/{id}) before any dispute changes.

// InfracaoIDPattern is an infração's id at the PSP.
var InfracaoIDPattern = regexp.MustCompile(`^[a-zA-Z0-9]{1,64}$`)

// InfracaoCallback handles POST /psp/webhook/infracoes (mutual TLS).
func (p *PSP) InfracaoCallback(c *fiber.Ctx) error {
	if err := p.mtls(c); err != nil {
		return err
	}
	return p.infracaoCallback(c)
}

// InfracaoCallbackWithToken handles POST /psp/webhook/{token}/infracoes.
func (p *PSP) InfracaoCallbackWithToken(c *fiber.Ctx) error {
	if err := p.pathToken(c); err != nil {
		return err
	}
	return p.infracaoCallback(c)
}

// infracaoCallback reads {"infracoes":[{"idInfracao",...}]} and queues a
// read of each.
func (p *PSP) infracaoCallback(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "infracoes")
	if apiErr != nil {
		return apiErr
	}
	var items []apipix.InfracaoNotification
	if err := json.Unmarshal(o.Raw("infracoes"), &items); err != nil || len(items) == 0 || len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "infracoes", "infracoes must be an array of 1 to %d infrações.", MaxPixPerNotification)
	}
	notice := operations.PSPNotice{}
	for i, it := range items {
		if !InfracaoIDPattern.MatchString(it.IDInfracao) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("infracoes[%d].idInfracao", i), "idInfracao must be 1 to 64 letters and digits.")
		}
		notice.Infracoes = append(notice.Infracoes, it.IDInfracao)
	}
	if _, err := p.Ops.ReceivePSPNotice(c.UserContext(), pspActor(c), notice); err != nil {
		return err
	}
	return c.JSON(callbackJSON{Received: len(items), Queued: len(notice.Infracoes)})
}

// MEDCallback handles POST /psp/webhook/med (mutual TLS): requests for
// the return of a Pix sent (contested withdrawals) that moved on.
func (p *PSP) MEDCallback(c *fiber.Ctx) error {
	if err := p.mtls(c); err != nil {
		return err
	}
	return p.medCallback(c)
}

// MEDCallbackWithToken handles POST /psp/webhook/{token}/med.
func (p *PSP) MEDCallbackWithToken(c *fiber.Ctx) error {
	if err := p.pathToken(c); err != nil {
		return err
	}
	return p.medCallback(c)
}

// medCallback reads {"med":[{"idSolicitacao",...}]} and wakes the check of
// each contested withdrawal it names (its payout's id, as sent).
func (p *PSP) medCallback(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "med")
	if apiErr != nil {
		return apiErr
	}
	var items []apipix.MEDNotification
	if err := json.Unmarshal(o.Raw("med"), &items); err != nil || len(items) == 0 || len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "med", "med must be an array of 1 to %d requests.", MaxPixPerNotification)
	}
	notice := operations.PSPNotice{}
	for i, it := range items {
		if !InfracaoIDPattern.MatchString(it.IDSolicitacao) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("med[%d].idSolicitacao", i), "idSolicitacao must be 1 to 64 letters and digits.")
		}
		notice.Contests = append(notice.Contests, store.WithdrawalIDOfPayout(it.IDSolicitacao))
	}
	if _, err := p.Ops.ReceivePSPNotice(c.UserContext(), pspActor(c), notice); err != nil {
		return err
	}
	return c.JSON(callbackJSON{Received: len(items), Queued: len(notice.Contests)})
}
