package operations_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/dispatcher"
	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store"
	"payments/store/storetest"
)

type auditRow struct {
	Action   string `bun:"action"`
	ObjectID string `bun:"object_id"`
	Actor    string `bun:"actor"`
	Door     string `bun:"door"`
	IP       string `bun:"ip"`
	Changes  string `bun:"changes"`
}

// TestEveryOperationWritesOneAuditRow walks every method of Operations:
// each change writes exactly one audit row, with who asked and through
// which door, and each question (Check*) writes none. A method added
// without a step here fails the test.
func TestEveryOperationWritesOneAuditRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.DB(t)
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32), Charges: store.Charges{
		Receiver: pix.Receiver{Key: "00000000-0000-4000-8000-000000000000", City: "SAO PAULO"}, BaseURL: "http://127.0.0.1:8080"}})
	require.NoError(t, err)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	disp := dispatcher.New(dispatcher.Config{AllowPrivateNetworks: true}, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ops := &operations.Operations{Store: st, LiveMode: true, Tester: disp, Webhooks: operations.WebhookRules{AllowPrivateNetworks: true}}

	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja@example.com", FeeBPS: 100})
	require.NoError(t, err)
	owner, err := st.CreateUser(ctx, "dona@example.com", "correct-horse-battery", store.RoleOwner, acct.ID)
	require.NoError(t, err)
	test, live := store.Scope{AccountID: acct.ID}, store.Scope{AccountID: acct.ID, Livemode: true}
	var qrCode *store.PixQRCode
	var link *store.PaymentLink
	who := store.ActorUser(owner.ID)
	who.Name, who.Role, who.IP, who.UserAgent, who.RequestID = owner.Email, store.RoleOwner, "203.0.113.9", "Firefox", "req_1"
	reader, err := st.CreateUser(ctx, "leitor@example.com", "correct-horse-battery", store.RoleViewer, acct.ID)
	require.NoError(t, err)
	viewer := store.ActorUser(reader.ID)
	viewer.Name, viewer.Role = reader.Email, store.RoleViewer

	var (
		paid, pending, expiring, disputed *store.Payment
		livePaid                          *store.Payment
		refund                            *store.Refund
		dispute                           *store.Dispute
		withdrawal                        *store.Withdrawal
		hook                              *store.Webhook
		key                               *store.APIKey
		invitation                        *store.EmailToken
		recovery                          []string
		session                           string
		subscription                      *store.Subscription
		report                            *store.Report
	)
	newSubscription := func() operations.NewSubscription {
		amount := int64(4_990)
		return operations.NewSubscription{Payer: store.SubscriptionPayer{Name: "Ana", Document: "52998224725"}, Contract: "C-1",
			Interval: "monthly", StartDate: calendar.Today(time.Now()), AmountCents: &amount, RetryPolicy: store.RetryNone,
			Journey: store.JourneyAuthorizationOnly}
	}
	type step struct {
		op      string // the Operations method it calls
		action  string // the audit row it writes ("": none)
		changes func() error
		prepare func() // what it needs, made before rows are counted
	}
	steps := []step{
		{"CreateWebhook", "webhook.created", func() (err error) {
			hook, _, err = ops.CreateWebhook(ctx, who, store.NewWebhook{Scope: test, Name: "Loja", APIVersion: store.APIVersions[0], URL: receiver.URL, Events: []string{store.EventPaymentCreated}, Enabled: true})
			return err
		}, nil},
		{"CreatePayment", "payment.created", func() (err error) {
			pending, _, err = ops.CreatePayment(ctx, who, acct, false, store.NewPayment{AmountCents: 10_000}, "", nil)
			return err
		}, nil},
		{"SimulatePayment", "payment.paid", func() (err error) {
			paid, err = ops.SimulatePayment(ctx, who, test, pending.ID.String())
			return err
		}, nil},
		{"CreatePaymentBatch", "payment_batch.created", func() error {
			// One item, refused before any payment: the batch's own row alone
			// (each payment a batch makes writes its own).
			b, err := ops.CreatePaymentBatch(ctx, who, acct, false, nil, []operations.NewBatchItem{
				{Error: &store.ItemError{Type: "invalid_request_error", Code: "parameter_missing", Param: "payments[0].external_id", Message: "Missing."}}})
			if err == nil && len(b.Items) != 1 {
				return fmt.Errorf("items %v", b.Items)
			}
			return err
		}, nil},
		{"CreateSubscription", "subscription.created", func() (err error) {
			subscription, err = ops.CreateSubscription(ctx, who, acct, false, newSubscription())
			return err
		}, nil},
		{"SimulateAuthorization", "subscription.activated", func() error {
			_, err := ops.SimulateAuthorization(ctx, who, test, subscription.ID, true)
			return err
		}, nil},
		{"CreateCycle", "payment.created", func() error {
			_, err := ops.CreateCycle(ctx, who, acct, test, subscription.ID, nil)
			return err
		}, nil},
		{"SimulateCycle", "payment.paid", func() error {
			_, err := ops.SimulateCycle(ctx, who, acct, test, subscription.ID, operations.CyclePay, nil)
			return err
		}, nil},
		{"SimulatePayerCancel", "subscription.canceled", func() error {
			_, err := ops.SimulatePayerCancel(ctx, who, test, subscription.ID)
			return err
		}, nil},
		{"CancelSubscription", "subscription.canceled", func() error {
			_, err := ops.CancelSubscription(ctx, who, test, subscription.ID)
			return err
		}, func() {
			var err error
			subscription, err = ops.CreateSubscription(ctx, who, acct, false, newSubscription())
			require.NoError(t, err)
		}},
		{"SimulatePaymentOn", "payment.paid", func() error {
			p, err := ops.SimulatePaymentOn(ctx, who, test, expiring.ID.String(), calendar.Today(time.Now()).AddDays(10))
			if err == nil && p.AmountPaidCents != 10_000+200 {
				return fmt.Errorf("paid %d late, want the amount and its R$ 2,00 fine", p.AmountPaidCents)
			}
			return err
		}, func() {
			fine := int64(200)
			terms := &cobv.Terms{DueDate: calendar.Today(time.Now()).String(), DaysAfterDue: 15, Fine: &cobv.Value{AmountCents: &fine}}
			var err error
			expiring, _, err = ops.CreatePayment(ctx, who, acct, false, store.NewPayment{AmountCents: 10_000, DueTerms: terms,
				Customer: &store.Customer{Name: "Ana", Email: "ana@example.com", Document: "12345678909"}}, "", nil)
			require.NoError(t, err)
		}},
		{"CancelPayment", "payment.canceled", func() error {
			_, err := ops.CancelPayment(ctx, who, test, expiring.ID.String())
			return err
		}, func() { expiring = newPaymentSilently(t, ops, acct, test) }},
		{"SimulateExpiry", "payment.expired", func() (err error) {
			_, err = ops.SimulateExpiry(ctx, who, test, expiring.ID.String())
			return err
		}, func() { expiring = newPaymentSilently(t, ops, acct, test) }},
		{"CreatePixQRCode", "pix_qr_code.created", func() (err error) {
			qrCode, err = ops.CreatePixQRCode(ctx, who, test, operations.QRCodeInput{AmountCents: 1_000})
			return err
		}, nil},
		{"SimulatePixQRCodePayment", "payment.created+pix_qr_code.paid", func() error {
			_, err := ops.SimulatePixQRCodePayment(ctx, who, test, qrCode.ID, 1_000)
			return err
		}, nil},
		{"DeactivatePixQRCode", "pix_qr_code.deactivated", func() error {
			_, err := ops.DeactivatePixQRCode(ctx, who, test, qrCode.ID)
			return err
		}, nil},
		{"CreateSubaccount", "subaccount.created", func() error {
			_, err := ops.CreateSubaccount(ctx, who, test, operations.SubaccountInput{Name: "Padaria", Document: "529.982.247-25",
				Email: "padaria@example.com", PixKey: "padaria@example.com"})
			return err
		}, nil},
		{"CreatePaymentLink", "payment_link.created", func() (err error) {
			link, err = ops.CreatePaymentLink(ctx, who, test, operations.PaymentLinkInput{Description: "Ingresso", AmountCents: new(int64(2_000))})
			return err
		}, nil},
		{"ChargeThroughLink", "payment.created+payment_link.used", func() error {
			_, err := ops.ChargeThroughLink(ctx, store.ActorPayer, link.ID, operations.LinkPayerInput{AmountCents: 2_000})
			return err
		}, nil},
		{"DeactivatePaymentLink", "payment_link.deactivated", func() error {
			_, err := ops.DeactivatePaymentLink(ctx, who, test, link.ID)
			return err
		}, nil},
		{"CheckRefund", "", func() error {
			return ops.CheckRefund(ctx, who, test, paid.ID.String(), store.NewRefund{AmountCents: 100})
		}, nil},
		{"RefundPayment", "refund.created", func() error {
			_, _, err := ops.RefundPayment(ctx, who, test, paid.ID.String(), store.NewRefund{AmountCents: 100})
			return err
		}, nil},
		{"CreateRefund", "refund.created", func() (err error) {
			refund, err = ops.CreateRefund(ctx, who, test, paid.ID.String(), store.NewRefund{AmountCents: 100})
			return err
		}, nil},
		{"SimulateRefundEnd", "refund.succeeded", func() error {
			_, err := ops.SimulateRefundEnd(ctx, who, test, refund.ID, store.RefundResult{Status: store.RefundSucceeded})
			return err
		}, nil},
		{"SimulateDispute", "dispute.created", func() (err error) {
			dispute, err = ops.SimulateDispute(ctx, who, test, disputed.ID.String(), store.DisputeReport{Reason: "fraud"})
			return err
		}, func() { disputed = paidSilently(t, ops, acct, test) }},
		{"DefendDispute", "dispute.defended", func() error {
			_, err := ops.DefendDispute(ctx, who, test, dispute.ID, operations.DefenseInput{Text: "O pagador autorizou.",
				Files: []operations.EvidenceInput{{Name: "comprovante.pdf", Content: []byte("%PDF-1.7 comprovante")}}})
			return err
		}, nil},
		{"SimulateDisputeOutcome", "dispute.closed", func() error {
			_, err := ops.SimulateDisputeOutcome(ctx, who, test, dispute.ID, store.DisputeWon)
			return err
		}, nil},
		{"CheckWithdrawal", "", func() error {
			return ops.CheckWithdrawal(ctx, who, store.Withdrawal{AccountID: acct.ID, AmountCents: 500, PixKey: "a@example.com", PixKeyType: "email"})
		}, nil},
		{"CreateWithdrawal", "withdrawal.created", func() error {
			withdrawal = &store.Withdrawal{AccountID: acct.ID, AmountCents: 500, PixKey: "a@example.com", PixKeyType: "email"}
			return ops.CreateWithdrawal(ctx, who, withdrawal)
		}, nil},
		{"SimulateWithdrawalEnd", "withdrawal.completed", func() error {
			_, err := ops.SimulateWithdrawalEnd(ctx, who, test, withdrawal.ID, store.WithdrawalResult{Status: store.WithdrawalCompleted})
			return err
		}, nil},
		{"ContestWithdrawal", "withdrawal.contested", func() error {
			_, err := ops.ContestWithdrawal(ctx, who, test, withdrawal.ID, operations.ContestInput{Reason: "fraud", Description: "Golpe."})
			return err
		}, nil},
		{"SimulateContestResult", "withdrawal.contest_resolved", func() error {
			_, err := ops.SimulateContestResult(ctx, who, test, withdrawal.ID, 200)
			return err
		}, nil},
		{"ApplyPSPDispute", "dispute.updated", func() error {
			_, _, err := ops.ApplyPSPDispute(ctx, store.PSPDispute{Reference: "med-1", EndToEndID: "E00000000202611261200000000001",
				Reason: "fraud", Status: store.DisputeOpen})
			return err
		}, func() {
			livePaid = newPaymentSilently(t, ops, acct, live)
			require.NoError(t, st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: "E00000000202611261200000000001",
				TxID: livePaid.CorrelationID, AmountCents: livePaid.AmountCents, Raw: []byte(`{}`)}))
		}},
		{"ReturnTransfer", "transfer.return_requested", func() error {
			_, err := ops.ReturnTransfer(ctx, store.ActorAdmin("transfers return"), nil, "E00000000202611261200000000002")
			return err
		}, func() {
			require.NoError(t, st.RecordPixNotification(ctx, &store.PixNotification{EndToEndID: "E00000000202611261200000000002",
				TxID: "nenhumacobranca0000000000001", AmountCents: 700, Raw: []byte(`{}`)}))
		}},
		{"UpdateWebhook", "webhook.updated", func() error {
			name := "Pedidos"
			_, err := ops.UpdateWebhook(ctx, who, test, hook.ID, store.WebhookUpdate{Name: &name})
			return err
		}, nil},
		{"RotateWebhookSecret", "webhook.secret_rotated", func() error {
			_, _, err := ops.RotateWebhookSecret(ctx, who, test, hook.ID, "", "")
			return err
		}, nil},
		{"ResendDelivery", "delivery.resent", func() error {
			deliveries, _, err := st.Deliveries(ctx, store.DeliveryListParams{Scope: test, WebhookID: hook.ID, Limit: 10})
			require.NoError(t, err)
			require.NotEmpty(t, deliveries)
			_, err = ops.ResendDelivery(ctx, who, test, hook.ID, deliveries[0].ID)
			return err
		}, nil},
		{"ResendFailedSince", "webhook.failed_resent", func() error {
			_, err := ops.ResendFailedSince(ctx, who, test, hook.ID, time.Now().Add(-time.Hour))
			return err
		}, nil},
		{"RecoverEvents", "webhook.events_recovered", func() error {
			_, err := ops.RecoverEvents(ctx, who, test, hook.ID, time.Now().Add(-time.Hour), time.Now())
			return err
		}, nil},
		{"ReplayWebhook", "webhook.replay_started", func() error {
			_, err := ops.ReplayWebhook(ctx, who, test, hook.ID, time.Now().Add(-time.Hour), time.Now(), nil)
			return err
		}, nil},
		{"ResendEvent", "event.resent", func() error {
			events, err := st.EventsForObjects(ctx, test, []string{paid.ID.String()})
			require.NoError(t, err)
			_, err = ops.ResendEvent(ctx, who, test, &events[0], hook.ID)
			return err
		}, nil},
		{"CreateReport", "report.created", func() (err error) {
			day := time.Now().UTC().Truncate(24 * time.Hour)
			report, err = ops.CreateReport(ctx, who, store.NewReport{Scope: test, Type: store.ReportLedger, Format: store.FormatCSV,
				From: day, To: day, TimeZone: store.DefaultTimeZone})
			return err
		}, nil},
		{"ReadReport", "", func() error {
			_, err := ops.ReadReport(ctx, who, test, report.ID)
			return err
		}, nil},
		{"SetDailyReport", "report_schedule.updated", func() error {
			return ops.SetDailyReport(ctx, who, test, store.FormatXLSX, store.DefaultTimeZone)
		}, nil},
		{"SendTest", "webhook.tested", func() error {
			_, err := ops.SendTest(ctx, who, hook, store.EventPaymentCreated)
			return err
		}, nil},
		{"DeleteWebhook", "webhook.deleted", func() error { return ops.DeleteWebhook(ctx, who, test, hook.ID) }, nil},
		{"CreateAPIKey", "api_key.created", func() (err error) {
			key, _, err = ops.CreateAPIKey(ctx, who, acct.ID, false, store.NewAPIKey{Name: "ERP", Permissions: []string{"payments:read"}})
			return err
		}, nil},
		{"SetPaymentsVersion", "account.payments_version_changed", func() error {
			return ops.SetPaymentsVersion(ctx, who, test, "2026-11-26")
		}, nil},
		{"RevokeAPIKey", "api_key.revoked", func() error {
			_, err := ops.RevokeAPIKey(ctx, who, acct.ID, key.ID)
			return err
		}, nil},
		{"InviteMember", "member.invited", func() error {
			_, err := ops.InviteMember(ctx, who, acct.ID, "dev@example.com", store.RoleDeveloper, "pt-BR")
			return err
		}, nil},
		{"AcceptInvitation", "member.joined", func() error {
			_, _, err := ops.AcceptInvitation(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard}, mailToken(t, st, "dev@example.com", store.MailInvitation),
				operations.Joining{Name: "Dev", Password: "um teclado mecânico barulhento"})
			return err
		}, nil},
		{"RevokeInvitation", "invitation.revoked", func() error { return ops.RevokeInvitation(ctx, who, acct.ID, invitation.ID) }, func() {
			var err error
			invitation, err = ops.InviteMember(ctx, store.ActorAdmin("test"), acct.ID, "outra@example.com", store.RoleViewer, "")
			require.NoError(t, err)
		}},
		{"SetMemberRole", "member.role_changed", func() error {
			dev, err := st.UserByEmail(ctx, "dev@example.com")
			require.NoError(t, err)
			return ops.SetMemberRole(ctx, who, acct.ID, dev.ID, store.RoleFinance)
		}, nil},
		{"RemoveMember", "member.removed", func() error {
			dev, err := st.UserByEmail(ctx, "dev@example.com")
			require.NoError(t, err)
			return ops.RemoveMember(ctx, who, acct.ID, dev.ID)
		}, nil},
		{"SignUpBusiness", "account.created", func() error {
			_, _, err := ops.SignUpBusiness(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard, IP: "203.0.113.9"}, operations.SignUp{
				BusinessName: "Padaria", Document: "11.222.333/0001-81", Name: "Maria", Email: "maria@example.com", Password: "pão de queijo quentinho"})
			return err
		}, nil},
		{"VerifyEmail", "user.email_verified", func() error {
			_, err := ops.VerifyEmail(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard}, mailToken(t, st, "maria@example.com", store.MailVerifyEmail))
			return err
		}, nil},
		{"ResendVerification", "user.email_confirmation_sent", func() error {
			u, err := st.UserByEmail(ctx, "ana@example.com")
			require.NoError(t, err)
			return ops.ResendVerification(ctx, who, u)
		}, func() {
			_, err := st.CreatePerson(ctx, store.NewPerson{Email: "ana@example.com", Password: "correct-horse-battery", Role: store.RoleDeveloper, AccountID: acct.ID})
			require.NoError(t, err)
		}},
		{"RequestPasswordReset", "user.password_reset_requested", func() error {
			return ops.RequestPasswordReset(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard}, "maria@example.com")
		}, nil},
		{"ResetPassword", "user.password_reset", func() error {
			_, err := ops.ResetPassword(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard}, mailToken(t, st, "maria@example.com", store.MailResetPassword),
				"outra frase bem comprida agora")
			return err
		}, nil},
		{"ActivateLive", "account.live_activated", func() error {
			maria, err := st.UserByEmail(ctx, "maria@example.com")
			require.NoError(t, err)
			_, err = ops.ActivateLive(ctx, store.ActorAdmin("accounts activate-live"), *maria.AccountID)
			return err
		}, nil},
		{"NotifySignInFailures", "user.sign_in_throttled", func() error {
			return ops.NotifySignInFailures(ctx, store.Actor{ID: "visitor", Door: store.DoorDashboard, IP: "203.0.113.9"}, "maria@example.com")
		}, nil},
		{"RecordSignIn", "user.signed_in", func() error { return ops.RecordSignIn(ctx, who, owner, true) }, nil},
		{"EnrollTOTP", "user.two_factor_enabled", func() (err error) {
			key, err := operations.NewTOTPKey("Pagamentos", owner)
			require.NoError(t, err)
			code, err := totp.GenerateCode(key.Secret(), st.Now())
			require.NoError(t, err)
			recovery, err = ops.EnrollTOTP(ctx, who, owner, key.Secret(), code)
			return err
		}, nil},
		{"VerifySecondFactor", "user.second_factor_verified", func() error {
			_, err := ops.VerifySecondFactor(ctx, who, owner, recovery[0])
			return err
		}, nil},
		{"DisableTOTP", "user.two_factor_disabled", func() error {
			fresh := who
			fresh.SecondFactor, fresh.SecondFactorAt = true, st.Now()
			return ops.DisableTOTP(ctx, fresh, owner)
		}, nil},
		{"AddPasskey", "user.passkey_added", func() error {
			return ops.AddPasskey(ctx, who, owner, "Notebook", &webauthn.Credential{ID: []byte("credential-1"), PublicKey: []byte{1, 2, 3}})
		}, nil},
		{"UsedPasskey", "user.second_factor_verified", func() error {
			return ops.UsedPasskey(ctx, who, owner, &webauthn.Credential{ID: []byte("credential-1"), PublicKey: []byte{1, 2, 3}})
		}, nil},
		{"PersonOf", "", func() error {
			p, err := ops.PersonOf(ctx, owner)
			require.Len(t, p.Credentials, 1)
			return err
		}, nil},
		{"RemovePasskey", "user.passkey_removed", func() error {
			fresh := who
			fresh.SecondFactor, fresh.SecondFactorAt = true, st.Now()
			return ops.RemovePasskey(ctx, fresh, owner, []byte("credential-1"))
		}, nil},
		{"EndSession", "user.session_ended", func() error { return ops.EndSession(ctx, who, owner, session) }, func() {
			var err error
			session, err = st.OpenSession(ctx, owner.ID, 0, "203.0.113.9", "Firefox")
			require.NoError(t, err)
		}},
		{"EndOtherSessions", "user.other_sessions_ended", func() error {
			_, err := ops.EndOtherSessions(ctx, who, owner, session)
			return err
		}, nil},
		{"CreateAccount", "account.created+user.created+api_key.created", func() error {
			_, _, _, _, err := ops.CreateAccount(ctx, store.ActorAdmin("accounts create"), operations.NewOperatorAccount{
				Name: "Sorveteria", Email: "sorvete@example.com", Password: "picolé de goiaba gelado", FeeBPS: 99})
			return err
		}, nil},
		{"CreateUser", "user.created", func() error {
			_, err := ops.CreateUser(ctx, store.ActorAdmin("users create"), "suporte@example.com", "correct-horse-battery", store.RoleSupport, "")
			return err
		}, nil},
		{"SetPasswordOf", "user.password_set", func() error {
			return ops.SetPasswordOf(ctx, store.ActorAdmin("demo"), "suporte@example.com", "outra frase bem comprida")
		}, nil},
		{"ReceivePSPNotice", "", func() error {
			_, err := ops.ReceivePSPNotice(ctx, store.ActorPSP, operations.PSPNotice{Received: []string{"E00000000202611281200000000000001"}})
			return err
		}, nil},
		{"HurryCharge", "", func() error { return ops.HurryCharge(ctx, who, pending) },
			func() { pending = newPaymentSilently(t, ops, acct, test) }},
		{"OpenSession", "", func() error { _, err := ops.OpenSession(ctx, who, owner); return err }, nil},
		{"SetPreferences", "user.preferences_set", func() error { return ops.SetPreferences(ctx, who, owner, store.LocaleEN, "") }, nil},
		{"ChangePassword", "user.password_changed", func() error {
			return ops.ChangePassword(ctx, who, owner, "another-correct-horse")
		}, nil},
	}

	var methods []string
	for m := range reflect.TypeFor[*operations.Operations]().Methods() {
		methods = append(methods, m.Name)
	}
	var walked []string
	for _, s := range steps {
		walked = append(walked, s.op)
	}
	slices.Sort(walked)
	require.Equal(t, methods, slices.Compact(walked), "every operation has its step")

	refusedToViewer := 0
	for _, s := range steps {
		if s.prepare != nil {
			s.prepare()
		}
		// First as a viewer, where the Rulebook refuses them: the operation
		// itself asks the table (no door did), and its refusal writes nothing.
		if needs, ruled := operations.Rulebook[s.op]; ruled && !operations.RoleMay(store.RoleViewer, needs) && askedOfPeople(needs) &&
			!slices.Contains(askedByOthers, s.op) {
			owner, before := who, everyTable(t, db)
			who = viewer
			err := s.changes()
			who = owner
			var denied *operations.PermissionError
			require.ErrorAs(t, err, &denied, "%s refuses a viewer", s.op)
			refusedToViewer++
			require.Equal(t, before, everyTable(t, db), "%s: its refusal writes nothing", s.op)
		}
		before := auditRows(t, db)
		require.NoError(t, s.changes(), s.op)
		after := auditRows(t, db)
		added := after[len(before):]
		if s.action == "" {
			require.Empty(t, added, "%s asks, changes nothing", s.op)
			continue
		}
		// One row, or one per object it makes ("a+b+c": an account, its
		// owner and its key).
		expected := strings.Split(s.action, "+")
		require.Len(t, added, len(expected), "%s writes one audit row per object", s.op)
		for i, action := range expected {
			require.Equal(t, action, added[i].Action, s.op)
		}
		require.NotEmpty(t, added[0].ObjectID, s.op)
		switch s.op {
		case "ApplyPSPDispute":
			require.Equal(t, [2]string{"psp", "psp"}, [2]string{added[0].Actor, added[0].Door}, s.op)
		case "ReturnTransfer", "ActivateLive", "CreateAccount", "CreateUser", "SetPasswordOf": // askedByOthers
			require.Equal(t, "admin", added[0].Door, s.op)
		case "AcceptInvitation", "SignUpBusiness", "VerifyEmail", "ResetPassword":
			// Who followed the link (or signed up) is the user it was for.
			require.Regexp(t, `^user:usr_`, added[0].Actor, s.op)
		case "ChargeThroughLink":
			require.Equal(t, [2]string{"payer", "checkout"}, [2]string{added[0].Actor, added[0].Door}, s.op)
		case "RequestPasswordReset", "NotifySignInFailures":
			require.Equal(t, [2]string{"visitor", "dashboard"}, [2]string{added[0].Actor, added[0].Door}, s.op)
		default:
			require.Equal(t, [3]string{who.ID, "dashboard", "203.0.113.9"}, [3]string{added[0].Actor, added[0].Door, added[0].IP}, s.op)
		}
	}
	t.Logf("%d operations refused a viewer by themselves", refusedToViewer)
	require.Greater(t, refusedToViewer, 30, "the refusal pass ran")
}

