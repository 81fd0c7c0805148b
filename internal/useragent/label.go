// Package useragent names a browser from its User-Agent header as people
// recognise it: for the sessions list and the new-sign-in e-mail.
package useragent

import "strings"

// Label is a browser and its system, "Firefox · Linux"; "?" for a browser
// it does not know.
func Label(ua string) string {
	browser := "?"
	for _, b := range []struct{ token, name string }{
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"HeadlessChrome", "Chrome (headless)"}, {"Chrome/", "Chrome"},
		{"Firefox/", "Firefox"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client", "Go"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, o := range []struct{ token, name string }{
		{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"},
	} {
		if strings.Contains(ua, o.token) {
			system = " · " + o.name
			break
		}
	}
	return browser + system
}
