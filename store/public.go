package store

import (
	"encoding/json"
	"strconv"
	"time"

	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store/apimodel"
	"payments/store/jsonw"
)

// The converters from rows to the public shapes (store/apimodel): what the
// API answers and what an event freezes. The shapes live apart from the
// tables; a row's MarshalJSON is its shape's.

// MarshalJSON renders the public representation: the API's response body
// and the object frozen into events.
func (p *Payment) MarshalJSON() ([]byte, error) {
	return p.appendJSON(make([]byte, 0, 1024)), nil
}

func (p *Payment) appendJSON(b []byte) []byte {
	public := p.API()
	return public.AppendJSON(b)
}

// API is p's public shape.
func (p *Payment) API() apimodel.Payment {
	out := apimodel.Payment{
		ID: p.ID, Livemode: p.Livemode, Status: p.Status, AmountCents: p.AmountCents, Currency: p.Currency,
		PaymentMethod: p.PaymentMethod, ExternalID: p.ExternalID, Description: p.Description, Customer: p.Customer.api(),
		Metadata: p.Metadata, CorrelationID: p.CorrelationID, FeeCents: p.FeeCents, AmountRefundedCents: p.AmountRefundedCents,
		NetCents: p.NetCents(), BRCode: p.BRCode, QRCodeURL: p.QRCodeURL, CheckoutURL: p.CheckoutURL,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, PaidAt: p.PaidAt, ExpiresAt: p.ExpiresAt,
		CanceledAt: p.CanceledAt, ExpiredAt: p.ExpiredAt, RefundedAt: p.RefundedAt,
		AmountDueCents: p.AmountDueToday(time.Now()), Due: dueMembers(p.DueTerms), Subscription: p.SubscriptionID, PixQRCode: p.PixQRCode, PaymentLink: p.PaymentLink,
	}
	if p.Cycle != nil {
		out.Cycle, _ = json.Marshal(p.Cycle)
	}
	if p.PaidAt != nil {
		paid := p.ReceivedCents()
		out.AmountPaidCents = &paid
	}
	if len(p.Splits) > 0 {
		out.Splits = appendAPISplits(make([]byte, 0, 128*len(p.Splits)), p.apiSplits())
	}
	return out
}

// apiSplits are p's splits as the API shows them, each with its part once paid.
func (p *Payment) apiSplits() []apimodel.Split {
	parts := p.SplitParts()
	out := make([]apimodel.Split, len(p.Splits))
	for i, s := range p.Splits {
		out[i] = apimodel.Split{Account: s.Account, AmountCents: s.AmountCents, FeePayer: s.FeePayer}
		if s.PercentBPS != nil {
			n := json.Number(strconv.FormatFloat(float64(*s.PercentBPS)/100, 'f', -1, 64))
			out[i].Percent = &n
		}
		if parts != nil {
			out[i].NetCents = &parts[i]
		}
	}
	return out
}

// AmountDueToday is what the payer owes on now's date in Brasília, 0 when
// the payment cannot be paid.
func (p *Payment) AmountDueToday(now time.Time) int64 {
	if b := p.AmountDue(calendar.Today(now)); b.Payable {
		return b.AmountDueCents
	}
	return 0
}

// dueMembers renders due-date terms as the payment's members from
// "due_date" to "abatement" (nil for none).
func dueMembers(t *cobv.Terms) []byte {
	if t == nil {
		return nil
	}
	b, err := json.Marshal(t)
	if err != nil || len(b) < 2 {
		return nil
	}
	return b[1 : len(b)-1]
}

// api is c's public shape (nil for none).
func (c *Customer) api() *apimodel.Customer {
	if c == nil {
		return nil
	}
	return &apimodel.Customer{Name: c.Name, Email: c.Email, Document: c.Document, Phone: c.Phone}
}

// appendCustomerJSON appends c as the API shows it, or null: the customer
// column holds exactly that.
func appendCustomerJSON(b []byte, c *Customer) []byte {
	return apimodel.AppendCustomer(b, c.api())
}

