package pix

import "strconv"

// FormatBRL renders cents the pt-BR way: 123456 -> "R$ 1.234,56".
func FormatBRL(cents int64) string {
	sign := ""
	if cents < 0 {
		sign = "-"
		cents = -cents
	}
	reais := strconv.FormatInt(cents/100, 10)
	var grouped []byte
	for i := range len(reais) {
		if i > 0 && (len(reais)-i)%3 == 0 {
			grouped = append(grouped, '.')
		}
		grouped = append(grouped, reais[i])
	}
	c := cents % 100
	return sign + "R$ " + string(grouped) + "," + string([]byte{byte('0' + c/10), byte('0' + c%10)})
}