// askedByOthers are the steps that ask as the operator, the PSP or a
// visitor, not as the account's person the walk's who is.
var askedByOthers = []string{"ApplyPSPDispute", "ReturnTransfer", "ActivateLive", "CreateAccount", "CreateUser", "SetPasswordOf",
	"AcceptInvitation", "SignUpBusiness", "VerifyEmail", "ResetPassword", "RequestPasswordReset", "NotifySignInFailures",
	"ChargeThroughLink"}

// askedOfPeople says whether a person of an account is who asks for
// changes that need p: not the platform's, the PSP's or one's own sign-in.
func askedOfPeople(p operations.Permission) bool {
	resource, _, _ := strings.Cut(string(p), ":")
	return !slices.Contains([]string{"platform", string(operations.PSPOnly), string(operations.Anyone), string(operations.Self)}, resource)
}

// everyTable counts the rows of every table a change writes.
func everyTable(t *testing.T, db *bun.DB) string {
	t.Helper()
	var counts string
	require.NoError(t, db.NewRaw(`SELECT string_agg(format('%s=%s', c.relname, (xpath('/row/n/text()',
		query_to_xml(format('SELECT count(*) AS n FROM %I', c.relname), false, true, '')))[1]::text), ' ' ORDER BY c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition`).Scan(context.Background(), &counts))
	return counts
}

