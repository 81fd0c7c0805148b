package webtest

import "payments/store/storetest"

// DBProxy stands between the service and PostgreSQL so that a test can
// take the database away and give it back (storetest.Proxy).
type DBProxy = storetest.Proxy

// WithDBProxy routes the service's database connections through a DBProxy
// (Server.DBProxy).
func WithDBProxy() Option {
	return func(o *Options) { o.dbProxy = true }
}
