package web

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"payments/handlers/api"
	"payments/handlers/checkout"
	"payments/handlers/ops"
	"payments/handlers/psp"
	"payments/handlers/request"
	"payments/operations"
	"payments/store/eventfeed"
	"payments/versions"
)

func mountRoutes(app *fiber.App, cfg Config, deps Deps) {
	// The one maker of changes, behind the API's and the dashboard's doors.
	rulebook := &operations.Operations{Store: deps.Store, LiveMode: cfg.LiveMode, Tester: deps.Tester, BaseURL: cfg.BaseURL,
		Webhooks: operations.WebhookRules{AllowPrivateNetworks: cfg.AllowPrivateNetworks}}
	app.Use(requestID, accessLog(deps.AccessLog), countRequests(deps.Metrics), recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			deps.Log.ErrorContext(c.UserContext(), "panic", "request_id", request.RequestID(c), "panic", e)
		},
	}), refuseHostileBytes, securityHeaders)
	if deps.Tracer != nil {
		app.Use(traceRequests(deps.Tracer))
	} else {
		app.Use(carryTrace)
	}

	health := &ops.Health{Checks: map[string]func(context.Context) error{
		"database": func(ctx context.Context) error { return deps.Store.DB().PingContext(ctx) },
	}}
	if deps.Redis != nil {
		health.Checks["redis"] = func(ctx context.Context) error { return deps.Redis.Ping(ctx).Err() }
	}
	if deps.Metrics != nil {
		app.Get("/metrics", metricsAccess(cfg.MetricsToken, len(cfg.TrustedProxies) > 0), adaptor.HTTPHandler(deps.Metrics.Handler()))
	}
	app.Get("/healthz", health.Live)
	app.Get("/readyz", health.Ready)

	var counter rateCounter = newMemoryCounter()
	if deps.Redis != nil {
		counter = &redisCounter{client: deps.Redis, prefix: cfg.CounterPrefix}
	}
	payer := &checkout.Checkout{Store: deps.Store, Ops: rulebook, SandboxPayerURL: cfg.SandboxPayerURL, ReceiverName: cfg.PixReceiverName,
		AllowLinkCharge: func(ctx context.Context, ip string) (bool, error) {
			n, err := counter.hit(ctx, "link:ip:"+ip, time.Now().Truncate(time.Minute), time.Minute)
			return n <= checkout.LinkChargesPerMinute, err
		}}
	app.Get("/pay/subscriptions/:id/qr.png", payer.SubscriptionQR)
	app.Get("/pay/qr/:id/qr.png", payer.StaticQRCode)
	app.Get("/pay/qr/:id", payer.StaticQRPage)
	app.Get("/pay/link/:id/qr.png", payer.LinkQRCode)
	app.Get("/pay/link/:id", browserLocale, payer.LinkPage)
	app.Post("/pay/link/:id", browserLocale, cleanInput, payer.LinkCharge)
	app.Get("/pay/subscriptions/:id", payer.SubscriptionPage)
	app.Get("/pay/:id/qr.png", payer.QRCode)
	app.Get("/pay/:id/status", payer.Status)
	app.Get("/pay/:id/receipt.pdf", payer.ReceiptPDF)
	app.Get("/pay/:id/receipt", payer.Receipt)
	app.Get("/pay/:id", payer.Page)

	callbacks := &psp.PSP{Store: deps.Store, Ops: rulebook, Token: cfg.PSPToken, CallbackMTLS: cfg.CallbackMTLS, CallbackToken: cfg.CallbackToken}
	app.Post("/psp/webhook/pix", callbacks.Callback)
	app.Post("/psp/webhook/:token/pix", callbacks.CallbackWithToken)
	app.Post("/psp/webhook/rec", callbacks.RecCallback)
	app.Post("/psp/webhook/:token/rec", callbacks.RecCallbackWithToken)
	app.Post("/psp/webhook/cobr", callbacks.CobRCallback)
	app.Post("/psp/webhook/:token/cobr", callbacks.CobRCallbackWithToken)
	app.Post("/psp/webhook/infracoes", callbacks.InfracaoCallback)
	app.Post("/psp/webhook/:token/infracoes", callbacks.InfracaoCallbackWithToken)
	app.Post("/psp/webhook/med", callbacks.MEDCallback)
	app.Post("/psp/webhook/:token/med", callbacks.MEDCallbackWithToken)
	app.Post("/psp/disputes", callbacks.NotifyDispute)

	streams := eventfeed.New(deps.Store, deps.Log, streamPoll, eventfeed.Limits{
		PerKey: cmp.Or(cfg.StreamsPerKey, DefaultStreamsPerKey), PerAccount: cmp.Or(cfg.StreamsPerAccount, DefaultStreamsPerAccount)})
	deps.Metrics.WatchStreams(func() float64 { return float64(streams.Stats().Open) },
		func() float64 { return float64(streams.Stats().StoreReads) })
	a := &api.API{Store: deps.Store, Ops: rulebook, Log: deps.Log, ChargeWait: cfg.ChargeWait, Closing: deps.Closing, Streams: streams, Metrics: deps.Metrics,
		EventTypes: eventTypesBody}
	v1 := app.Group("/api/v1")
	v1.Use(askedVersion(versions.API))
	v1.Get("/openapi.json", (&versionDocuments{list: versions.API}).serveOpenAPI)
	v1.Get("/reports/:id/file", reportFileInBrowser)
	v1.Use(apiKeyAuth(newKeyCache(deps.Store, cfg.APIKeyCacheTTL), newInvalidKeyThrottle(counter, deps.Metrics, deps.Log), deps.KeyUsage), rateLimit(counter, cfg.RateLimitLive, cfg.RateLimitTest, deps.Log), idempotency(deps.Store, isLiveCreation),
		convertVersion(versions.API))
	v1.Post("/payments", ruled("CreatePayment"), a.CreatePayment)
	v1.Get("/payments", needs(read(operations.Payments)), a.ListPayments)
	v1.Get("/payments/:ref", needs(read(operations.Payments)), a.GetPayment)
	v1.Get("/payments/:ref/amount_due", needs(read(operations.Payments)), a.GetAmountDue)
	v1.Post("/payment_batches", ruled("CreatePaymentBatch"), a.CreatePaymentBatch)
	v1.Post("/subscriptions", ruled("CreateSubscription"), a.CreateSubscription)
	v1.Get("/subscriptions", needs(read(operations.Payments)), a.ListSubscriptions)
	v1.Get("/subscriptions/:id", needs(read(operations.Payments)), a.GetSubscription)
	v1.Post("/subscriptions/:id/cancel", ruled("CancelSubscription"), a.CancelSubscription)
	v1.Post("/subscriptions/:id/cycles", ruled("CreateCycle"), a.CreateCycle)
	v1.Post("/test_helpers/subscriptions/:id/authorize", ruled("SimulateAuthorization"), a.TestHelperAuthorize)
	v1.Post("/test_helpers/subscriptions/:id/reject", ruled("SimulateAuthorization"), a.TestHelperReject)
	v1.Post("/test_helpers/subscriptions/:id/payer_cancel", ruled("SimulatePayerCancel"), a.TestHelperPayerCancel)
	v1.Post("/test_helpers/subscriptions/:id/run_cycle", ruled("SimulateCycle"), a.TestHelperRunCycle)
	v1.Get("/payment_batches/:id", needs(read(operations.Payments)), a.GetPaymentBatch)
	v1.Delete("/payments/:ref", ruled("CancelPayment"), a.CancelPayment)
	v1.Post("/payments/:ref/refund", ruled("RefundPayment"), a.RefundPayment)
	v1.Post("/test_helpers/payments/:ref/pay", ruled("SimulatePayment"), a.TestHelperPay)
	v1.Post("/test_helpers/payments/:ref/expire", ruled("SimulateExpiry"), a.TestHelperExpire)
	v1.Post("/test_helpers/payments/:ref/dispute", ruled("SimulateDispute"), a.TestHelperDispute)
	v1.Post("/test_helpers/disputes/:id/win", ruled("SimulateDisputeOutcome"), a.TestHelperWinDispute)
	v1.Post("/test_helpers/disputes/:id/lose", ruled("SimulateDisputeOutcome"), a.TestHelperLoseDispute)
	v1.Post("/test_helpers/withdrawals/:id/complete", ruled("SimulateWithdrawalEnd"), a.TestHelperCompleteWithdrawal)
	v1.Post("/test_helpers/withdrawals/:id/fail", ruled("SimulateWithdrawalEnd"), a.TestHelperFailWithdrawal)
	v1.Post("/test_helpers/withdrawals/:id/contest_result", ruled("SimulateContestResult"), a.TestHelperContestResult)
	v1.Post("/test_helpers/pix_qr_codes/:id/pay", ruled("SimulatePixQRCodePayment"), a.TestHelperPayPixQRCode)
	v1.Post("/test_helpers/refunds/:id/succeed", ruled("SimulateRefundEnd"), a.TestHelperSucceedRefund)
	v1.Post("/test_helpers/refunds/:id/fail", ruled("SimulateRefundEnd"), a.TestHelperFailRefund)
	v1.Post("/refunds", ruled("CreateRefund"), a.CreateRefund)
	v1.Get("/refunds", needs(read(operations.Refunds)), a.ListRefunds)
	v1.Get("/refunds/:id", needs(read(operations.Refunds)), a.GetRefund)
	v1.Get("/balance", needs(read(operations.Balance)), a.GetBalance)
	v1.Get("/disputes", needs(read(operations.Disputes)), a.ListDisputes)
	v1.Get("/disputes/:id", needs(read(operations.Disputes)), a.GetDispute)
	v1.Post("/disputes/:id/defense", ruled("DefendDispute"), a.DefendDispute)
	v1.Get("/disputes/:id/evidence/:file", needs(read(operations.Disputes)), a.DisputeEvidence)
	v1.Post("/withdrawals", ruled("CreateWithdrawal"), a.CreateWithdrawal)
	v1.Get("/withdrawals", needs(read(operations.Withdrawals)), a.ListWithdrawals)
	v1.Get("/withdrawals/:id", needs(read(operations.Withdrawals)), a.GetWithdrawal)
	v1.Post("/withdrawals/:id/contest", ruled("ContestWithdrawal"), a.ContestWithdrawal)
	v1.Post("/pix_qr_codes", ruled("CreatePixQRCode"), a.CreatePixQRCode)
	v1.Get("/pix_qr_codes", needs(read(operations.Payments)), a.ListPixQRCodes)
	v1.Get("/pix_qr_codes/:id", needs(read(operations.Payments)), a.GetPixQRCode)
	v1.Post("/pix_qr_codes/:id/deactivate", ruled("DeactivatePixQRCode"), a.DeactivatePixQRCode)
	v1.Post("/subaccounts", ruled("CreateSubaccount"), a.CreateSubaccount)
	v1.Get("/subaccounts", needs(read(operations.Subaccounts)), a.ListSubaccounts)
	v1.Get("/subaccounts/:id", needs(read(operations.Subaccounts)), a.GetSubaccount)
	v1.Post("/payment_links", ruled("CreatePaymentLink"), a.CreatePaymentLink)
	v1.Get("/payment_links", needs(read(operations.Payments)), a.ListPaymentLinks)
	v1.Get("/payment_links/:id", needs(read(operations.Payments)), a.GetPaymentLink)
	v1.Post("/payment_links/:id/deactivate", ruled("DeactivatePaymentLink"), a.DeactivatePaymentLink)
	v1.Get("/events", needs(read(operations.Events)), a.ListEvents)
	v1.Get("/events/stream", needs(read(operations.Events)), a.StreamEvents)
	v1.Get("/events/:id", needs(read(operations.Events)), a.GetEvent)
	v1.Get("/event_types", a.ListEventTypes)
	v1.Get("/api_versions", a.ListAPIVersions)
	v1.Post("/events/:id/resend", ruled("ResendEvent"), a.ResendEvent)
	v1.Post("/webhooks", ruled("CreateWebhook"), a.CreateWebhook)
	v1.Get("/webhooks", needs(read(operations.Webhooks)), a.ListWebhooks)
	v1.Get("/webhooks/:id", needs(read(operations.Webhooks)), a.GetWebhook)
	v1.Post("/webhooks/:id", ruled("UpdateWebhook"), a.UpdateWebhook)
	v1.Delete("/webhooks/:id", ruled("DeleteWebhook"), a.DeleteWebhook)
	v1.Post("/webhooks/:id/rotate_secret", ruled("RotateWebhookSecret"), a.RotateWebhookSecret)
	v1.Post("/webhooks/:id/test", ruled("SendTest"), a.TestWebhook)
	v1.Post("/webhooks/:id/resend_failed", ruled("ResendFailedSince"), a.ResendFailed)
	v1.Post("/webhooks/:id/recover", ruled("RecoverEvents"), a.RecoverWebhook)
	v1.Post("/webhooks/:id/replay", ruled("ReplayWebhook"), a.ReplayWebhook)
	v1.Get("/webhooks/:id/replays", needs(read(operations.Webhooks)), a.ListReplays)
	v1.Get("/webhooks/:id/replays/:replay_id", needs(read(operations.Webhooks)), a.GetReplay)
	v1.Get("/webhooks/:id/deliveries", needs(read(operations.Webhooks)), a.ListDeliveries)
	v1.Get("/webhooks/:id/deliveries/:delivery_id", needs(read(operations.Webhooks)), a.GetDelivery)
	v1.Post("/webhooks/:id/deliveries/:delivery_id/resend", ruled("ResendDelivery"), a.ResendDelivery)
	// A report holds one resource's rows: the operation checks who may
	// read the report's.
	v1.Post("/reports", a.CreateReport)
	v1.Get("/reports", a.ListReports)
	v1.Get("/reports/:id", a.GetReport)
	v1.Get("/reports/:id/file", a.ReportFile)

	mountDashboard(app, cfg, deps, rulebook, counter)
}

// reportFileInBrowser sends a browser that opens a report's file_url
// without a key (a link followed from an e-mail or a webhook's payload) to
// the dashboard's copy of it, which its session (or sign-in) serves.
// Anything else goes on to the API's key check.
func reportFileInBrowser(c *fiber.Ctx) error {
	if c.Get(fiber.HeaderAuthorization) == "" && strings.Contains(c.Get(fiber.HeaderAccept), "text/html") {
		return c.Redirect("/dashboard/reports/"+url.PathEscape(c.Params("id"))+"/file", http.StatusSeeOther)
	}
	return c.Next()
}

// read is the permission on resource a route that reads it needs (a
// change's route names its action in the Rulebook instead: ruled).
func read(resource string) operations.Permission { return operations.Read(resource) }

// isLiveCreation says the request creates a live payment, which keeps its
// Idempotency-Key itself (see idempotency).
func isLiveCreation(c *fiber.Ctx) bool {
	return request.APIKey(c).Livemode && c.Method() == fiber.MethodPost && c.Path() == "/api/v1/payments"
}
