package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix/apipix/sandboxtest"
	"payments/store/storetest"
)

func TestPSPRegisterWebhook(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Start(t)
	cc := sb.ClientConfig()
	token := strings.Repeat("t0k3n", 8)
	env := map[string]string{"DATABASE_URL": storetest.URL(t), "BASE_URL": "https://pay.example.com",
		"PIX_KEY": sandboxtest.Chave, "PSP_ACCOUNT_NUMBER": sandboxtest.Account, "PSP_BASE_URL": cc.BaseURL, "PSP_TOKEN_URL": cc.TokenURL,
		"PSP_CLIENT_ID": cc.ClientID, "PSP_CLIENT_SECRET": cc.ClientSecret,
		"PSP_CERT_FILE": cc.CertFile, "PSP_KEY_FILE": cc.KeyFile, "PSP_CA_FILE": cc.CAFile, "PSP_CALLBACK_TOKEN": token}

	out := runJSON(t, env, "psp", "register-webhook")
	require.Equal(t, map[string]any{"chave": sandboxtest.Chave, "webhook_url": "https://pay.example.com/psp/webhook/{PSP_CALLBACK_TOKEN}",
		"callbacks_at": "https://pay.example.com/psp/webhook/{PSP_CALLBACK_TOKEN}/pix",
		"recurrence_callbacks_at": []any{"https://pay.example.com/psp/webhook/{PSP_CALLBACK_TOKEN}/rec",
			"https://pay.example.com/psp/webhook/{PSP_CALLBACK_TOKEN}/cobr"}}, out, "the token is never printed")
	state := sb.State()
	require.Equal(t, "https://pay.example.com/psp/webhook/"+token, state.Webhooks[sandboxtest.Chave], "the PSP has the real address")
	require.Equal(t, "https://pay.example.com/psp/webhook/"+token, state.WebhookRec, "and for the recurrences")
	require.Equal(t, "https://pay.example.com/psp/webhook/"+token, state.WebhookCobR, "and for the recurring charges")

	// Without a PSP there is nothing to register with.
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"psp", "register-webhook"}, envOf(map[string]string{"DATABASE_URL": env["DATABASE_URL"]}), &stdout, &stderr)
	require.ErrorContains(t, err, "live mode is off")

	// A wrong secret: refused by the PSP, and the error does not repeat it.
	env["PSP_CLIENT_SECRET"] = "wrong-s3cr3t"
	err = run(context.Background(), []string{"psp", "register-webhook"}, envOf(env), &stdout, &stderr)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "wrong-s3cr3t")
	require.NotContains(t, err.Error(), token)
}
