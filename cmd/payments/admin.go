package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/uptrace/bun"

	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/store/jsonw"
)

// openMigrated applies pending migrations (as MIGRATE_DATABASE_URL's
// owner, when set) and connects as DATABASE_URL, returning the names of
// the migrations applied.
func openMigrated(ctx context.Context, cfg config, maxConns int) (*bun.DB, []string, error) {
	var applied []string
	if cfg.MigrateDatabaseURL != "" {
		owner, err := store.Open(ctx, cfg.MigrateDatabaseURL, 2)
		if err != nil {
			return nil, nil, fmt.Errorf("MIGRATE_DATABASE_URL: %w", err)
		}
		applied, err = store.Migrate(ctx, owner)
		_ = owner.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, maxConns)
	if err != nil {
		return nil, nil, err
	}
	if cfg.MigrateDatabaseURL == "" {
		if applied, err = store.Migrate(ctx, db); err != nil {
			_ = db.Close()
			return nil, nil, err
		}
	}
	return db, applied, nil
}

func migrateCommand(ctx context.Context, cfg config, stdout io.Writer) error {
	db, applied, err := openMigrated(ctx, cfg, 2)
	if err != nil {
		return err
	}
	defer db.Close()
	if applied == nil {
		applied = []string{}
	}
	return printJSON(stdout, map[string]any{"applied": applied})
}

// admin runs the account, key and user commands; each prints one JSON object.
func admin(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	command := args[0]
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		command += " " + args[1]
		args = args[2:]
	} else {
		args = args[1:]
	}
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	name := fs.String("name", "", "account name (shown to payers), or the API key's name")
	email := fs.String("email", "", "e-mail address")
	password := fs.String("password", "", "dashboard password (generated when empty)")
	feeBPS := fs.Int("fee-bps", store.DefaultFeeBPS, "fee in basis points of the amount")
	feeFixed := fs.Int("fee-fixed-cents", store.DefaultFeeFixedCents, "fixed fee in cents per payment")
	accountID := fs.String("account", "", "account id (acct_...)")
	mode := fs.String("mode", "test", "key mode: test or live")
	keyID := fs.String("key", "", "API key id (key_...)")
	role := fs.String("role", store.RoleSupport, "user role: support (platform staff), or with --account: owner, admin, developer, finance or viewer")
	permissions := fs.String("permissions", "", "a restricted key's permissions: payments:read,refunds:write,... (empty: a full sk_ key)")
	allowedIPs := fs.String("allowed-ips", "", "addresses or CIDR ranges the key may be used from, comma-separated (empty: anywhere)")
	paymentRef := fs.String("payment", "", "payment id or external_id")
	amount := fs.Int64("amount-cents", 0, "amount to refund in cents (0: all that is left)")
	description := fs.String("description", "", "what the payer reads with the devolução")
	if err := fs.Parse(args); err != nil {
		return err
	}

	db, _, err := openMigrated(ctx, cfg, 2)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := store.New(db, store.Options{SecretKey: cfg.SecretKey})
	if err != nil {
		return err
	}

	// The admin commands change things through the same operations as the
	// API and the dashboard, recorded as this command's doing.
	ops := &operations.Operations{Store: st, LiveMode: cfg.PSP.on(), BaseURL: cfg.BaseURL}
	who := store.ActorAdmin(command)
	switch command {
	case "accounts create":
		return createAccount(ctx, ops, stdout, *name, *email, *password, *feeBPS, *feeFixed)
	case "accounts activate-live":
		if *accountID == "" {
			return errors.New("accounts activate-live needs --account acct_…")
		}
		acct, err := ops.ActivateLive(ctx, who, *accountID)
		if err != nil {
			return err
		}
		return printJSON(stdout, map[string]any{"account_id": acct.ID, "name": acct.Name, "live_enabled_at": jsonw.FormatTime(*acct.LiveEnabledAt)})
	case "apikeys create":
		if *accountID == "" || (*mode != "test" && *mode != "live") {
			return errors.New("apikeys create needs --account acct_... and --mode test|live")
		}
		if _, err := st.Account(ctx, *accountID); err != nil {
			return fmt.Errorf("no account %s: %w", *accountID, err)
		}
		spec := store.NewAPIKey{Name: *name}
		if *permissions != "" {
			if spec.Permissions, err = operations.ParseKeyPermissions(strings.Split(*permissions, ",")); err != nil {
				return err
			}
		}
		if spec.AllowedIPs, err = operations.ParseAllowedIPs(strings.Split(*allowedIPs, ",")); err != nil {
			return err
		}
		k, secret, err := ops.CreateAPIKey(ctx, who, *accountID, *mode == "live", spec)
		if err != nil {
			return err
		}
		out := map[string]any{"account_id": k.AccountID, "key_id": k.ID, "name": k.Name, "mode": k.Mode(), "key": secret}
		if k.Permissions != nil {
			out["permissions"] = k.Permissions
		}
		if k.AllowedIPs != nil {
			out["allowed_ips"] = k.AllowedIPs
		}
		return printJSON(stdout, out)
	case "apikeys revoke":
		if *accountID == "" || *keyID == "" {
			return errors.New("apikeys revoke needs --account <acct_id> and --key <key_id>")
		}
		k, err := ops.RevokeAPIKey(ctx, who, *accountID, *keyID)
		if err != nil {
			return err
		}
		return printJSON(stdout, map[string]any{"account_id": k.AccountID, "key_id": k.ID, "revoked_at": jsonw.FormatTime(*k.RevokedAt)})
	case "refunds create":
		if *accountID == "" || *paymentRef == "" || (*mode != "test" && *mode != "live") || *amount < 0 {
			return errors.New("refunds create needs --account acct_... --payment <id or external_id> [--mode test|live] [--amount-cents N] [--description ...]")
		}
		in := store.NewRefund{AmountCents: *amount}
		if *description != "" {
			in.Description = description
		}
		r, p, err := ops.RefundPayment(ctx, who, store.Scope{AccountID: *accountID, Livemode: *mode == "live"}, *paymentRef, in)
		if err != nil {
			return err
		}
		return printJSON(stdout, map[string]any{"refund": r, "payment": p})
	case "users create":
		return createUser(ctx, ops, stdout, *role, *email, *password, *accountID)
	case "demo":
		return demo(ctx, ops, stdout, cfg.BaseURL, cfg.PSP.on())
	}
	return fmt.Errorf("unknown command %q\n\n%s", command, usage)
}

