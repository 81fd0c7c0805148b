package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Device cookies (OWASP, "Slow down online guessing attacks with device
// cookies"): a browser that signed in to an e-mail carries a cookie that
// proves it, and its sign-ins to that e-mail are counted apart from
// everyone else's. Guesses from elsewhere for the same e-mail, however
// many and from however many addresses, are throttled without keeping the
// owner out of a device they used before; guesses from the device itself
// have their own, equal limit.
const (
	DeviceCookie    = "payments_device"
	deviceLifetime  = 365 * 24 * time.Hour
	deviceNonceSize = 16
)

// DeviceCookies makes and checks device cookies with a server key.
type DeviceCookies struct {
	Key    []byte
	Secure bool
}

// sum binds a device's nonce to the e-mail it signed in to (the e-mail is
// not in the cookie).
func (dc DeviceCookies) sum(email, nonce string) string {
	mac := hmac.New(sha256.New, dc.Key)
	mac.Write([]byte("device-cookie\x00" + email + "\x00" + nonce))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Trusted returns the id of the device whose cookie c carries when that
// cookie was issued for email, else "".
func (dc DeviceCookies) Trusted(c *fiber.Ctx, email string) string {
	nonce, sum, ok := strings.Cut(c.Cookies(DeviceCookie), ".")
	if !ok || len(nonce) != base64.RawURLEncoding.EncodedLen(deviceNonceSize) || len(dc.Key) == 0 {
		return ""
	}
	if !hmac.Equal([]byte(sum), []byte(dc.sum(email, nonce))) {
		return ""
	}
	return nonce
}

// Issue gives the browser a new device cookie for email, after a sign-in
// that succeeded.
func (dc DeviceCookies) Issue(c *fiber.Ctx, email string) error {
	if len(dc.Key) == 0 {
		return nil
	}
	b := make([]byte, deviceNonceSize)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	nonce := base64.RawURLEncoding.EncodeToString(b)
	c.Cookie(&fiber.Cookie{Name: DeviceCookie, Value: nonce + "." + dc.sum(email, nonce), Path: "/login",
		Expires: time.Now().Add(deviceLifetime), HTTPOnly: true, Secure: dc.Secure, SameSite: fiber.CookieSameSiteLaxMode})
	return nil
}
