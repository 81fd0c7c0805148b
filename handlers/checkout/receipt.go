package checkout

import (
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/store"
	"payments/views"
)

// receipt is the paid charge's receipt the path's {id} names, in the
// payer's language with times in Brasília (set on c for the page).
func (ch *Checkout) receipt(c *fiber.Ctx) (views.Receipt, error) {
	p, err := ch.payment(c)
	if err != nil {
		return views.Receipt{}, err
	}
	if p.PaidAt == nil {
		return views.Receipt{}, reply.InvalidRequest(http.StatusNotFound, "receipt_unavailable",
			"Payment '%s' has no receipt: it is %s, and a receipt is issued once it is paid.", p.ID, p.Status)
	}
	acct, ctx, err := ch.payerLocaleIn(c, p.AccountID, views.ReceiptTimeZone)
	if err != nil {
		return views.Receipt{}, err
	}
	f := views.ReceiptFacts{PaymentID: p.ID.String(), Livemode: p.Livemode, AmountCents: p.ReceivedCents(), PaidAt: *p.PaidAt,
		ReceiverName: acct.Name, Via: ch.via(acct.Name), TxID: p.CorrelationID, RefundedCents: p.AmountRefundedCents, RefundedAt: p.RefundedAt}
	if acct.Document != nil {
		f.ReceiverDocument = *acct.Document
	}
	if cu := p.Customer; cu != nil {
		f.PayerName, f.PayerDocument = cu.Name, cu.Document
	}
	if p.Description != nil {
		f.Description = *p.Description
	}
	// A split charge says whom else it paid, and how much.
	for i, part := range p.SplitParts() {
		name := p.Splits[i].Account
		if to, err := ch.Store.Account(ctx, name); err == nil {
			name = to.Name
		}
		f.Parts = append(f.Parts, views.ReceiptPart{Name: name, AmountCents: part})
	}
	// The transfer that paid it: its end-to-end id, and the PSP's time of
	// settlement, which is the payer's bank's, over ours of marking it paid.
	notes, err := ch.Store.PixNotificationsForPayment(ctx, p.ID)
	if err != nil {
		return views.Receipt{}, err
	}
	for _, n := range notes {
		if n.Outcome == store.PixPaid {
			f.EndToEndID = n.EndToEndID
			if n.SettledAt != nil {
				f.PaidAt = *n.SettledAt
			}
		}
	}
	return views.NewReceipt(ctx, f), nil
}

// Receipt handles GET /pay/{id}/receipt: the payer's receipt of a paid
// charge, addressed like the checkout by the payment's unguessable id.
func (ch *Checkout) Receipt(c *fiber.Ctx) error {
	r, err := ch.receipt(c)
	if err != nil {
		return err
	}
	privateReceipt(c)
	return reply.Page(c, http.StatusOK, views.ReceiptPage(r))
}

// ReceiptPDF handles GET /pay/{id}/receipt.pdf: the same receipt as a PDF,
// shown in the browser and saved as comprovante-<id>.pdf.
func (ch *Checkout) ReceiptPDF(c *fiber.Ctx) error {
	r, err := ch.receipt(c)
	if err != nil {
		return err
	}
	pdf, err := views.ReceiptPDF(c.UserContext(), r, ch.Store.Now())
	if err != nil {
		return err
	}
	privateReceipt(c)
	c.Set(fiber.HeaderContentType, "application/pdf")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`inline; filename="comprovante-%s.pdf"`, r.PaymentID))
	return c.Send(pdf)
}

// privateReceipt keeps a receipt, which names the payer, out of caches
// and search engines (pages are no-store already; the PDF is too): its
// link is the payer's and the merchant's.
func privateReceipt(c *fiber.Ctx) {
	c.Set("Vary", "Accept-Language")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Robots-Tag", "noindex")
}