func createAccount(ctx context.Context, ops *operations.Operations, stdout io.Writer, name, email, password string, feeBPS, feeFixed int) error {
	generated := password == ""
	if generated {
		password = pix.RandomBase62(20)
	}
	acct, user, k, secret, err := ops.CreateAccount(ctx, store.ActorAdmin("accounts create"), operations.NewOperatorAccount{
		Name: name, Email: email, Password: password, FeeBPS: feeBPS, FeeFixedCents: feeFixed})
	switch {
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("an account or user with e-mail %s already exists", email)
	case errors.Is(err, operations.ErrBadEmail), errors.Is(err, operations.ErrBadBusinessName):
		return fmt.Errorf("accounts create needs --name (2 to 100 characters) and --email (an e-mail address): %w", err)
	case errors.Is(err, operations.ErrBadFee):
		return errors.New("--fee-bps must be 0..10000 and --fee-fixed-cents >= 0")
	case err != nil:
		return err
	}
	out := map[string]any{"account_id": acct.ID, "name": acct.Name, "email": acct.Email, "user_id": user.ID, "key_id": k.ID, "key": secret}
	if generated {
		out["password"] = password
	}
	return printJSON(stdout, out)
}

func createUser(ctx context.Context, ops *operations.Operations, stdout io.Writer, role, email, password, accountID string) error {
	generated := password == ""
	if generated {
		password = pix.RandomBase62(20)
	}
	u, err := ops.CreateUser(ctx, store.ActorAdmin("users create"), email, password, role, accountID)
	switch {
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("a user with e-mail %s already exists", email)
	case errors.Is(err, operations.ErrBadEmail):
		return errors.New("users create needs --email (an e-mail address)")
	case errors.Is(err, operations.ErrSupportHasNoAccount):
		return errors.New("support users see every account: omit --account")
	case errors.Is(err, operations.ErrAccountNeeded):
		return fmt.Errorf("%s users need --account <acct_id>", role)
	case errors.Is(err, store.ErrUnknownRole):
		return errors.New("--role must be support, or with --account one of owner, admin, developer, finance, viewer")
	case err != nil:
		return err
	}
	out := map[string]any{"user_id": u.ID, "email": u.Email, "role": u.Role}
	if u.AccountID != nil {
		out["account_id"] = *u.AccountID
	}
	if generated {
		out["password"] = password
	}
	return printJSON(stdout, out)
}

// The demo account `make run` prints. Its password is reset on every run so
// the printed login always works.
const (
	demoName     = "Loja Demo"
	demoEmail    = "demo@example.com"
	demoPassword = "pix-de-teste-2026"
)

func demo(ctx context.Context, ops *operations.Operations, stdout io.Writer, baseURL string, liveMode bool) error {
	who := store.ActorAdmin("demo")
	acct, err := ops.Store.AccountByEmail(ctx, demoEmail)
	var secret string
	if errors.Is(err, store.ErrNotFound) {
		acct, _, _, secret, err = ops.CreateAccount(ctx, who, operations.NewOperatorAccount{Name: demoName, Email: demoEmail,
			Password: demoPassword, FeeBPS: store.DefaultFeeBPS})
	} else if err == nil {
		if err = ops.SetPasswordOf(ctx, who, demoEmail, demoPassword); err == nil {
			_, secret, err = ops.CreateAPIKey(ctx, who, acct.ID, false, store.NewAPIKey{Name: "Demo (make run)"})
		}
	}
	if err != nil {
		return fmt.Errorf("demo account: %w", err)
	}
	out := map[string]any{
		"dashboard_url": baseURL, "email": demoEmail, "password": demoPassword,
		"account_id": acct.ID, "test_key": secret,
	}
	if liveMode {
		_, live, err := ops.CreateAPIKey(ctx, store.ActorAdmin("demo"), acct.ID, true, store.NewAPIKey{Name: "Demo (make run)"})
		if err != nil {
			return err
		}
		out["live_key"] = live
	}
	return printJSON(stdout, out)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
