package views

// SecurityPage is the person's sign-in security: their authenticator app
// (enrolling it with a QR code), recovery codes shown once, passkeys.
type SecurityPage struct {
	Nav    Nav
	Notice Notice
	// TOTPOn says an authenticator app is enrolled; RecoveryLeft how many
	// recovery codes are unused.
	TOTPOn       bool
	RecoveryLeft int
	// Enrolling is the app being enrolled: its QR code (a data: URL of a
	// PNG) and secret to type, until a code confirms it.
	Enrolling *TOTPEnrollment
	// RecoveryCodes are shown once, right after enrolling.
	RecoveryCodes []string
	Error         string
	Passkeys      []PasskeyRow
	// PasskeysOn says the site offers passkeys (its BASE_URL has a domain).
	PasskeysOn bool
	Sessions   []SessionRow
}

// SessionRow is one of the person's signed-in browsers.
type SessionRow struct {
	ID, Device, IP, LastSeen, Since string
	Current                         bool
}

// TOTPEnrollment is an authenticator app being added.
type TOTPEnrollment struct {
	QRDataURL, Secret string
}

// PasskeyRow is one passkey of the person's.
type PasskeyRow struct {
	ID, Name, Created, LastUsed string
}

// passkeyAction is a passkey button: its ceremony ("create" or "get"), its
// endpoint, where to go after ("" for the server's say), and its looks.
type passkeyAction struct {
	Mode, Endpoint, Next, Label, TestID, Class string
}

// secondaryButton is the look of a button beside a form's own.
const secondaryButton = "w-full rounded border border-slate-300 bg-white px-4 py-2 font-medium hover:bg-slate-50"

// VerifyPage asks for a second factor: to finish signing in (Action
// /login/verify) or before a change that wants a fresh one.
type VerifyPage struct {
	Action, Next, Error, CSRFToken string
	// Passkey offers the passkey button (they hold one), first; Code the
	// code box (they enrolled an authenticator app, whose recovery codes
	// it also takes). Each is offered only to whom has it.
	Passkey, Code bool
	// Nav is set on the signed-in step-up page.
	Nav *Nav
}
