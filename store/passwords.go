package store

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Passwords follow NIST SP 800-63B (5.1.1.2): long enough, any characters
// (no composition rules), none of the commonest, and not the person's own
// e-mail or business name.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 256
)

// ErrWeakPassword is every password refusal; the errors below say which.
var ErrWeakPassword = errors.New("store: password refused")

// Why a password is refused (each is ErrWeakPassword).
var (
	ErrPasswordTooShort = fmt.Errorf("%w: at least %d characters", ErrWeakPassword, MinPasswordLength)
	ErrPasswordTooLong  = fmt.Errorf("%w: at most %d characters", ErrWeakPassword, MaxPasswordLength)
	ErrPasswordCommon   = fmt.Errorf("%w: one of the commonest passwords", ErrWeakPassword)
	ErrPasswordPersonal = fmt.Errorf("%w: it contains your e-mail or name", ErrWeakPassword)
)

//go:embed passwords/common.txt
var commonPasswordList string

// commonPasswords is the shipped list, lower case.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(commonPasswordList, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = true
		}
	}
	return m
}()

// CheckPassword says whether password may be set, for a person known by
// personal (their e-mail, name, business name).
func CheckPassword(password string, personal ...string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordLength:
		return ErrPasswordTooShort
	case n > MaxPasswordLength:
		return ErrPasswordTooLong
	}
	lower := strings.ToLower(password)
	if commonPasswords[lower] || commonPasswords[strings.TrimRight(lower, "0123456789!@#$%.")] || oneRepeated(lower) {
		return ErrPasswordCommon
	}
	for _, p := range personal {
		p = strings.ToLower(strings.TrimSpace(p))
		if local, _, ok := strings.Cut(p, "@"); ok {
			p = local
		}
		if utf8.RuneCountInString(p) >= 4 && strings.Contains(lower, p) {
			return ErrPasswordPersonal
		}
	}
	return nil
}

// oneRepeated says s is one character, or one short run, repeated
// ("aaaaaaaaaaaa", "abcabcabcabc").
func oneRepeated(s string) bool {
	for size := 1; size <= 3 && size < len(s); size++ {
		if strings.Repeat(s[:size], len(s)/size+1)[:len(s)] == s {
			return true
		}
	}
	return false
}
