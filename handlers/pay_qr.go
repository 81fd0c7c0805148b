package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"net/http"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"
	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// qrSize is the PNG's side in pixels: large enough for a phone camera at arm's length.
const qrSize = 320

// Pay serves the payer-facing public pages under /pay.
type Pay struct {
	Store *store.Store
}

// QRCode handles GET /pay/{id}/qr.png: the payment's BR Code as a QR image.
// It is public (the payer has no key); the id's 74 random bits make it unguessable.
func (p *Pay) QRCode(c *fiber.Ctx) error {
	ref := pathRef(c, "id")
	id, ok := store.ParsePaymentID(ref)
	if !ok {
		return NoSuchPayment(ref)
	}
	payment, err := p.Store.PaymentByID(c.UserContext(), id)
	if errors.Is(err, store.ErrNotFound) {
		return NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	img, err := QRPNG(payment.BRCode)
	if err != nil {
		return err
	}
	// A BR Code never changes once issued, so browsers may keep the image.
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400, immutable")
	c.Set(fiber.HeaderContentType, "image/png")
	return c.Status(http.StatusOK).Send(img)
}

// QRPNG encodes text as a QR code PNG with medium error correction.
func QRPNG(text string) ([]byte, error) {
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("qr encode: %w", err)
	}
	code, err = barcode.Scale(code, qrSize, qrSize)
	if err != nil {
		return nil, fmt.Errorf("qr scale: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, code); err != nil {
		return nil, fmt.Errorf("qr png: %w", err)
	}
	return buf.Bytes(), nil
}