// newPaymentSilently and paidSilently make what a step needs as the
// service's own doing, before the step counts rows.
func newPaymentSilently(t *testing.T, ops *operations.Operations, acct *store.Account, scope store.Scope) *store.Payment {
	t.Helper()
	p, _, err := ops.CreatePayment(context.Background(), store.ActorSystem, acct, scope.Livemode, store.NewPayment{AmountCents: 10_000}, "", nil)
	require.NoError(t, err)
	return p
}

func paidSilently(t *testing.T, ops *operations.Operations, acct *store.Account, scope store.Scope) *store.Payment {
	t.Helper()
	p := newPaymentSilently(t, ops, acct, scope)
	p, err := ops.Store.MarkPaymentPaid(context.Background(), scope, p.ID.String(), nil)
	require.NoError(t, err)
	return p
}

func auditRows(t *testing.T, db *bun.DB) []auditRow {
	t.Helper()
	var rows []auditRow
	require.NoError(t, db.NewRaw(`SELECT action, object_id, actor, door, coalesce(host(ip), '') AS ip, changes::text AS changes
		FROM audit_log ORDER BY id`).Scan(context.Background(), &rows))
	return rows
}

// mailToken is the token of the link in the newest queued mail of kind to
// `to`, read from the outbox (its data is sealed there).
func mailToken(t *testing.T, st *store.Store, to, kind string) string {
	t.Helper()
	mails, err := st.ClaimEmails(context.Background(), 100, time.Minute, "test")
	require.NoError(t, err)
	for i := len(mails) - 1; i >= 0; i-- {
		if m := mails[i]; m.To == to && m.Kind == kind {
			_, token, ok := strings.Cut(m.Data["link"], "token=")
			require.True(t, ok, m.Data["link"])
			return token
		}
	}
	t.Fatalf("no %s mail to %s", kind, to)
	return ""
}
