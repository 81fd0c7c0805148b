// Package static holds the dashboard's built CSS and vendored JS (htmx),
// committed and embedded in the binary. Rebuild with `make assets`.
package static

import "embed"

// FS serves under /static.
//
//go:embed app.css htmx.min.js
var FS embed.FS
