package pix

import (
	"net/mail"
	"regexp"
	"strings"
)

// KeyType names the kinds of key the DICT (the PIX key directory) holds.
type KeyType string

const (
	KeyCPF   KeyType = "cpf"
	KeyCNPJ  KeyType = "cnpj"
	KeyEmail KeyType = "email"
	KeyPhone KeyType = "phone"
	KeyEVP   KeyType = "evp" // a random key, a UUID
)

// KeyTypes lists every kind of key.
var KeyTypes = []KeyType{KeyCPF, KeyCNPJ, KeyEmail, KeyPhone, KeyEVP}

var (
	phoneKeyPattern = regexp.MustCompile(`^\+[1-9][0-9]{9,14}$`)
	// emailKeyPattern is the DICT's e-mail key (its API documents this
	// form): ASCII only, so no control, zero-width, bidi-override or
	// look-alike characters reach a transfer's recipient.
	emailKeyPattern = regexp.MustCompile("^[a-zA-Z0-9.!#$&'*+/=?^_`{|}~-]+@[a-zA-Z0-9-]+(\\.[a-zA-Z0-9-]+)+$")
	evpKeyPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// maxEmailKey is the DICT's limit for e-mail keys.
const maxEmailKey = 77

// NormalizeKey recognises a PIX key and returns it in the DICT's form: a CPF
// or CNPJ as digits (punctuation stripped, check digits valid), an e-mail in
// lower case, a phone as +<country><number> (written as Brazilians write
// phones: see phoneKey), a random key as a lower-case UUID.
func NormalizeKey(s string) (key string, kind KeyType, ok bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "+") || strings.ContainsAny(s, "() ") || looksLikePhone(s) {
		if key, ok := phoneKey(s); ok {
			return key, KeyPhone, true
		}
	}
	switch {
	case strings.HasPrefix(s, "+"):
	case strings.Contains(s, "@"):
		addr, err := mail.ParseAddress(s)
		at := strings.LastIndexByte(s, '@')
		if err == nil && addr.Address == s && addr.Name == "" && len(s) <= maxEmailKey &&
			at > 0 && strings.Contains(s[at+1:], ".") && emailKeyPattern.MatchString(s) {
			return strings.ToLower(s), KeyEmail, true
		}
	case len(s) == 36 && strings.Count(s, "-") == 4:
		if lower := strings.ToLower(s); evpKeyPattern.MatchString(lower) {
			return lower, KeyEVP, true
		}
	default:
		if digits, doc, ok := NormalizeDocument(s); ok {
			return digits, KeyType(doc), true
		}
	}
	return "", "", false
}

// looksLikePhone is digits written with dashes only, as phones are
// ("61-98888-0000") and CPFs, CNPJs and random keys are not, unless it is a
// valid CPF written so ("529982247-25").
func looksLikePhone(s string) bool {
	if !strings.Contains(s, "-") || strings.Trim(s, "0123456789-") != "" {
		return false
	}
	_, _, isDocument := NormalizeDocument(s)
	return !isDocument
}
