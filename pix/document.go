package pix

import "strings"

// DocumentKind tells a CPF (person) from a CNPJ (company).
type DocumentKind string

const (
	CPF  DocumentKind = "cpf"
	CNPJ DocumentKind = "cnpj"
)

// NormalizeDocument strips the usual punctuation (. - /) and spaces and
// validates the check digits. It returns the document compact (a CPF's 11
// digits; a CNPJ's 14 characters, letters in upper case) and its kind, or
// ok=false when the value is not a valid CPF or CNPJ.
//
// CNPJs are alphanumeric since July 2026 (IN RFB 2.229/2024): twelve
// digits or upper-case letters, then two check digits. Digit-only CNPJs
// are the same numbers as before.
func NormalizeDocument(s string) (compact string, kind DocumentKind, ok bool) {
	compact, ok = CompactDocument(s)
	if !ok {
		return "", "", false
	}
	switch {
	case len(compact) == 11 && isDigits(compact):
		if validCPF(compact) {
			return compact, CPF, true
		}
	case len(compact) == 14 && cnpjShaped(compact):
		if validCNPJ(compact) {
			return compact, CNPJ, true
		}
	}
	return "", "", false
}

// CompactDocument is a CPF or CNPJ as typed (or any part of one) without
// its usual punctuation (. - /) and spaces, letters in upper case (as the
// Receita writes alphanumeric CNPJs); ok is false when anything else is in
// it. It checks no length nor check digit: NormalizeDocument does.
func CompactDocument(s string) (compact string, ok bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r == '.' || r == '-' || r == '/' || r == ' ':
		default:
			return "", false
		}
	}
	return b.String(), true
}

// cnpjShaped is 14 characters as a CNPJ has them: twelve digits or
// upper-case letters (the root and the branch), then two check digits.
func cnpjShaped(s string) bool {
	if len(s) != 14 || !isDigits(s[12:]) {
		return false
	}
	for i := 0; i < 12; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func allSame(d string) bool {
	for i := 1; i < len(d); i++ {
		if d[i] != d[0] {
			return false
		}
	}
	return true
}

func validCPF(d string) bool {
	if allSame(d) {
		return false
	}
	for _, n := range []int{9, 10} {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * (n + 1 - i)
		}
		check := sum * 10 % 11 % 10
		if check != int(d[n]-'0') {
			return false
		}
	}
	return true
}

// validCNPJ checks a CNPJ's two check digits (modulo 11, weights 2 to 9
// from the right). A character counts as its ASCII code minus 48, the
// Receita's rule for alphanumeric CNPJs: a digit is its value, 'A' is 17,
// 'Z' is 42.
func validCNPJ(d string) bool {
	if allSame(d) {
		return false
	}
	weights := []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	for _, n := range []int{12, 13} {
		w := weights[13-n:]
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * w[i]
		}
		check := 0
		if r := sum % 11; r >= 2 {
			check = 11 - r
		}
		if check != int(d[n]-'0') {
			return false
		}
	}
	return true
}
