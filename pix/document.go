package pix

import "strings"

// DocumentKind tells a CPF (person) from a CNPJ (company).
type DocumentKind string

const (
	CPF  DocumentKind = "cpf"
	CNPJ DocumentKind = "cnpj"
)

// NormalizeDocument strips the usual punctuation (. - /) and spaces and
// validates the check digits. It returns the digits and the document kind,
// or ok=false when the value is not a valid CPF or CNPJ.
func NormalizeDocument(s string) (digits string, kind DocumentKind, ok bool) {
	digits, ok = DocumentDigits(s)
	if !ok {
		return "", "", false
	}
	switch len(digits) {
	case 11:
		return digits, CPF, validCPF(digits)
	case 14:
		return digits, CNPJ, validCNPJ(digits)
	}
	return "", "", false
}

// DocumentDigits is a CPF or CNPJ as typed (or any part of one) without
// its usual punctuation (. - /) and spaces; ok is false when anything else
// is in it. It checks no length nor check digit: NormalizeDocument does.
func DocumentDigits(s string) (digits string, ok bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '.' || r == '-' || r == '/' || r == ' ':
		default:
			return "", false
		}
	}
	return b.String(), true
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
