package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
	"github.com/gofiber/fiber/v2/middleware/session"
	redisstorage "github.com/gofiber/storage/redis/v3"

	"payments/handlers/dashboard"
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/metrics"
	"payments/operations"
	"payments/static"
	"payments/store"
	"payments/views"
)

// Default limits of a dashboard session: ended after 2 hours without use,
// and 12 hours after sign-in whatever its use (SESSION_IDLE_TIMEOUT,
// SESSION_MAX_AGE).
const (
	DefaultSessionIdle   = 2 * time.Hour
	DefaultSessionMaxAge = 12 * time.Hour
)

// mountDashboard mounts the static files, the login form and the signed-in pages.
func mountDashboard(app *fiber.App, cfg Config, deps Deps, rulebook *operations.Operations, counter rateCounter) {
	app.Use("/static", filesystem.New(filesystem.Config{Root: http.FS(static.FS), MaxAge: 3600}))

	secure := strings.HasPrefix(cfg.BaseURL, "https://")
	limits := store.SessionLimits{Idle: orDefault(cfg.SessionIdle, DefaultSessionIdle), MaxAge: orDefault(cfg.SessionMaxAge, DefaultSessionMaxAge)}
	sessCfg := session.Config{
		Expiration:     limits.MaxAge,
		KeyLookup:      "cookie:payments_session",
		CookieHTTPOnly: true,
		CookieSecure:   secure,
		CookieSameSite: fiber.CookieSameSiteLaxMode,
	}
	if deps.Redis != nil {
		sessCfg.Storage = redisstorage.NewFromConnection(deps.Redis)
	}
	sessions := session.New(sessCfg)

	// The synchronizer token lives in the session; forms send it as _csrf,
	// htmx as X-CSRF-Token (set by hx-headers on <body>).
	csrfMiddleware := csrf.New(csrf.Config{
		Session:        sessions,
		SessionKey:     "csrf_token",
		ContextKey:     request.CSRFContextKey,
		CookieName:     "payments_csrf",
		CookieHTTPOnly: true,
		CookieSecure:   secure,
		CookieSameSite: fiber.CookieSameSiteLaxMode,
		Expiration:     limits.MaxAge,
		Extractor: func(c *fiber.Ctx) (string, error) {
			if t := c.Get("X-CSRF-Token"); t != "" {
				return t, nil
			}
			if t := c.FormValue("_csrf"); t != "" {
				return t, nil
			}
			return "", csrf.ErrTokenNotFound
		},
		ErrorHandler: func(_ *fiber.Ctx, err error) error {
			return &reply.Error{Status: http.StatusForbidden, Type: reply.TypePermission, Code: "csrf_token_invalid",
				Message: "This form has expired or did not come from this site. Reload the page and try again."}
		},
	})

	site, err := url.Parse(cfg.BaseURL)
	if err != nil {
		panic(fmt.Sprintf("web: BASE_URL %q: %v", cfg.BaseURL, err))
	}
	// Passkeys name the site by its domain: a BASE_URL with an address
	// (http://127.0.0.1:8080) has none, and offers no passkeys.
	passkeys, err := webauthn.New(&webauthn.Config{RPID: site.Hostname(), RPDisplayName: "Pagamentos Pix",
		RPOrigins: []string{site.Scheme + "://" + site.Host}})
	if err != nil {
		deps.Log.Warn("passkeys are off: BASE_URL names no domain", "base_url", cfg.BaseURL)
		passkeys = nil
	}
	dash := &dashboard.Dashboard{
		Store: deps.Store, Ops: rulebook, Sessions: sessions, Log: deps.Log, BaseURL: cfg.BaseURL,
		ChargeWait: cfg.ChargeWait,
		AllowLogin: func(ctx context.Context, ip, email, device string) (bool, error) {
			window := time.Now().Truncate(dashboard.LoginWindow)
			if device != "" {
				byDevice, err := counter.hit(ctx, "login:device:"+device, window, dashboard.LoginWindow)
				if err != nil {
					return false, err
				}
				if byDevice <= dashboard.LoginDeviceLimit {
					return true, nil
				}
				// A device over its own limit is one more browser without
				// the cookie: counted with them.
			}
			byIP, err := counter.hit(ctx, "login:ip:"+ip, window, dashboard.LoginWindow)
			if err != nil {
				return false, err
			}
			byEmail, err := counter.hit(ctx, "login:email:"+email, window, dashboard.LoginWindow)
			allowed := byIP <= dashboard.LoginIPLimit && byEmail <= dashboard.LoginLimit
			if !allowed {
				deps.Metrics.Refused(metrics.LimitSignIn)
			}
			return allowed, err
		},
		Devices:       dashboard.DeviceCookies{Key: cfg.DeviceKey, Secure: secure},
		SessionLimits: limits,
		WebAuthn:      passkeys,
	}
	app.Get("/favicon.ico", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
		c.Type("svg")
		return c.Send(favicon)
	})
	app.Get("/login", browserLocale, cleanInput, csrfMiddleware, dash.LoginPage)
	app.Post("/login", browserLocale, cleanInput, csrfMiddleware, dash.Login)
	app.Post("/logout", browserLocale, cleanInput, csrfMiddleware, dash.Logout)
	// Sign-up and the links e-mails carry (verification, reset, invitation).
	public := []fiber.Handler{browserLocale, cleanInput, csrfMiddleware}
	app.Post("/login/passkey/options", append(public, dash.PasskeySignInOptions)...)
	app.Post("/login/passkey", append(public, dash.PasskeySignIn)...)
	app.Post("/login/verify/passkey/options", append(public, dash.PendingPasskeyOptions)...)
	app.Post("/login/verify/passkey", append(public, dash.PendingPasskey)...)
	app.Get("/login/verify", append(public, dash.LoginVerifyPage)...)
	app.Post("/login/verify", append(public, dash.LoginVerify)...)
	app.Get("/signup", append(public, dash.SignupPage)...)
	app.Post("/signup", append(public, dash.Signup)...)
	app.Get("/signup/sent", append(public, dash.SignupSent)...)
	app.Get("/verify-email", append(public, dash.VerifyEmail)...)
	app.Get("/password/forgot", append(public, dash.ForgotPasswordPage)...)
	app.Post("/password/forgot", append(public, dash.ForgotPassword)...)
	app.Get("/password/reset", append(public, dash.ResetPasswordPage)...)
	app.Post("/password/reset", append(public, dash.ResetPassword)...)
	app.Get("/invitations/accept", append(public, dash.InvitationPage)...)
	app.Post("/invitations/accept", append(public, dash.AcceptInvitation)...)
	app.Get("/", func(c *fiber.Ctx) error { return c.Redirect("/dashboard", http.StatusSeeOther) })

	signedIn := app.Group("/dashboard", requireUser(sessions, deps.Store, limits), cleanInput, csrfMiddleware,
		readsMayLag(cfg.ReplicaMaxLag, secure))
	signedIn.Get("", dash.Home)
	signedIn.Get("/support", dashboard.RequireSupport, dash.Support)
	signedIn.Get("/support/payments/:id", dashboard.RequireSupport, dash.SupportPayment)
	signedIn.Get("/support/disputes/:id/evidence/:file", dashboard.RequireSupport, dash.SupportDisputeEvidence)
	signedIn.Get("/support/deliveries/:id", dashboard.RequireSupport, dash.SupportDelivery)
	signedIn.Post("/support/accounts/:id/activate-live", dashboard.RequireSupport, dash.ActivateLive)
	// An account's pages are its members'; what each may change the
	// operations decide by role (support staff only read, and keep their
	// own preferences and password), and a change's route (or its form's
	// page) asks the Rulebook first: no one is shown a form or a
	// confirmation they could not submit.
	member := dashboard.RequireMember
	signedIn.Get("/payments", member, dash.Payments)
	signedIn.Get("/payments/new", member, ruled("CreatePayment"), dash.NewPayment)
	signedIn.Post("/payments", member, ruled("CreatePayment"), dash.CreatePayment)
	signedIn.Post("/payments/preview", member, ruled("CreatePayment"), dash.PreviewPayment)
	signedIn.Get("/subscriptions", member, dash.Subscriptions)
	signedIn.Get("/subscriptions/new", member, ruled("CreateSubscription"), dash.NewSubscription)
	signedIn.Post("/subscriptions", member, ruled("CreateSubscription"), dash.CreateSubscription)
	signedIn.Get("/subscriptions/:id", member, dash.SubscriptionDetail)
	signedIn.Post("/subscriptions/:id/cancel", member, ruled("CancelSubscription"), dash.CancelSubscription)
	signedIn.Post("/subscriptions/:id/simulate", member, ruled("SimulateCycle"), dash.SimulateSubscription)
	signedIn.Get("/subaccounts", member, dash.Subaccounts)
	signedIn.Post("/subaccounts", member, ruled("CreateSubaccount"), dash.CreateSubaccount)
	signedIn.Get("/payment_links", member, dash.PaymentLinks)
	signedIn.Get("/payment_links/new", member, ruled("CreatePaymentLink"), dash.NewPaymentLink)
	signedIn.Post("/payment_links", member, ruled("CreatePaymentLink"), dash.CreatePaymentLink)
	signedIn.Get("/payment_links/:id", member, dash.PaymentLinkDetail)
	signedIn.Post("/payment_links/:id/deactivate", member, ruled("DeactivatePaymentLink"), dash.DeactivatePaymentLink)
	signedIn.Get("/pix_qr_codes", member, dash.PixQRCodes)
	signedIn.Get("/pix_qr_codes/new", member, ruled("CreatePixQRCode"), dash.NewPixQRCode)
	signedIn.Post("/pix_qr_codes", member, ruled("CreatePixQRCode"), dash.CreatePixQRCode)
	signedIn.Get("/pix_qr_codes/:id", member, dash.PixQRCodeDetail)
	signedIn.Post("/pix_qr_codes/:id/deactivate", member, ruled("DeactivatePixQRCode"), dash.DeactivatePixQRCode)
	signedIn.Get("/payment_batches", member, dash.Batches)
	signedIn.Post("/payment_batches", member, ruled("CreatePaymentBatch"), dash.CreateBatch)
	signedIn.Get("/payment_batches/template.csv", member, dash.BatchTemplate)
	signedIn.Get("/payment_batches/:id", member, dash.Batch)
	signedIn.Get("/payment_batches/:id/outcome.csv", member, dash.BatchCSV)
	signedIn.Get("/payments/:id", member, dash.PaymentDetail)
	signedIn.Get("/webhooks", member, dash.Webhooks)
	signedIn.Get("/webhooks/new", member, ruled("CreateWebhook"), dash.NewWebhook)
	signedIn.Get("/webhooks/events", member, dash.EventCatalog)
	signedIn.Get("/webhooks/:id", member, dash.WebhookDetail)
	signedIn.Get("/webhooks/:id/edit", member, ruled("UpdateWebhook"), dash.EditWebhook)
	signedIn.Get("/webhooks/:id/deliveries/:delivery_id", member, dash.DeliveryDetail)
	signedIn.Get("/api-keys", member, dash.APIKeys)
	signedIn.Get("/api-versions", member, dash.APIVersions)
	signedIn.Get("/settings", dash.Settings)
	signedIn.Post("/settings/password", dash.ChangePassword)
	signedIn.Post("/settings/preferences", dash.SavePreferences)
	signedIn.Get("/security", dash.Security)
	signedIn.Post("/security/totp/start", dash.StartTOTP)
	signedIn.Post("/security/totp", dash.ConfirmTOTP)
	signedIn.Post("/security/totp/disable", dash.DisableTOTP)
	signedIn.Post("/security/sessions/end-others", dash.EndOtherSessions)
	signedIn.Post("/security/sessions/:id/end", dash.EndSession)
	signedIn.Post("/security/passkeys/options", dash.PasskeyCreateOptions)
	signedIn.Post("/security/passkeys", dash.PasskeyCreate)
	signedIn.Post("/security/passkeys/:id/remove", dash.RemovePasskey)
	signedIn.Post("/verify/passkey/options", dash.StepUpPasskeyOptions)
	signedIn.Post("/verify/passkey", dash.StepUpPasskey)
	signedIn.Get("/verify", dash.StepUpPage)
	signedIn.Post("/email/resend", dash.ResendConfirmation)
	signedIn.Post("/verify", dash.StepUp)
	signedIn.Post("/api-keys", member, ruled("CreateAPIKey"), dash.CreateAPIKey)
	signedIn.Post("/api-keys/:id/revoke", member, ruled("RevokeAPIKey"), dash.RevokeAPIKey)
	signedIn.Post("/api-version", member, ruled("SetPaymentsVersion"), dash.SetPaymentsVersion)
	signedIn.Post("/mode", member, dash.SwitchMode)
	signedIn.Post("/account", member, dash.SwitchAccount)
	signedIn.Get("/team", member, dash.Team)
	signedIn.Get("/audit", member, dash.Audit)
	signedIn.Get("/audit.csv", member, dash.AuditCSV)
	signedIn.Post("/team/invitations", member, ruled("InviteMember"), dash.Invite)
	signedIn.Post("/team/invitations/:id/revoke", member, ruled("RevokeInvitation"), dash.RevokeInvitation)
	signedIn.Post("/team/members/:id/role", member, ruled("SetMemberRole"), dash.SetMemberRole)
	signedIn.Post("/team/members/:id/remove", member, ruled("RemoveMember"), dash.RemoveMember)
	signedIn.Post("/payments/:id/simulate", member, ruled("SimulatePayment"), dash.SimulatePayment)
	signedIn.Post("/payments/:id/refund", member, ruled("RefundPayment"), dash.RefundPayment)
	signedIn.Post("/payments/:id/transfers/:e2e/return", member, ruled("ReturnTransfer"), dash.ReturnTransfer)
	signedIn.Post("/payments/:id/dispute", member, ruled("SimulateDispute"), dash.SimulateDispute)
	// Before /disputes/:id/:outcome, which would take "defense" for an outcome.
	signedIn.Post("/disputes/:id/defense", member, ruled("DefendDispute"), dash.DefendDispute)
	signedIn.Get("/disputes/:id/evidence/:file", member, dash.DisputeEvidence)
	signedIn.Post("/disputes/:id/:outcome", member, ruled("SimulateDisputeOutcome"), dash.SimulateDisputeOutcome)
	signedIn.Get("/balance", member, dash.Balance)
	signedIn.Get("/refunds", member, dash.Refunds)
	signedIn.Get("/disputes", member, dash.Disputes)
	signedIn.Get("/withdrawals", member, dash.Withdrawals)
	signedIn.Get("/events", member, dash.Events)
	signedIn.Get("/customers", member, dash.Payers)
	signedIn.Get("/reports", member, dash.Reports)
	signedIn.Post("/reports", member, dash.CreateReport)
	signedIn.Post("/reports/daily", member, ruled("SetDailyReport"), dash.SetDailyReport)
	signedIn.Get("/reports/:id/file", member, dash.ReportFile)
	signedIn.Post("/balance/withdrawals", member, ruled("CreateWithdrawal"), dash.CreateWithdrawal)
	// Before /balance/withdrawals/:id/:outcome, which would take "contest" for an outcome.
	signedIn.Post("/balance/withdrawals/:id/contest", member, ruled("ContestWithdrawal"), dash.ContestWithdrawal)
	signedIn.Post("/balance/withdrawals/:id/contest_result/:result", member, ruled("SimulateContestResult"), dash.SimulateContestResult)
	signedIn.Post("/balance/withdrawals/:id/:outcome", member, ruled("SimulateWithdrawalEnd"), dash.SimulateWithdrawal)
	signedIn.Post("/webhooks", member, ruled("CreateWebhook"), dash.CreateWebhook)
	signedIn.Post("/webhooks/:id/edit", member, ruled("UpdateWebhook"), dash.UpdateWebhook)
	signedIn.Post("/webhooks/:id/test", member, ruled("SendTest"), dash.TestWebhook)
	signedIn.Post("/webhooks/:id/toggle", member, ruled("UpdateWebhook"), dash.ToggleWebhook)
	signedIn.Post("/webhooks/:id/rotate", member, ruled("RotateWebhookSecret"), dash.RotateWebhook)
	signedIn.Post("/webhooks/:id/delete", member, ruled("DeleteWebhook"), dash.DeleteWebhook)
	signedIn.Post("/webhooks/:id/deliveries/:delivery_id/resend", member, ruled("ResendDelivery"), dash.ResendDelivery)
	signedIn.Post("/webhooks/:id/resend-failed", member, ruled("ResendFailedSince"), dash.ResendFailed)
	signedIn.Post("/webhooks/:id/recover", member, ruled("RecoverEvents"), dash.RecoverEvents)
	signedIn.Post("/webhooks/:id/replay", member, ruled("ReplayWebhook"), dash.ReplayWebhook)
}

