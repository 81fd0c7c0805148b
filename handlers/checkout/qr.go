package checkout

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"net/http"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// qrSize is about the PNG's side in pixels (whole pixels per module make it
// a little smaller): large enough for a phone camera at arm's length.
const qrSize = 320

// QRCode handles GET /pay/{id}/qr.png: the payment's BR Code as a QR image.
// It is public (the payer has no key); the id's 74 random bits make it unguessable.
func (ch *Checkout) QRCode(c *fiber.Ctx) error {
	payment, err := ch.payment(c)
	if err != nil {
		return err
	}
	if payment.BRCode == "" || State(payment, ch.Store.Now()) != store.StatusPending {
		// Only a charge that can be paid shows a code: not one the PSP has
		// yet to register, nor one that ended.
		return reply.NoSuch("QR code", "id", payment.ID.String())
	}
	return sendQR(c, payment.BRCode)
}

// sendQR answers with code as a QR image, not to be kept: the image of a
// code that stops being payable must not outlive it.
func sendQR(c *fiber.Ctx, code string) error {
	img, err := QRPNG(code)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	c.Set(fiber.HeaderContentType, "image/png")
	return c.Status(http.StatusOK).Send(img)
}

// QRPNG encodes text as a QR code PNG with medium error correction and the
// four-module quiet zone scanners need around the symbol.
func QRPNG(text string) ([]byte, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("qr encode: %w", err)
	}
	const quietModules = 4
	modules := code.Bounds().Dx()
	scale := max(qrSize/(modules+2*quietModules), 1)
	scaled, err := barcode.Scale(code, modules*scale, modules*scale)
	if err != nil {
		return nil, fmt.Errorf("qr scale: %w", err)
	}
	side := (modules + 2*quietModules) * scale
	canvas := image.NewGray(image.Rect(0, 0, side, side))
	draw.Draw(canvas, canvas.Bounds(), image.White, image.Point{}, draw.Src)
	offset := quietModules * scale
	draw.Draw(canvas, scaled.Bounds().Add(image.Pt(offset, offset)), scaled, image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, canvas); err != nil {
		return nil, fmt.Errorf("qr png: %w", err)
	}
	return buf.Bytes(), nil
}

// StaticQRCode handles GET /pay/qr/{id}/qr.png: a static code's image, to
// print or show at a counter, while it takes payments.
func (ch *Checkout) StaticQRCode(c *fiber.Ctx) error {
	q, err := ch.payableCode(c)
	if err != nil {
		return err
	}
	return sendQR(c, q.BRCode)
}

// payableCode is the static code the path names, while it takes
// payments: a code disabled or past its expiry is no page and no image.
func (ch *Checkout) payableCode(c *fiber.Ctx) (*store.PixQRCode, error) {
	id := c.Params("id")
	q, err := ch.Store.PublicPixQRCode(c.UserContext(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, reply.NoSuch("QR code", "id", id)
	case err != nil:
		return nil, err
	case !q.Payable(ch.Store.Now()):
		return nil, reply.NoSuch("QR code", "id", id)
	}
	return q, nil
}

// StaticQRPage handles GET /pay/qr/{id}: a static code's page, to print or
// show at a counter, in the browser's language, while it takes payments.
func (ch *Checkout) StaticQRPage(c *fiber.Ctx) error {
	q, err := ch.payableCode(c)
	if err != nil {
		return err
	}
	acct, _, err := ch.payerLocale(c, q.AccountID)
	if err != nil {
		return err
	}
	m := views.StaticQRPage{Merchant: acct.Name, Via: ch.via(acct.Name), BRCode: q.BRCode, QRCodeURL: "/pay/qr/" + q.ID + "/qr.png"}
	if q.Description != nil {
		m.Description = *q.Description
	}
	if q.AmountCents != nil {
		m.AmountLabel = pix.FormatBRL(*q.AmountCents)
	}
	if q.ExpiresAt != nil {
		m.ExpiresAt = views.Time(c.UserContext(), *q.ExpiresAt)
	}
	c.Set("Vary", "Accept-Language")
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return reply.Page(c, http.StatusOK, views.StaticQR(m))
}
