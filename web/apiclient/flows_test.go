package apiclient

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// brasilia is the account's zone (the default): a report's days are its.
var brasilia = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// client is the generated client, authenticated with key.
func client(t *testing.T, baseURL, key string) *ClientWithResponses {
	t.Helper()
	c, err := NewClientWithResponses(baseURL, WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	require.NoError(t, err)
	return c
}

// The README's flows through the Go client oapi-codegen generates from
// web/openapi.json, as a Go integrator would write them.
func TestGeneratedGoClientRunsTheREADMEFlows(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	receiver := webtest.NewReceiver(t, nil)
	c := client(t, s.URL, s.TestKey)
	ctx := context.Background()
	key := func(k string) *IdempotencyKey { return &k }
	str := func(v string) *string { return &v }

	// Create with an Idempotency-Key, then the same again: one payment, replayed.
	body := CreatePaymentJSONRequestBody{AmountCents: 12990, Description: str("Pedido #1001"), ExternalId: str("order:1001"),
		Metadata: &map[string]string{"cart": "c_77"}}
	body.Customer = &CustomerInput{Document: "529.982.247-25", Email: "maria@example.com", Name: "Maria Silva"}
	created, err := c.CreatePaymentWithResponse(ctx, &CreatePaymentParams{IdempotencyKey: key("order-1001-create")}, body)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, created.StatusCode(), "%s", created.Body)
	p := created.JSON201
	require.Equal(t, PaymentStatus("pending"), p.Status)
	require.Equal(t, "R$ 129,90", p.AmountLabel)
	require.Equal(t, "52998224725", p.Customer.Document)
	again, err := c.CreatePaymentWithResponse(ctx, &CreatePaymentParams{IdempotencyKey: key("order-1001-create")}, body)
	require.NoError(t, err)
	require.Equal(t, "true", again.HTTPResponse.Header.Get("Idempotent-Replayed"))
	require.Equal(t, p.Id, again.JSON201.Id)

	// Read it by an external_id with a ':'.
	got, err := c.GetPaymentWithResponse(ctx, "order:1001")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, got.StatusCode(), "%s", got.Body)
	require.Equal(t, p.Id, got.JSON200.Id)
	missing, err := c.GetPaymentWithResponse(ctx, "order:none")
	require.NoError(t, err)
	require.Equal(t, "resource_missing", missing.JSON404.Error.Code)

	// List with cursors, and with the optional filters left out.
	for i := range 3 {
		_, err := c.CreatePaymentWithResponse(ctx, nil, CreatePaymentJSONRequestBody{AmountCents: 100 + i})
		require.NoError(t, err)
	}
	limit := 2
	first, err := c.ListPaymentsWithResponse(ctx, &ListPaymentsParams{Limit: &limit})
	require.NoError(t, err)
	require.Len(t, first.JSON200.Data, 2)
	require.True(t, first.JSON200.HasMore)
	after := first.JSON200.Data[1].Id
	next, err := c.ListPaymentsWithResponse(ctx, &ListPaymentsParams{Limit: &limit, StartingAfter: &after})
	require.NoError(t, err)
	require.NotEqual(t, after, next.JSON200.Data[0].Id)
	all, err := c.ListPaymentsWithResponse(ctx, nil)
	require.NoError(t, err)
	require.Len(t, all.JSON200.Data, 4)

	// Cancel a pending payment; a paid one refuses, and is refunded.
	canceled, err := c.CancelPaymentWithResponse(ctx, next.JSON200.Data[0].Id.String())
	require.NoError(t, err)
	require.Equal(t, PaymentStatus("canceled"), canceled.JSON200.Status)
	paid, err := c.TestHelperPayPaymentWithResponse(ctx, "order:1001", nil, TestHelperPayPaymentJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, PaymentStatus("paid"), paid.JSON200.Status)
	refused, err := c.CancelPaymentWithResponse(ctx, "order:1001")
	require.NoError(t, err)
	require.Equal(t, "payment_not_cancelable", refused.JSON409.Error.Code)
	part := 1_000
	partly, err := c.RefundPaymentWithResponse(ctx, "order:1001", nil, RefundPaymentJSONRequestBody{AmountCents: &part})
	require.NoError(t, err)
	require.Equal(t, PaymentStatus("paid"), partly.JSON200.Status, "R$ 10,00 back of more: still paid")
	refunded, err := c.RefundPaymentWithResponse(ctx, "order:1001", nil, RefundPaymentJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, PaymentStatus("refunded"), refunded.JSON200.Status, "the rest")

	// Webhooks: create, send a test, list deliveries (no status filter), rotate.
	hook, err := c.CreateWebhookWithResponse(ctx, nil, CreateWebhookJSONRequestBody{
		Url: receiver.URL, Name: str("Orders"), Events: []EventType{"payment.paid", "payment.expired"}})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, hook.StatusCode(), "%s", hook.Body)
	require.True(t, strings.HasPrefix(*hook.JSON201.Secret, "whsec_"))
	tested, err := c.TestWebhookWithResponse(ctx, hook.JSON201.Id, nil, TestWebhookJSONRequestBody{})
	require.NoError(t, err)
	require.True(t, tested.JSON200.Success, "%s", tested.Body)
	deliveries, err := c.ListWebhookDeliveriesWithResponse(ctx, hook.JSON201.Id, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, deliveries.StatusCode(), "%s", deliveries.Body)
	rotated, err := c.RotateWebhookSecretWithResponse(ctx, hook.JSON201.Id, nil, RotateWebhookSecretJSONRequestBody{})
	require.NoError(t, err)
	require.NotEqual(t, *hook.JSON201.Secret, *rotated.JSON200.Secret)
	require.NotNil(t, rotated.JSON200.PreviousSecretExpiresAt)

	// An ed25519 webhook: no secret comes back, a public key does, and its
	// test delivery verifies with crypto/ed25519 and that key alone.
	ed := CreateWebhookJSONBodySignatureAlgorithmEd25519
	signed, err := c.CreateWebhookWithResponse(ctx, nil, CreateWebhookJSONRequestBody{
		Url: receiver.URL, Events: []EventType{"payment.paid"}, SignatureAlgorithm: &ed})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, signed.StatusCode(), "%s", signed.Body)
	require.Nil(t, signed.JSON201.Secret)
	require.Equal(t, WebhookWithSecretSignatureAlgorithmEd25519, signed.JSON201.SignatureAlgorithm)
	before := len(receiver.Requests())
	tested, err = c.TestWebhookWithResponse(ctx, signed.JSON201.Id, nil, TestWebhookJSONRequestBody{})
	require.NoError(t, err)
	require.True(t, tested.JSON200.Success, "%s", tested.Body)
	sent := receiver.Requests()[before]
	public, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(*signed.JSON201.PublicKey, "whpk_"))
	require.NoError(t, err)
	sig, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sent.Header.Get("webhook-signature"), "v1a,"))
	require.NoError(t, err)
	message := append([]byte(sent.Header.Get("webhook-id")+"."+sent.Header.Get("webhook-timestamp")+"."), sent.Body...)
	require.True(t, ed25519.Verify(public, message, sig))
	require.Empty(t, sent.Header.Get("X-Service-Signature"))

	// Withdraw: too much is refused; what is there goes out and completes.
	broke, err := c.CreateWithdrawalWithResponse(ctx, nil, CreateWithdrawalJSONRequestBody{AmountCents: 100_000_000, PixKey: "+5561988880000"})
	require.NoError(t, err)
	require.Equal(t, "balance_insufficient", broke.JSON409.Error.Code)
	funded, err := c.CreatePaymentWithResponse(ctx, nil, CreatePaymentJSONRequestBody{AmountCents: 5000})
	require.NoError(t, err)
	_, err = c.TestHelperPayPaymentWithResponse(ctx, funded.JSON201.Id.String(), nil, TestHelperPayPaymentJSONRequestBody{})
	require.NoError(t, err)
	wd, err := c.CreateWithdrawalWithResponse(ctx, &CreateWithdrawalParams{IdempotencyKey: key("payout-1")},
		CreateWithdrawalJSONRequestBody{AmountCents: 2000, PixKey: "+5561988880000", Description: str("Saque")})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, wd.StatusCode(), "%s", wd.Body)
	done, err := c.TestHelperCompleteWithdrawalWithResponse(ctx, wd.JSON201.Id, nil, TestHelperCompleteWithdrawalJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, WithdrawalStatus("completed"), done.JSON200.Status)
	balance, err := c.GetBalanceWithResponse(ctx)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, balance.StatusCode())

	// Today's ledger for the accountant, as a CSV: asked for, built, fetched.
	today := openapi_types.Date{Time: time.Now().In(brasilia)}
	asked, err := c.CreateReportWithResponse(ctx, &CreateReportParams{IdempotencyKey: key("ledger-today")},
		CreateReportJSONRequestBody{Type: "ledger", Format: "csv", From: today, To: today})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, asked.StatusCode(), "%s", asked.Body)
	require.Equal(t, ReportStatus("pending"), asked.JSON201.Status)
	_, err = s.Reports.BuildNext(ctx)
	require.NoError(t, err)
	ready, err := c.GetReportWithResponse(ctx, asked.JSON201.Id)
	require.NoError(t, err)
	require.Equal(t, ReportStatus("ready"), ready.JSON200.Status, "%s", ready.Body)
	file, err := c.GetReportFileWithResponse(ctx, asked.JSON201.Id)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, file.StatusCode())
	lines := strings.Split(strings.TrimSpace(string(file.Body)), "\n")
	require.Equal(t, *ready.JSON200.RowCount+1, len(lines), "a header and one line per entry")
	require.Positive(t, *ready.JSON200.RowCount)

	// A due-date charge: 2% fine and 1% a month, paid 15 days late.
	day := func(n int) openapi_types.Date { return openapi_types.Date{Time: time.Now().AddDate(0, 0, n)} }
	due, thirty, percent, monthly := day(10), 30, "2.00", "1.00"
	bill, err := c.CreatePaymentWithResponse(ctx, nil, CreatePaymentJSONRequestBody{AmountCents: 100000, ExternalId: str("mensalidade:03"),
		DueDate: &due, DaysAfterDue: &thirty, Fine: &DueValue{Percent: &percent}, Interest: &DueInterest{PercentPerMonth: &monthly},
		Customer: &CustomerInput{Name: "Ana Lima", Email: "ana@example.com", Document: "529.982.247-25"}})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, bill.StatusCode(), "%s", bill.Body)
	late := day(25)
	owed, err := c.GetPaymentAmountDueWithResponse(ctx, "mensalidade:03", &GetPaymentAmountDueParams{Date: &late})
	require.NoError(t, err)
	require.Equal(t, 102500, owed.JSON200.AmountDueCents)
	paidLate, err := c.TestHelperPayPaymentWithResponse(ctx, "mensalidade:03", nil, TestHelperPayPaymentJSONRequestBody{Date: &late})
	require.NoError(t, err)
	require.Equal(t, 102500, *paidLate.JSON200.AmountPaidCents)

	// A batch: the bad item refused, the good one created.
	var batch CreatePaymentBatchJSONRequestBody
	require.NoError(t, json.Unmarshal([]byte(`{"payments":[{"amount_cents":2500,"external_id":"lote:1"},{"amount_cents":0,"external_id":"lote:2"}]}`), &batch))
	made, err := c.CreatePaymentBatchWithResponse(ctx, nil, batch)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, made.StatusCode(), "%s", made.Body)
	require.Equal(t, 1, made.JSON201.Counts.Created)
	require.Equal(t, "payments[1].amount_cents", *made.JSON201.Items[1].Error.Param)

	// A subscription: authorized with its first payment, a cycle retried then paid, canceled.
	fixed, retry := 49000, CreateSubscriptionJSONBodyRetryPolicy("three_in_seven_days")
	sub, err := c.CreateSubscriptionWithResponse(ctx, nil, CreateSubscriptionJSONRequestBody{
		Payer: struct {
			BankAccount *BankAccount `json:"bank_account,omitempty"`
			Document    string       `json:"document"`
			Name        string       `json:"name"`
		}{Document: "529.982.247-25", Name: "Ana Lima"},
		Contract: "ALUNO-0042", Interval: "monthly", StartDate: day(3), AmountCents: &fixed, RetryPolicy: &retry,
		Journey: "authorization_with_first_payment"})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, sub.StatusCode(), "%s", sub.Body)
	subID := sub.JSON201.Id
	active, err := c.TestHelperAuthorizeSubscriptionWithResponse(ctx, subID, nil, TestHelperAuthorizeSubscriptionJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, SubscriptionStatus("active"), active.JSON200.Status)
	short := "insufficient_balance"
	retried, err := c.TestHelperRunCycleWithResponse(ctx, subID, nil, TestHelperRunCycleJSONRequestBody{Outcome: (*TestHelperRunCycleJSONBodyOutcome)(&short)})
	require.NoError(t, err)
	require.Equal(t, "retrying", string(retried.JSON200.Cycle.Status))
	ended, err := c.CancelSubscriptionWithResponse(ctx, subID, nil, CancelSubscriptionJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, SubscriptionStatus("canceled"), ended.JSON200.Status)

	// A platform: a seller's subaccount, a charge split with it and paid,
	// the seller's balance read for it (Payments-Account, by a request editor).
	seller, err := c.CreateSubaccountWithResponse(ctx, nil, CreateSubaccountJSONRequestBody{Name: "Padaria Pão Quente",
		Document: "12.ABC.345/01DE-35", Email: "padaria@example.com", PixKey: "padaria@example.com"})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, seller.StatusCode(), "%s", seller.Body)
	thirtyPercent := float32(30)
	split, err := c.CreatePaymentWithResponse(ctx, nil, CreatePaymentJSONRequestBody{AmountCents: 10000,
		Splits: &[]SplitInput{{Account: seller.JSON201.Id, Percent: &thirtyPercent}}})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, split.StatusCode(), "%s", split.Body)
	splitPaid, err := c.TestHelperPayPaymentWithResponse(ctx, split.JSON201.Id.String(), nil, TestHelperPayPaymentJSONRequestBody{})
	require.NoError(t, err)
	require.Equal(t, 3000, *splitPaid.JSON200.Splits[0].NetCents)
	asSeller := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Payments-Account", seller.JSON201.Id)
		return nil
	}
	sellerBalance, err := c.GetBalanceWithResponse(ctx, asSeller)
	require.NoError(t, err)
	require.Equal(t, 3000, sellerBalance.JSON200.AvailableCents+sellerBalance.JSON200.PendingCents)

	// A payment link to share: a fixed amount, the payer's name and CPF, two uses.
	price, two := 4500, 2
	link, err := c.CreatePaymentLinkWithResponse(ctx, nil, CreatePaymentLinkJSONRequestBody{Description: "Ingresso — show de sábado",
		AmountCents: &price, Collect: &[]CreatePaymentLinkJSONBodyCollect{"name", "document"}, MaxUses: &two})
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, link.StatusCode(), "%s", link.Body)
	require.True(t, link.JSON201.Available)
	require.True(t, strings.HasSuffix(link.JSON201.Url, "/pay/link/"+link.JSON201.Id), link.JSON201.Url)
	page, err := http.Get(link.JSON201.Url)
	require.NoError(t, err)
	page.Body.Close()
	require.Equal(t, http.StatusOK, page.StatusCode)
}
