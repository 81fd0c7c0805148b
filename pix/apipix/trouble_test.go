package apipix

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A PSP call's stored error reads, for a person, as one of a few troubles.
func TestTroubleNamesWhatWentWrong(t *testing.T) {
	for text, want := range map[string]string{
		(&Error{Status: http.StatusServiceUnavailable, op: "put cob"}).Error():                                       "unavailable",
		(&Error{Status: http.StatusBadGateway, op: "put devolucao"}).Error():                                         "unavailable",
		(&Error{Status: http.StatusForbidden, op: "put cob"}).Error():                                                "credentials",
		(&Error{Status: http.StatusBadRequest, op: "put cob", Problem: Problem{Title: "Cobrança inválida"}}).Error(): "refused",
		"apipix: token: oauth2: 401 invalid_client":                                                                  "credentials",
		"apipix: put cob: Put \"https://psp/cob/x\": context deadline exceeded":                                      "timeout",
		"apipix: get pix: Get \"https://psp/pix/E1\": dial tcp 10.0.0.1:443: connect: connection refused":            "unreachable",
		errors.New("something else").Error():                                                                         "other",
	} {
		require.Equal(t, want, Trouble(text), text)
	}
}
