package views

import "payments/versions"

// APIVersionsPage is the changelog: every dated version, newest first.
type APIVersionsPage struct {
	Nav      Nav
	Versions []APIVersionRow
	// Pinned is the version the account's integration is pinned to.
	Pinned string
}

// APIVersionRow is one version and what it changed, each change's text in
// the reader's language, its code apart.
type APIVersionRow struct {
	Version string
	Current bool
	Changes [][]versions.Segment
}
