package views

import "slices"

// Nav is what the layout needs to know about the signed-in user.
type Nav struct {
	Email     string
	Role      string
	Livemode  bool
	CSRFToken string
	Active    string
	// Self is the page's own address, which it reloads its content from
	// every 5 s while Pending (a refund, a withdrawal, a charge at the PSP
	// or a return still under way); a part of it may reload on its own
	// (a webhook's deliveries after a test send).
	Self    string
	Pending bool
	// Writes are the resources the person's role changes (operations'
	// resource names): a page offers only those changes.
	Writes []string
	// Accounts are the person's accounts, to switch between (shown when
	// more than one).
	Accounts []AccountChoice
	// Unconfirmed says the person has not confirmed their e-mail yet: every
	// page reminds them, with a button that sends the link again.
	Unconfirmed bool
	// Notice is what the last action said, when the page itself does not
	// show it: every page shows it where the person lands.
	Notice Notice
	// Subaccount names the subaccount the person acts in, and PlatformID
	// and PlatformName its platform, when they act in it as the
	// platform's member (they go back to it from every page).
	Subaccount, PlatformID, PlatformName string
}

// AccountChoice is one account a person belongs to.
type AccountChoice struct {
	ID, Name string
	Current  bool
}

// Can says whether the page may offer changes of resource.
func (n Nav) Can(resource string) bool { return slices.Contains(n.Writes, resource) }

// ErrorPage is a full-page error. BackURL leads back into the dashboard
// (empty on the payer's pages).
type ErrorPage struct {
	Status    int
	Title     string
	Message   string
	RequestID string
	BackURL   string
	BackLabel string
	// English repeats the title and message in English, for a request
	// whose language could not be read (its headers were never read).
	English *ErrorLines
}

// ErrorLines is an error's title and message in one language.
type ErrorLines struct{ Title, Message string }

// Notice is a one-line message after an action (Error: it failed).
type Notice struct {
	Text  string
	Error bool
}

// ReadOnly is true for support staff, who see every account and change nothing.
func (n Nav) ReadOnly() bool { return n.Role == "support" }
