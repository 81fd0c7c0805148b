package web

import (
	"cmp"
	"context"

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
)

func mountRoutes(app *fiber.App, cfg Config, deps Deps) {
	// The one maker of changes, behind the API's and the dashboard's doors.
	rulebook := &operations.Operations{Store: deps.Store, LiveMode: cfg.LiveMode, Tester: deps.Tester,
		Webhooks: operations.Webhooks{AllowPrivateNetworks: cfg.AllowPrivateNetworks}}
	app.Use(requestID, accessLog(deps.AccessLog), countRequests(deps.Metrics), recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			deps.Log.ErrorContext(c.UserContext(), "panic", "request_id", request.RequestID(c), "panic", e)
		},
	}), refuseHostileBytes, securityHeaders)
	if deps.Tracer != nil {
		app.Use(traceRequests(deps.Tracer))
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

	payer := &checkout.Checkout{Store: deps.Store, SandboxPayerURL: cfg.SandboxPayerURL}
	app.Get("/pay/:id/qr.png", payer.QRCode)
	app.Get("/pay/:id/status", payer.Status)
	app.Get("/pay/:id", payer.Page)

	callbacks := &psp.PSP{Store: deps.Store, Ops: rulebook, Token: cfg.PSPToken, CallbackMTLS: cfg.CallbackMTLS, CallbackToken: cfg.CallbackToken}
	app.Post("/psp/webhook/pix", callbacks.Callback)
	app.Post("/psp/webhook/:token/pix", callbacks.CallbackWithToken)
	app.Post("/psp/disputes", callbacks.NotifyDispute)

	var counter rateCounter = newMemoryCounter()
	if deps.Redis != nil {
		counter = &redisCounter{client: deps.Redis, prefix: cfg.CounterPrefix}
	}
	streams := eventfeed.New(deps.Store, deps.Log, streamPoll, eventfeed.Limits{
		PerKey: cmp.Or(cfg.StreamsPerKey, DefaultStreamsPerKey), PerAccount: cmp.Or(cfg.StreamsPerAccount, DefaultStreamsPerAccount)})
	deps.Metrics.WatchStreams(func() float64 { return float64(streams.Stats().Open) },
		func() float64 { return float64(streams.Stats().StoreReads) })
	a := &api.API{Store: deps.Store, Ops: rulebook, Log: deps.Log, ChargeWait: cfg.ChargeWait, Closing: deps.Closing, Streams: streams, Metrics: deps.Metrics}
	v1 := app.Group("/api/v1")
	v1.Get("/openapi.json", serveOpenAPI)
	v1.Use(apiKeyAuth(newKeyCache(deps.Store, cfg.APIKeyCacheTTL), newInvalidKeyThrottle(counter, deps.Metrics, deps.Log)), rateLimit(counter, cfg.RateLimitLive, cfg.RateLimitTest, deps.Log), idempotency(deps.Store, isLiveCreation))
	v1.Post("/payments", a.CreatePayment)
	v1.Get("/payments", a.ListPayments)
	v1.Get("/payments/:ref", a.GetPayment)
	v1.Delete("/payments/:ref", a.CancelPayment)
	v1.Post("/payments/:ref/refund", a.RefundPayment)
	v1.Post("/test_helpers/payments/:ref/pay", a.TestHelperPay)
	v1.Post("/test_helpers/payments/:ref/expire", a.TestHelperExpire)
	v1.Post("/test_helpers/payments/:ref/dispute", a.TestHelperDispute)
	v1.Post("/test_helpers/disputes/:id/win", a.TestHelperWinDispute)
	v1.Post("/test_helpers/disputes/:id/lose", a.TestHelperLoseDispute)
	v1.Post("/test_helpers/withdrawals/:id/complete", a.TestHelperCompleteWithdrawal)
	v1.Post("/test_helpers/withdrawals/:id/fail", a.TestHelperFailWithdrawal)
	v1.Post("/test_helpers/refunds/:id/succeed", a.TestHelperSucceedRefund)
	v1.Post("/test_helpers/refunds/:id/fail", a.TestHelperFailRefund)
	v1.Post("/refunds", a.CreateRefund)
	v1.Get("/refunds", a.ListRefunds)
	v1.Get("/refunds/:id", a.GetRefund)
	v1.Get("/balance", a.GetBalance)
	v1.Get("/disputes", a.ListDisputes)
	v1.Get("/disputes/:id", a.GetDispute)
	v1.Post("/withdrawals", a.CreateWithdrawal)
	v1.Get("/withdrawals", a.ListWithdrawals)
	v1.Get("/withdrawals/:id", a.GetWithdrawal)
	v1.Get("/events", a.ListEvents)
	v1.Get("/events/stream", a.StreamEvents)
	v1.Get("/events/:id", a.GetEvent)
	v1.Post("/events/:id/resend", a.ResendEvent)
	v1.Post("/webhooks", a.CreateWebhook)
	v1.Get("/webhooks", a.ListWebhooks)
	v1.Get("/webhooks/:id", a.GetWebhook)
	v1.Post("/webhooks/:id", a.UpdateWebhook)
	v1.Delete("/webhooks/:id", a.DeleteWebhook)
	v1.Post("/webhooks/:id/rotate_secret", a.RotateWebhookSecret)
	v1.Post("/webhooks/:id/test", a.TestWebhook)
	v1.Post("/webhooks/:id/resend_failed", a.ResendFailed)
	v1.Post("/webhooks/:id/recover", a.RecoverWebhook)
	v1.Get("/webhooks/:id/deliveries", a.ListDeliveries)
	v1.Get("/webhooks/:id/deliveries/:delivery_id", a.GetDelivery)
	v1.Post("/webhooks/:id/deliveries/:delivery_id/resend", a.ResendDelivery)

	mountDashboard(app, cfg, deps, rulebook, counter)
}

// isLiveCreation says the request creates a live payment, which keeps its
// Idempotency-Key itself (see idempotency).
func isLiveCreation(c *fiber.Ctx) bool {
	return request.APIKey(c).Livemode && c.Method() == fiber.MethodPost && c.Path() == "/api/v1/payments"
}
