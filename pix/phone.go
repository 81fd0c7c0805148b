package pix

import "strings"

// brAreaCodes are Brazil's two-digit area codes (DDD).
var brAreaCodes = map[string]bool{}

func init() {
	for _, ddd := range strings.Fields(`11 12 13 14 15 16 17 18 19 21 22 24 27 28 31 32 33 34 35 37 38
		41 42 43 44 45 46 47 48 49 51 53 54 55 61 62 63 64 65 66 67 68 69 71 73 74 75 77 79
		81 82 83 84 85 86 87 88 89 91 92 93 94 95 96 97 98 99`) {
		brAreaCodes[ddd] = true
	}
}

// phoneKey reads a phone PIX key as Brazilians write one and returns it in
// the DICT's form, +<country><number>: "+55 61 98888-0000",
// "+55 (61) 98888-0000", "(61) 98888-0000", "61 98888-0000", "(061)
// 98888-0000", "0xx61 98888-0000" ... Without a country code the number is
// Brazil's, and then it must be one: a known area code, then a mobile (9 and
// eight digits) or a landline (2 to 5 and seven digits). Bare digits are not
// a phone (an 11-digit run is a CPF's shape): that is NormalizeKey's call.
func phoneKey(s string) (string, bool) {
	international := strings.HasPrefix(s, "+")
	digits := make([]byte, 0, len(s))
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case r == '+' && i == 0, r == ' ', r == '-', r == '(', r == ')', r == '.':
		case (r == 'x' || r == 'X') && len(digits) == 1 && digits[0] == '0':
			// "0xx61": the old long-distance prefix with a carrier to pick.
		default:
			return "", false
		}
	}
	d := string(digits)
	if international {
		key := "+" + d
		return key, phoneKeyPattern.MatchString(key) && (!strings.HasPrefix(d, "55") || brNational(d[2:]))
	}
	d = strings.TrimPrefix(d, "0") // the trunk prefix of a long-distance call
	if len(d) >= 12 && strings.HasPrefix(d, "55") && brNational(d[2:]) {
		return "+" + d, true
	}
	if brNational(d) {
		return "+55" + d, true
	}
	return "", false
}

// brNational says d is a Brazilian number with its area code.
func brNational(d string) bool {
	switch {
	case len(d) == 11:
		return brAreaCodes[d[:2]] && d[2] == '9'
	case len(d) == 10:
		return brAreaCodes[d[:2]] && d[2] >= '2' && d[2] <= '5'
	}
	return false
}