// MarshalJSON renders the public representation.
func (r *Refund) MarshalJSON() ([]byte, error) {
	return json.Marshal(apimodel.Refund{
		ID: r.ID, Object: "refund", Livemode: r.Livemode, Status: r.Status, PaymentID: r.PaymentID.String(),
		AmountCents: r.AmountCents, AmountLabel: pix.FormatBRL(r.AmountCents), FeeCents: r.FeeCents, Currency: "BRL",
		Reason: r.Reason, Description: r.Description, FailureReason: r.FailureReason,
		CreatedAt: jsonw.FormatTime(r.CreatedAt), UpdatedAt: jsonw.FormatTime(r.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(r.CompletedAt),
	})
}

// MarshalJSON renders the public representation.
func (d *Dispute) MarshalJSON() ([]byte, error) {
	out := apimodel.Dispute{
		ID: d.ID, Object: "dispute", Livemode: d.Livemode, Status: d.Status, PaymentID: d.PaymentID.String(),
		AmountCents: d.AmountCents, AmountLabel: pix.FormatBRL(d.AmountCents), Currency: "BRL", Reason: d.Reason,
		CreatedAt: jsonw.FormatTime(d.CreatedAt), UpdatedAt: jsonw.FormatTime(d.UpdatedAt), ClosedAt: jsonw.FormatTimePtr(d.ClosedAt),
		AmountReportedCents: d.AmountReportedCents, AmountHeldCents: d.AmountCents, InfractionID: d.PSPReference, Stage: d.Stage,
		RespondBy: jsonw.FormatTime(d.RespondBy), AnalysisDeadline: jsonw.FormatTime(d.AnalysisDeadline),
		ReturnDeadline: jsonw.FormatTime(d.ReturnDeadline),
	}
	if d.DefendedAt != nil {
		out.Defense = &apimodel.DisputeDefense{Text: *d.DefenseText, SubmittedAt: jsonw.FormatTime(*d.DefendedAt),
			Evidence: []apimodel.DisputeEvidence{}}
		for _, e := range d.Evidence {
			out.Defense.Evidence = append(out.Defense.Evidence, apimodel.DisputeEvidence{ID: e.ID, Object: "dispute_evidence",
				FileName: e.FileName, ContentType: e.ContentType, SizeBytes: e.SizeBytes, SHA256: e.SHA256,
				URL: "/api/v1/disputes/" + d.ID + "/evidence/" + e.ID, CreatedAt: jsonw.FormatTime(e.CreatedAt)})
		}
	}
	return json.Marshal(out)
}

// MarshalJSON renders the public representation.
func (b *Balance) MarshalJSON() ([]byte, error) {
	return json.Marshal(apimodel.Balance{
		Object: "balance", Livemode: b.Livemode, Currency: "BRL",
		AvailableCents: b.AvailableCents, AvailableLabel: pix.FormatBRL(b.AvailableCents),
		PendingCents: b.PendingCents, PendingLabel: pix.FormatBRL(b.PendingCents),
	})
}

// MarshalJSON renders the public representation.
func (w *Withdrawal) MarshalJSON() ([]byte, error) {
	metadata := w.Metadata
	if metadata == nil {
		metadata = map[string]string{}
	}
	out := apimodel.Withdrawal{
		ID: w.ID, Object: "withdrawal", Livemode: w.Livemode, Status: w.Status, AmountCents: w.AmountCents,
		AmountLabel: pix.FormatBRL(w.AmountCents), Currency: "BRL", PixKey: w.PixKey, PixKeyType: w.PixKeyType,
		Description: w.Description, Metadata: metadata, EndToEndID: w.EndToEndID, FailureReason: w.FailureReason,
		CreatedAt: jsonw.FormatTime(w.CreatedAt), UpdatedAt: jsonw.FormatTime(w.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(w.CompletedAt), FailedAt: jsonw.FormatTimePtr(w.FailedAt),
	}
	if w.ContestStatus != nil {
		out.Contest = &apimodel.WithdrawalContest{Status: *w.ContestStatus, Reason: *w.ContestReason, Description: *w.ContestDescription,
			AmountReturnedCents: w.ContestReturnedCents, Reference: w.ContestReference, CreatedAt: jsonw.FormatTime(*w.ContestedAt),
			ResolvedAt: jsonw.FormatTimePtr(w.ContestResolvedAt)}
	}
	return json.Marshal(out)
}

// JSON is w's public shape at now (a rotation's end shows only while it lasts).
func (w *Webhook) JSON(now time.Time) apimodel.Webhook {
	out := apimodel.Webhook{
		ID: w.ID, Object: "webhook", Livemode: w.Livemode, Name: w.Name, URL: w.URL, APIVersion: w.APIVersion,
		Events: w.Events, Enabled: w.Enabled, RateLimit: w.RateLimit, DisabledReason: w.DisabledReason, SecretHint: w.SecretHint,
		FailingSince: jsonw.FormatTimePtr(w.FailingSince), CreatedAt: jsonw.FormatTime(w.CreatedAt),
		UpdatedAt: jsonw.FormatTime(w.UpdatedAt), SignatureAlgorithm: w.SignatureAlgorithm, PublicKey: w.PublicKey,
		Ordered: w.Ordered, ForwardTrace: w.ForwardTrace, Filter: w.Filter, PaymentsVersion: w.PaymentsVersion,
	}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(now) {
		out.PreviousSecretExpiresAt = jsonw.FormatTimePtr(w.PreviousSecretExpiresAt)
	}
	if w.PausedUntil != nil && w.PausedUntil.After(now) {
		out.PausedUntil = jsonw.FormatTimePtr(w.PausedUntil)
	}
	out.MTLS = w.mtlsJSON(now)
	return out
}

// JSON is d's public shape; its attempts are those loaded with it.
func (d *Delivery) JSON() apimodel.Delivery {
	out := apimodel.Delivery{
		ID: d.ID, Object: "webhook_delivery", WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		Livemode: d.Livemode, Status: d.Status, Test: d.Test, AttemptCount: d.Attempts, LastStatusCode: d.LastStatusCode,
		LastError: d.LastError, CreatedAt: jsonw.FormatTime(d.CreatedAt), UpdatedAt: jsonw.FormatTime(d.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(d.CompletedAt), Attempts: make([]apimodel.Attempt, 0, len(d.AttemptsList)),
	}
	if d.Status == DeliveryPending {
		out.NextAttemptAt = jsonw.FormatTimePtr(&d.NextAttemptAt)
	}
	for i := range d.AttemptsList {
		out.Attempts = append(out.Attempts, d.AttemptsList[i].JSON())
	}
	return out
}

// JSON is a's public shape.
func (a *DeliveryAttempt) JSON() apimodel.Attempt {
	out := apimodel.Attempt{
		ID: a.ID, Object: "webhook_attempt", Attempt: a.Attempt, EventID: a.EventID, EventType: a.EventType,
		Request:    apimodel.AttemptRequest{URL: a.RequestURL, Headers: a.RequestHeaders, Body: a.RequestBody},
		DurationMS: a.DurationMS, CreatedAt: jsonw.FormatTime(a.CreatedAt),
	}
	if out.Request.Headers == nil {
		out.Request.Headers = map[string]string{}
	}
	if a.ResponseStatus != nil {
		headers := a.ResponseHeaders
		if headers == nil {
			headers = map[string][]string{}
		}
		out.Response = &apimodel.AttemptResponse{Status: *a.ResponseStatus, Headers: headers, Body: a.ResponseText()}
	}
	if a.ErrorClass != nil {
		msg := ""
		if a.ErrorMessage != nil {
			msg = *a.ErrorMessage
		}
		out.Error = &apimodel.AttemptError{Class: *a.ErrorClass, Message: msg}
	}
	return out
}

// CertificateExpiryWarning is how long before its end a client certificate
// is said to be expiring (the API, the health panel, the owners' notice).
const CertificateExpiryWarning = 30 * 24 * time.Hour

// CertificateExpiring says w's client certificate ends within
// CertificateExpiryWarning of now (or has ended).
func (w *Webhook) CertificateExpiring(now time.Time) bool {
	return w.MTLSExpiresAt != nil && w.MTLSExpiresAt.Before(now.Add(CertificateExpiryWarning))
}

func (w *Webhook) mtlsJSON(now time.Time) *apimodel.MTLS {
	if w.MTLSCertificate == nil && w.MTLSServerCA == nil {
		return nil
	}
	out := &apimodel.MTLS{}
	if w.MTLSCertificate != nil {
		out.ClientCertificate = &apimodel.ClientCertificate{Subject: *w.MTLSSubject, Issuer: *w.MTLSIssuer,
			FingerprintSHA256: *w.MTLSFingerprint, ExpiresAt: jsonw.FormatTime(*w.MTLSExpiresAt), ExpiringSoon: w.CertificateExpiring(now)}
	}
	if w.MTLSServerCA != nil {
		out.ServerCA = &apimodel.ServerCA{Subjects: *w.MTLSServerCASubjects, FingerprintSHA256: *w.MTLSServerCAFingerprint}
	}
	return out
}

// MarshalJSON renders the public representation: its image is served at
// qr_code_url.
func (q *PixQRCode) MarshalJSON() ([]byte, error) {
	out := apimodel.PixQRCode{ID: q.ID, Object: "pix_qr_code", Livemode: q.Livemode, Status: q.Status, AmountCents: q.AmountCents,
		Description: q.Description, TxID: q.TxID, BRCode: q.BRCode, QRCodeURL: q.BaseURL + "/pay/qr/" + q.ID + "/qr.png",
		PageURL:   q.BaseURL + "/pay/qr/" + q.ID,
		ExpiresAt: jsonw.FormatTimePtr(q.ExpiresAt), Payments: q.Payments, AmountReceivedCents: q.ReceivedCents,
		CreatedAt: jsonw.FormatTime(q.CreatedAt), UpdatedAt: jsonw.FormatTime(q.UpdatedAt)}
	if q.AmountCents != nil {
		label := pix.FormatBRL(*q.AmountCents)
		out.AmountLabel = &label
	}
	return json.Marshal(out)
}

// MarshalJSON renders the public representation: available says whether
// its page takes a payer now.
func (l *PaymentLink) MarshalJSON() ([]byte, error) {
	out := apimodel.PaymentLink{ID: l.ID, Object: "payment_link", Livemode: l.Livemode, Status: l.Status,
		Available: l.Available, URL: l.URL(), QRCodeURL: l.URL() + "/qr.png", Description: l.Description,
		AmountCents: l.AmountCents, MinAmountCents: l.MinAmountCents, MaxAmountCents: l.MaxAmountCents, Collect: l.Collect,
		MaxUses: l.MaxUses, Uses: l.Uses, OpenCharges: l.Open, AmountReceivedCents: l.ReceivedCents,
		ExpiresAt: jsonw.FormatTimePtr(l.ExpiresAt), CreatedAt: jsonw.FormatTime(l.CreatedAt), UpdatedAt: jsonw.FormatTime(l.UpdatedAt)}
	if l.AmountCents != nil {
		label := pix.FormatBRL(*l.AmountCents)
		out.AmountLabel = &label
	}
	return json.Marshal(out)
}

// MarshalJSON renders the public representation: platform is a
// subaccount's platform (null for an account of its own).
func (a *Account) MarshalJSON() ([]byte, error) {
	return json.Marshal(apimodel.Account{ID: a.ID, Object: "account", Name: a.Name, Document: a.Document, Email: a.Email,
		PixKey: a.PixKey, Status: a.Status, Platform: a.ParentAccountID, LiveEnabled: a.LiveEnabled(), CreatedAt: jsonw.FormatTime(a.CreatedAt)})
}
