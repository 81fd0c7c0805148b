package pix

import (
	"regexp"
	"strconv"
	"strings"
)

var reaisPattern = regexp.MustCompile(`^([0-9]{1,12})(?:\.([0-9]{1,2}))?$`)

// ParseBRL reads an amount of reais as people type it: "1.234,56",
// "1234,56", "1234.56", "R$ 12" or "0,5". It returns cents.
func ParseBRL(s string) (int64, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "R$"))
	if strings.Contains(s, ",") {
		// pt-BR: dots group thousands, the comma marks the cents.
		s = strings.ReplaceAll(s, ".", "")
		s = strings.Replace(s, ",", ".", 1)
	}
	m := reaisPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	reais, _ := strconv.ParseInt(m[1], 10, 64)
	cents := int64(0)
	if m[2] != "" {
		cents, _ = strconv.ParseInt(m[2], 10, 64)
		if len(m[2]) == 1 {
			cents *= 10
		}
	}
	return reais*100 + cents, true
}
