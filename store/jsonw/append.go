// Package jsonw writes JSON by hand, byte for byte as encoding/json would,
// for what the service writes most: the public objects (payments, events'
// snapshots), webhook envelopes, attempts' headers and the access log.
// encoding/json's reflection was a tenth of a payment read's CPU; tests
// compare every writer here with encoding/json.
package jsonw

import (
	"slices"
	"time"
	"unicode/utf8"
)

// TimeFormat is how every timestamp leaves the service: ISO 8601, UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string {
	return string(appendTimeFormat(make([]byte, 0, len(TimeFormat)), t))
}

// FormatTimePtr renders t in TimeFormat, or nil for nil.
func FormatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted the way encoding/json quotes it: <, >
// and & escaped for HTML, control characters escaped, invalid UTF-8 as
// U+FFFD, and U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte { return appendString(b, s, true) }

// AppendLogString appends s quoted the way slog's JSON handler quotes it:
// as AppendString does but for <, > and &, which it leaves alone.
func AppendLogString(b []byte, s string) []byte { return appendString(b, s, false) }

func appendString(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStringOrNull appends *s, or null for nil.
func AppendStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendTime appends t in TimeFormat, quoted.
func AppendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = appendTimeFormat(b, t)
	return append(b, '"')
}

// appendTimeFormat is t.UTC().AppendFormat(b, TimeFormat) without parsing
// the layout on every call (a payment carries up to seven timestamps).
func appendTimeFormat(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeFormat)
	}
	hour, minute, sec := t.Clock()
	two := func(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	b = two(b, year/100)
	b = two(b, year%100)
	b = append(b, '-')
	b = two(b, int(month))
	b = append(b, '-')
	b = two(b, day)
	b = append(b, 'T')
	b = two(b, hour)
	b = append(b, ':')
	b = two(b, minute)
	b = append(b, ':')
	b = two(b, sec)
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// AppendTimeOrNull appends *t in TimeFormat, or null for nil.
func AppendTimeOrNull(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return AppendTime(b, *t)
}

// AppendStringMap appends m with its keys sorted, as encoding/json does;
// nil is {} (metadata is never null on the wire).
func AppendStringMap(b []byte, m map[string]string) []byte {
	return AppendMap(b, m, AppendString)
}

// AppendStringsMap appends m (HTTP headers: names to values) with its
// keys sorted, as encoding/json does; a nil value is null.
func AppendStringsMap(b []byte, m map[string][]string) []byte {
	return AppendMap(b, m, func(b []byte, values []string) []byte {
		if values == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, v := range values {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, v)
		}
		return append(b, ']')
	})
}

// AppendMap appends m as a JSON object with its keys sorted, as
// encoding/json does, each value written by appendValue.
func AppendMap[V any](b []byte, m map[string]V, appendValue func([]byte, V) []byte) []byte {
	b = append(b, '{')
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}
