// Package views holds the templ pages of the dashboard and the checkout:
// each page's .templ beside a .go file of the same name holding its view
// model, which handlers build. Components never touch the database; the
// generated *_templ.go files are committed.
package views
