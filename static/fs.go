// Package static holds the dashboard's built CSS and vendored JS (htmx),
// committed and embedded in the binary (rebuild with `make assets`), and
// the hand-written app.js, passkeys.js and favicon.
package static

import "embed"

// FS serves under /static.
//
//go:embed app.css htmx.min.js app.js passkeys.js favicon.svg
var FS embed.FS
