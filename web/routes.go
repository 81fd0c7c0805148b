package web

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"payments/handlers"
)

func mountRoutes(app *fiber.App, cfg Config, deps Deps) {
	app.Use(requestID, accessLog(deps.AccessLog), recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, e any) {
			deps.Log.ErrorContext(c.UserContext(), "panic", "request_id", handlers.RequestID(c), "panic", e)
		},
	}))

	health := &handlers.Health{Checks: map[string]func(context.Context) error{
		"database": func(ctx context.Context) error { return deps.Store.DB().PingContext(ctx) },
	}}
	if deps.Redis != nil {
		health.Checks["redis"] = func(ctx context.Context) error { return deps.Redis.Ping(ctx).Err() }
	}
	app.Get("/healthz", health.Live)
	app.Get("/readyz", health.Ready)

	pay := &handlers.Pay{Store: deps.Store}
	app.Get("/pay/:id/qr.png", pay.QRCode)
	app.Get("/pay/:id/status", pay.CheckoutStatus)
	app.Get("/pay/:id", pay.Checkout)

	psp := &handlers.PSP{Store: deps.Store, Token: cfg.PSPToken}
	app.Post("/psp/pix", psp.Notify)
	app.Post("/psp/disputes", psp.NotifyDispute)
	app.Post("/psp/withdrawals", psp.NotifyWithdrawal)

	var counter rateCounter = newMemoryCounter()
	if deps.Redis != nil {
		counter = &redisCounter{client: deps.Redis}
	}
	api := &handlers.API{Store: deps.Store, Log: deps.Log, BaseURL: cfg.BaseURL, Pix: cfg.Pix,
		Tester: deps.Tester, AllowPrivateNetworks: cfg.AllowPrivateNetworks}
	v1 := app.Group("/api/v1")
	v1.Get("/openapi.json", handlers.OpenAPI)
	v1.Use(apiKeyAuth(newKeyCache(deps.Store, cfg.APIKeyCacheTTL)), rateLimit(counter, cfg.RateLimitLive, cfg.RateLimitTest, deps.Log), idempotency(deps.Store))
	v1.Post("/payments", api.CreatePayment)
	v1.Get("/payments", api.ListPayments)
	v1.Get("/payments/:ref", api.GetPayment)
	v1.Delete("/payments/:ref", api.CancelPayment)
	v1.Post("/payments/:ref/refund", api.RefundPayment)
	v1.Post("/test_helpers/payments/:ref/pay", api.TestHelperPay)
	v1.Post("/test_helpers/payments/:ref/expire", api.TestHelperExpire)
	v1.Post("/test_helpers/payments/:ref/dispute", api.TestHelperDispute)
	v1.Post("/test_helpers/disputes/:id/win", api.TestHelperWinDispute)
	v1.Post("/test_helpers/disputes/:id/lose", api.TestHelperLoseDispute)
	v1.Post("/test_helpers/withdrawals/:id/complete", api.TestHelperCompleteWithdrawal)
	v1.Post("/test_helpers/withdrawals/:id/fail", api.TestHelperFailWithdrawal)
	v1.Get("/balance", api.GetBalance)
	v1.Get("/disputes", api.ListDisputes)
	v1.Get("/disputes/:id", api.GetDispute)
	v1.Post("/withdrawals", api.CreateWithdrawal)
	v1.Get("/withdrawals", api.ListWithdrawals)
	v1.Get("/withdrawals/:id", api.GetWithdrawal)
	v1.Post("/webhooks", api.CreateWebhook)
	v1.Get("/webhooks", api.ListWebhooks)
	v1.Get("/webhooks/:id", api.GetWebhook)
	v1.Post("/webhooks/:id", api.UpdateWebhook)
	v1.Delete("/webhooks/:id", api.DeleteWebhook)
	v1.Post("/webhooks/:id/rotate_secret", api.RotateWebhookSecret)
	v1.Post("/webhooks/:id/test", api.TestWebhook)
	v1.Post("/webhooks/:id/resend_failed", api.ResendFailed)
	v1.Get("/webhooks/:id/deliveries", api.ListDeliveries)
	v1.Get("/webhooks/:id/deliveries/:delivery_id", api.GetDelivery)
	v1.Post("/webhooks/:id/deliveries/:delivery_id/resend", api.ResendDelivery)

	mountDashboard(app, cfg, deps, counter)
}
