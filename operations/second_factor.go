package operations

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"payments/store"
)

// StepUpWindow is how fresh a second factor must be for the changes that
// ask for it again (withdrawals, returns, live keys, webhook secrets, the
// team).
const StepUpWindow = 5 * time.Minute

// Why a change waits for a second factor.
var (
	// ErrStepUpRequired: the person enrolled one, but has not proved it in
	// the last StepUpWindow.
	ErrStepUpRequired = errors.New("operations: confirm your second factor to do this")
	// ErrSecondFactorRequired: live money moves only for people who
	// enrolled a second factor.
	ErrSecondFactorRequired = errors.New("operations: enroll a second factor (an authenticator app or a passkey) to move live money")
	// ErrBadCode: the code is wrong, used already or too old.
	ErrBadCode = errors.New("operations: that code is not valid")
)

// stepUp asks a person (keys and commands are not asked) for a second
// factor proved within StepUpWindow when they enrolled one, and, for live
// money (liveMoney), that they enrolled one.
func (o *Operations) stepUp(who store.Actor, liveMoney bool) error {
	if who.Kind() != "user" {
		return nil
	}
	if !who.SecondFactor {
		if liveMoney {
			return ErrSecondFactorRequired
		}
		return nil
	}
	if who.SecondFactorAt.IsZero() || o.Store.Now().Sub(who.SecondFactorAt) > StepUpWindow {
		return ErrStepUpRequired
	}
	return nil
}

// enrolledForLiveMoney asks a person moving live money to have enrolled a
// second factor (a refund needs no fresh proof: it only returns a payer's
// money to them).
func (o *Operations) enrolledForLiveMoney(who store.Actor, live bool) error {
	if live && who.Kind() == "user" && !who.SecondFactor {
		return ErrSecondFactorRequired
	}
	return nil
}

// NewTOTPKey makes a TOTP secret for u to enroll (kept by the caller until
// EnrollTOTP confirms it: nothing is stored yet).
func NewTOTPKey(issuer string, u *store.User) (*otp.Key, error) {
	return totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: u.Email})
}

// EnrollTOTP turns on u's TOTP once a code of secret proves the app holds
// it, and returns ten recovery codes, shown this once (only their hashes
// are kept). Enrolling again replaces the app and the codes.
func (o *Operations) EnrollTOTP(ctx context.Context, who store.Actor, u *store.User, secret, code string) (codes []string, err error) {
	step, ok := totpStep(secret, code, o.Store.Now())
	if !ok {
		return nil, ErrBadCode
	}
	err = o.record(ctx, who, userScope(u), rule("EnrollTOTP"), "user.two_factor_enabled", func(ctx context.Context) (string, store.Changes, error) {
		codes = newRecoveryCodes()
		if err := o.Store.EnableTOTP(ctx, u.ID, secret, step, codes); err != nil {
			return "", nil, err
		}
		return u.ID, store.Changes{"totp": {u.TOTPEnabledAt != nil, true}, "recovery_codes": {nil, store.RecoveryCodeCount}}, nil
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP turns u's TOTP off (after a fresh second factor).
func (o *Operations) DisableTOTP(ctx context.Context, who store.Actor, u *store.User) error {
	if err := o.stepUp(who, false); err != nil {
		return err
	}
	return o.record(ctx, who, userScope(u), rule("DisableTOTP"), "user.two_factor_disabled", func(ctx context.Context) (string, store.Changes, error) {
		return u.ID, store.Changes{"totp": {true, false}}, o.Store.DisableTOTP(ctx, u.ID)
	})
}

// VerifySecondFactor checks a code of u's: a TOTP code (each works once)
// or a recovery code (used up). It returns which it was.
func (o *Operations) VerifySecondFactor(ctx context.Context, who store.Actor, u *store.User, code string) (method string, err error) {
	code = strings.TrimSpace(code)
	err = o.record(ctx, who, userScope(u), rule("VerifySecondFactor"), "user.second_factor_verified", func(ctx context.Context) (string, store.Changes, error) {
		if secret, err := o.Store.TOTPSecret(ctx, u.ID); err == nil {
			if step, ok := totpStep(secret, code, o.Store.Now()); ok {
				fresh, err := o.Store.UseTOTPStep(ctx, u.ID, step)
				if err != nil {
					return "", nil, err
				}
				if fresh {
					method = "totp"
					return u.ID, store.Changes{"method": {nil, method}}, nil
				}
			}
		} else if !errors.Is(err, store.ErrNoSecondFactor) {
			return "", nil, err
		}
		used, err := o.Store.UseRecoveryCode(ctx, u.ID, code)
		if err != nil {
			return "", nil, err
		}
		if !used {
			return "", nil, ErrBadCode
		}
		method = "recovery_code"
		return u.ID, store.Changes{"method": {nil, method}}, nil
	})
	return method, err
}

// totpStep finds the time step (of now, the one before or after: a phone's
// clock may be off by some seconds) whose code is code.
func totpStep(secret, code string, now time.Time) (int64, bool) {
	if len(code) != 6 {
		return 0, false
	}
	for _, skew := range []int64{0, -1, 1} {
		at := now.Add(time.Duration(skew) * 30 * time.Second)
		want, err := totp.GenerateCode(secret, at)
		if err == nil && want == code {
			return at.Unix() / 30, true
		}
	}
	return 0, false
}

// recoveryAlphabet leaves out letters read alike (0/O, 1/I/L).
const recoveryAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// newRecoveryCodes makes store.RecoveryCodeCount codes like "7KQ2-M9XD-P4TR".
func newRecoveryCodes() []string {
	codes := make([]string, store.RecoveryCodeCount)
	for i := range codes {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		var s strings.Builder
		for j, c := range b {
			if j > 0 && j%4 == 0 {
				s.WriteByte('-')
			}
			s.WriteByte(recoveryAlphabet[int(c)%len(recoveryAlphabet)])
		}
		codes[i] = s.String()
	}
	return codes
}

// EndSession ends one of u's sessions (a browser they no longer use).
func (o *Operations) EndSession(ctx context.Context, who store.Actor, u *store.User, sessionID string) error {
	return o.record(ctx, who, userScope(u), rule("EndSession"), "user.session_ended", func(ctx context.Context) (string, store.Changes, error) {
		n, err := o.Store.EndSessionsOf(ctx, u.ID, sessionID, "")
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return u.ID, store.Changes{"session": {sessionID, "ended"}}, err
	})
}

// EndOtherSessions ends every session of u's but the current one.
func (o *Operations) EndOtherSessions(ctx context.Context, who store.Actor, u *store.User, currentID string) (n int, err error) {
	err = o.record(ctx, who, userScope(u), rule("EndOtherSessions"), "user.other_sessions_ended", func(ctx context.Context) (string, store.Changes, error) {
		n, err = o.Store.EndSessionsOf(ctx, u.ID, "", currentID)
		return u.ID, store.Changes{"sessions_ended": {nil, n}}, err
	})
	return n, err
}
