package pix

import "strconv"

// FormatBRL renders cents the pt-BR way: 123456 -> "R$ 1.234,56".
func FormatBRL(cents int64) string {
	sign := ""
	if cents < 0 {
		sign = "-"
		cents = -cents
	}
	c := cents % 100
	return sign + "R$ " + GroupThousands(strconv.FormatInt(cents/100, 10), '.') + "," + string([]byte{byte('0' + c/10), byte('0' + c%10)})
}

// GroupThousands puts sep between every three digits of a whole number
// written in digits, from the right: "1234567" -> "1.234.567".
func GroupThousands(digits string, sep byte) string {
	grouped := make([]byte, 0, len(digits)+len(digits)/3)
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			grouped = append(grouped, sep)
		}
		grouped = append(grouped, digits[i])
	}
	return string(grouped)
}
