package pix

import "crypto/rand"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// TxIDLength sits inside the 26..35 range the Banco Central allows for
// transaction ids of charges (cob).
const TxIDLength = 32

// NewTxID returns a fresh random transaction id (about 190 bits of entropy).
func NewTxID() string {
	return RandomBase62(TxIDLength)
}

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z].
func RandomBase62(n int) string {
	out := make([]byte, n)
	buf := make([]byte, n*2)
	for i := 0; i < n; {
		_, _ = rand.Read(buf) // crypto/rand.Read never fails on supported platforms
		for _, b := range buf {
			// Rejection sampling keeps the distribution uniform: 248 = 4*62.
			if b >= 248 {
				continue
			}
			out[i] = base62[b%62]
			i++
			if i == n {
				break
			}
		}
	}
	return string(out)
}
