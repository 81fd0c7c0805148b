package pix

import "strings"

// FormatDocument writes a CPF (11 digits) as 000.000.000-00 and a CNPJ (14
// characters) as 00.000.000/0000-00 or 12.ABC.345/01DE-35, the way
// Brazilians read them; anything else is returned as it is.
func FormatDocument(digits string) string {
	switch {
	case len(digits) == 11 && isDigits(digits):
		return digits[0:3] + "." + digits[3:6] + "." + digits[6:9] + "-" + digits[9:]
	case cnpjShaped(digits):
		return digits[0:2] + "." + digits[2:5] + "." + digits[5:8] + "/" + digits[8:12] + "-" + digits[12:]
	}
	return digits
}

// MaskDocument formats a CPF or CNPJ and hides the digits that identify
// the person, as Brazilian receipts do (the LGPD's usual practice): a CPF
// shows its middle six digits (***.982.247-**), a CNPJ its company number
// (**.222.333/0001-** or **.ABC.345/01DE-**).
func MaskDocument(digits string) string {
	switch f := FormatDocument(digits); {
	case len(digits) == 11 && f != digits:
		return "***" + f[3:11] + "-**"
	case len(digits) == 14 && f != digits:
		return "**" + f[2:15] + "-**"
	default:
		return strings.Repeat("*", len(digits))
	}
}

// FormatKey writes a PIX key for a person to check: a CPF or CNPJ key
// formatted, any other as it is.
func FormatKey(key string, kind KeyType) string {
	if kind == KeyCPF || kind == KeyCNPJ {
		return FormatDocument(key)
	}
	return key
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
