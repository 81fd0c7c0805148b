// Package reply is what handlers answer besides their data: the one error
// type clients see (its status and the fields of the error shape), how the
// store's refusals become such errors, and HTML pages. The app's error
// handler (web/errors.go) renders an Error as JSON for the API and as a
// page for browsers.
package reply

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

// Types lists every error type, for the API's description.
var Types = []string{TypeInvalidRequest, TypeAuthentication, TypePermission, TypeIdempotency, TypeRateLimit, TypeAPI}

// Error is an error with everything a client may see: its HTTP status and
// the fields of {"error":{"type","code","message","param","request_id"}}.
// Only this type's Message reaches clients; any other error is a 500.
type Error struct {
	Status  int
	Type    string
	Code    string
	Message string
	Param   string
	// RetryAfter, when set, is sent as Retry-After (seconds).
	RetryAfter int
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

// Forbidden is a 403 permission_error.
func Forbidden(code, message string) *Error {
	return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: code, Message: message}
}

// NoSuch is the 404 for an object the caller cannot see (other accounts'
// objects included, so their existence never leaks). The echoed reference
// is cut short.
func NoSuch(kind, param, ref string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: "resource_missing", Param: param,
		Message: fmt.Sprintf("No such %s: '%s'", kind, Truncate(ref))}
}

// Truncate cuts an echoed reference short so an error never repeats a huge input.
func Truncate(ref string) string {
	if len(ref) > 64 {
		return ref[:64] + "…"
	}
	return ref
}

// NoSuchPayment is the 404 for a payment the caller cannot see.
func NoSuchPayment(ref string) *Error { return NoSuch("payment", "id", ref) }

// Internal is the 500 clients see; the cause is logged, never sent.
func Internal() *Error {
	return &Error{Status: http.StatusInternalServerError, Type: TypeAPI, Code: "internal_error",
		Message: "An internal error occurred. Retry the request; if it persists, contact support with the request id."}
}

// Unavailable is the 503 of a request the database could not serve (it is
// restarting or unreachable): nothing was written, and the same request
// (with the same Idempotency-Key) can be sent again after Retry-After.
func Unavailable() *Error {
	return &Error{Status: http.StatusServiceUnavailable, Type: TypeAPI, Code: "service_unavailable", RetryAfter: 2,
		Message: "The service is briefly unable to reach its database. Nothing was changed: retry the request (with the same Idempotency-Key) in a few seconds."}
}

// TestModeOnly is the 403 for a simulation asked for with live data.
func TestModeOnly(message string) *Error {
	return Forbidden("test_mode_only", message)
}
