package psp

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/apipix"
	"payments/store/ids"
)

// MaxPixPerNotification bounds one callback's body.
const MaxPixPerNotification = 100

// IDEnvioPattern is a payout's id at the payout port.
var IDEnvioPattern = regexp.MustCompile(`^[A-Za-z0-9]{1,35}$`)

// callbackJSON answers a callback.
type callbackJSON struct {
	Received int `json:"received"`
	Queued   int `json:"queued"`
}

// Callback handles POST /psp/webhook/pix, where the PSP posts (API Pix
// appends /pix to the registered webhookUrl) when the service terminates
// TLS: the caller must have presented a client certificate of the PSP's
// CA (PSP_CALLBACK_CA_FILE).
func (p *PSP) Callback(c *fiber.Ctx) error {
	if err := p.mtls(c); err != nil {
		return err
	}
	return p.callback(c)
}

// mtls admits a callback whose caller presented a client certificate of
// the PSP's CA.
func (p *PSP) mtls(c *fiber.Ctx) *reply.Error {
	tlsState := c.Context().TLSConnectionState()
	if !p.CallbackMTLS || tlsState == nil || len(tlsState.VerifiedChains) == 0 {
		return callbackRefused("This callback needs the PSP's client certificate (mutual TLS).")
	}
	return nil
}

// pathToken admits a callback whose path carries PSP_CALLBACK_TOKEN.
func (p *PSP) pathToken(c *fiber.Ctx) *reply.Error {
	token, _ := request.Param(c, "token")
	if p.CallbackToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(p.CallbackToken)) != 1 {
		return callbackRefused("Unknown callback address.")
	}
	return nil
}

// CallbackWithToken handles POST /psp/webhook/{token}/pix: the same, for a
// service behind a reverse proxy that terminates (mutual) TLS, with an
// unguessable token (PSP_CALLBACK_TOKEN) in the registered URL.
func (p *PSP) CallbackWithToken(c *fiber.Ctx) error {
	if err := p.pathToken(c); err != nil {
		return err
	}
	return p.callback(c)
}

func callbackRefused(message string) *reply.Error {
	return &reply.Error{Status: http.StatusUnauthorized, Type: reply.TypeAuthentication, Code: "psp_callback_unauthenticated", Message: message}
}

// callback reads the body, {"pix":[...]}, and takes each item as the hint
// it is: a received Pix is queued for confirmation with the PSP (GET
// /pix/{e2eid}) before anything is credited, and its devoluções' checks are
// woken; a payout's check is woken. Nothing here moves money, so a forged,
// replayed or wrong callback costs a GET at most.
func (p *PSP) callback(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "pix")
	if apiErr != nil {
		return apiErr
	}
	var items []apipix.CallbackItem
	if err := json.Unmarshal(o.Raw("pix"), &items); err != nil || len(items) == 0 {
		return reply.InvalidParam("parameter_invalid", "pix", "pix must be a non-empty array of transfers.")
	}
	if len(items) > MaxPixPerNotification {
		return reply.InvalidParam("parameter_invalid", "pix", "At most %d transfers per callback.", MaxPixPerNotification)
	}
	for i, it := range items {
		if it.IDEnvio != "" && !IDEnvioPattern.MatchString(it.IDEnvio) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("pix[%d].idEnvio", i), "idEnvio must be 1 to 35 letters and digits.")
		}
		if it.IDEnvio == "" && !EndToEndIDPattern.MatchString(it.EndToEndID) {
			return reply.InvalidParam("parameter_invalid", fmt.Sprintf("pix[%d].endToEndId", i), "endToEndId must be 32 letters and digits.")
		}
	}
	var notice operations.PSPNotice
	for _, it := range items {
		if it.IDEnvio != "" {
			notice.Payouts = append(notice.Payouts, ids.PrefixWithdrawal+"_"+it.IDEnvio)
			continue
		}
		notice.Received = append(notice.Received, it.EndToEndID)
		for _, d := range it.Devolucoes {
			if IDEnvioPattern.MatchString(d.ID) {
				notice.Devolucoes = append(notice.Devolucoes, ids.PrefixRefund+"_"+d.ID)
			}
		}
	}
	queued, err := p.Ops.ReceivePSPNotice(c.UserContext(), pspActor(c), notice)
	if err != nil {
		return err
	}
	return c.JSON(callbackJSON{Received: len(items), Queued: queued})
}