// favicon is the tab's icon, also at /favicon.ico where browsers look first.
var favicon = mustStatic("favicon.svg")

func mustStatic(name string) []byte {
	b, err := static.FS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// browserLocale speaks the browser's language (Accept-Language) on pages
// before sign-in; times are shown in Brasília's zone.
func browserLocale(c *fiber.Ctx) error {
	c.SetUserContext(views.WithLocale(c.UserContext(), views.NewLocale(views.MatchLanguage(c.Get(fiber.HeaderAcceptLanguage)), "")))
	return c.Next()
}

// requireUser loads the session's user, or sends the browser to /login.
func requireUser(sessions *session.Store, st *store.Store, limits store.SessionLimits) fiber.Handler {
	return func(c *fiber.Ctx) error {
		sess, err := sessions.Get(c)
		if err != nil {
			return err
		}
		id, _ := sess.Get(dashboard.SessionUserID).(string)
		if id == "" {
			return c.Redirect("/login", http.StatusSeeOther)
		}
		account, _ := sess.Get(dashboard.SessionAccountID).(string)
		u, err := st.UserInAccount(c.UserContext(), id, account)
		if err == nil && u.Role == "" {
			// No longer a member of that account: removed from it.
			err = store.ErrNotFound
		}
		if errors.Is(err, store.ErrNotFound) {
			if err := sess.Destroy(); err != nil {
				return err
			}
			return c.Redirect("/login", http.StatusSeeOther)
		}
		if err != nil {
			return err
		}
		if epoch, _ := sess.Get(dashboard.SessionEpoch).(int); epoch != u.SessionEpoch {
			// The password changed since this session opened.
			if err := sess.Destroy(); err != nil {
				return err
			}
			return c.Redirect("/login", http.StatusSeeOther)
		}
		sid, _ := sess.Get(dashboard.SessionID).(string)
		on, err := st.TouchSession(c.UserContext(), sid, u.ID, limits)
		if err != nil {
			return err
		}
		if !on {
			// Ended from the security page, or past its idle or absolute limit.
			if err := sess.Destroy(); err != nil {
				return err
			}
			return c.Redirect("/login", http.StatusSeeOther)
		}
		live, _ := sess.Get(dashboard.SessionLivemode).(bool)
		secondFactor, _ := sess.Get(dashboard.SessionSecondFactorAt).(int64)
		request.SetUser(c, &request.User{User: u, Livemode: live, SecondFactorAt: unixOrZero(secondFactor)})
		// The user's language, and the account's time zone.
		c.SetUserContext(views.WithLocale(c.UserContext(), views.NewLocale(u.Locale, u.TimeZone)))
		return c.Next()
	}
}

// cleanInput refuses a form whose values are not text: bytes that are not
// UTF-8, or control characters other than line breaks (no field of the
// dashboard takes them; queries are checked for every route by
// refuseHostileBytes). They never reach a handler or the database.
func cleanInput(c *fiber.Ctx) error {
	bad := false
	if c.Method() == fiber.MethodPost && strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationForm) {
		c.Context().PostArgs().VisitAll(func(_, value []byte) { bad = bad || !request.IsText(value, true) })
	}
	if bad {
		return reply.InvalidRequest(http.StatusBadRequest, "parameter_invalid", "A field holds characters that are not text.")
	}
	return c.Next()
}

// unixOrZero is the time of unix seconds, zero for 0.
func unixOrZero(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}
