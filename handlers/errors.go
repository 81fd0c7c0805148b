// Package handlers holds one file per resource and surface: the JSON API,
// health checks, and the public payer endpoints.
package handlers

import (
	"fmt"
	"net/http"
)

// Error types of the API error shape.
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
	TypePermission     = "permission_error"
	TypeIdempotency    = "idempotency_error"
	TypeRateLimit      = "rate_limit_error"
	TypeAPI            = "api_error"
)

// Error is an error with everything a client may see: its HTTP status and
// the fields of {"error":{"type","code","message","param","request_id"}}.
// Only this type's Message reaches clients; any other error is a 500.
type Error struct {
	Status  int
	Type    string
	Code    string
	Message string
	Param   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// InvalidParam is a 400 about one request parameter.
func InvalidParam(code, param, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Type: TypeInvalidRequest, Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// InvalidRequest is a 4xx invalid_request_error that is not about one parameter.
func InvalidRequest(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Type: TypeInvalidRequest, Code: code, Message: fmt.Sprintf(format, args...)}
}

// noSuch is the 404 for an object the caller cannot see (other accounts'
// objects included, so their existence never leaks). The echoed reference is cut short.
func noSuch(kind, param, ref string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: "resource_missing", Param: param,
		Message: fmt.Sprintf("No such %s: '%s'", kind, truncateRef(ref))}
}

// truncateRef cuts an echoed reference short so an error never repeats a huge input.
func truncateRef(ref string) string {
	if len(ref) > 64 {
		return ref[:64] + "…"
	}
	return ref
}

// NoSuchPayment is the 404 for a payment the caller cannot see.
func NoSuchPayment(ref string) *Error { return noSuch("payment", "id", ref) }

// Internal is the 500 clients see; the cause is logged, never sent.
func Internal() *Error {
	return &Error{Status: http.StatusInternalServerError, Type: TypeAPI, Code: "internal_error",
		Message: "An internal error occurred. Retry the request; if it persists, contact support with the request id."}
}
