package apimodel

// Report is the public shape of a report.
type Report struct {
	ID            string  `json:"id"`
	Object        string  `json:"object"`
	Livemode      bool    `json:"livemode"`
	Type          string  `json:"type"`
	Format        string  `json:"format"`
	CSVDialect    *string `json:"csv_dialect"`
	Status        string  `json:"status"`
	From          string  `json:"from"`
	To            string  `json:"to"`
	TimeZone      string  `json:"time_zone"`
	PeriodStart   string  `json:"period_start"`
	PeriodEnd     string  `json:"period_end"`
	Scheduled     bool    `json:"scheduled"`
	RowCount      *int64  `json:"row_count"`
	SizeBytes     *int64  `json:"size_bytes"`
	SHA256        *string `json:"sha256"`
	FileURL       *string `json:"file_url"`
	FailureReason *string `json:"failure_reason"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
	CompletedAt   *string `json:"completed_at"`
	ExpiresAt     *string `json:"expires_at"`
}
