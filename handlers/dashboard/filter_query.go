package dashboard

import "net/url"

// filterQuery is a list's filter as query parameters, the empty ones left
// out: what its next page, its other pages and its export carry.
func filterQuery(fields map[string]string) url.Values {
	q := url.Values{}
	for name, value := range fields {
		if value != "" {
			q.Set(name, value)
		}
	}
	return q
}
