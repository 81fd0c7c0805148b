package store

// Metadata is the integrator's own key/value map on a payment or a
// withdrawal (DESIGN: Payments): at most this many keys, keys and values at
// most this long (in characters).
const (
	MaxMetadataKeys  = 50
	MaxMetadataKey   = 40
	MaxMetadataValue = 500
)
