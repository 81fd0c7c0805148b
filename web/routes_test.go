package web_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithRedis(t))
	r := s.Do(webtest.Request{Method: "GET", Path: "/healthz"})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, map[string]any{"status": "ok"}, r.JSON(t))
	r = s.Do(webtest.Request{Method: "GET", Path: "/readyz"})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, map[string]any{"status": "ready", "checks": map[string]any{"database": "ok", "redis": "ok"}}, r.JSON(t))

	require.NoError(t, s.DB.Close())
	r = s.Do(webtest.Request{Method: "GET", Path: "/readyz"})
	require.Equal(t, http.StatusServiceUnavailable, r.Status)
	require.Equal(t, "unavailable", r.JSON(t)["checks"].(map[string]any)["database"])
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/nothing", Key: s.TestKey})
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, "route_not_found", r.ErrorCode(t))
	r = s.Do(webtest.Request{Method: "GET", Path: "/nothing"})
	require.Equal(t, http.StatusNotFound, r.Status)
	require.Equal(t, "route_not_found", r.ErrorCode(t))
	r = s.Do(webtest.Request{Method: "PUT", Path: "/api/v1/payments", Key: s.TestKey, Body: "{}"})
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	require.Equal(t, "method_not_allowed", r.ErrorCode(t))
}

func TestQRCodePNG(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 1500})
	r := s.Do(webtest.Request{Method: "GET", Path: "/pay/" + p["id"].(string) + "/qr.png"})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "image/png", r.Header.Get("Content-Type"))
	img, err := png.Decode(bytes.NewReader(r.Body))
	require.NoError(t, err)
	require.InDelta(t, 300, img.Bounds().Dx(), 40)
	require.Equal(t, img.Bounds().Dx(), img.Bounds().Dy())
	for _, pt := range []image.Point{{0, 0}, {img.Bounds().Dx() - 1, img.Bounds().Dy() - 1}, {10, img.Bounds().Dy() / 2}} {
		gray := color.GrayModel.Convert(img.At(pt.X, pt.Y)).(color.Gray)
		require.Equal(t, uint8(255), gray.Y, "quiet zone at %v is white", pt)
	}
	r = s.Do(webtest.Request{Method: "GET", Path: "/pay/018f0000-0000-7000-8000-000000000000/qr.png"})
	require.Equal(t, http.StatusNotFound, r.Status)
	r = s.Do(webtest.Request{Method: "GET", Path: "/pay/not-an-id/qr.png"})
	require.Equal(t, http.StatusNotFound, r.Status)
}
