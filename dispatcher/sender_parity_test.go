package dispatcher_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"payments/dispatcher"
)

// TestSendAnswersAsAClientThatFollowsNoRedirect: Send goes to the
// transport itself, not through an http.Client; what a receiver sees and
// what an attempt records stay what the client gave. A URL's user and
// password reach the receiver as basic authentication; a redirect is
// recorded as the answer it is; a failure is worded as the client words
// it ("Post \"url\": ..."), the password hidden.
func TestSendAnswersAsAClientThatFollowsNoRedirect(t *testing.T) {
	auth := make(chan string, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		w.Header().Set("Location", "https://elsewhere.example/hook")
		w.WriteHeader(http.StatusFound)
	}))
	defer recv.Close()
	sender := dispatcher.NewSender(dispatcher.SenderConfig{AllowPrivate: true})
	withUser := strings.Replace(recv.URL, "http://", "http://loja:s3nh4@", 1)
	res := sender.Send(context.Background(), withUser+"/hook", nil, map[string]string{"content-type": "application/json"}, []byte("{}"))
	if got, want := <-auth, "Basic bG9qYTpzM25oNA=="; got != want {
		t.Errorf("Authorization %q, want %q", got, want)
	}
	if res.StatusCode != http.StatusFound || res.ErrClass != dispatcher.ErrClassRedirect ||
		res.ErrMessage != "redirects are not followed: https://elsewhere.example/hook" {
		t.Errorf("redirect recorded as %d %q %q", res.StatusCode, res.ErrClass, res.ErrMessage)
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://loja:s3nh4@" + closed.Addr().String() + "/hook"
	closed.Close()
	res = sender.Send(context.Background(), refused, nil, nil, []byte("{}"))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, clientErr := client.Post(refused, "application/json", strings.NewReader("{}"))
	if clientErr == nil {
		t.Fatal("the client reached a closed port")
	}
	if res.ErrClass != dispatcher.ErrClassConnRefused || res.ErrMessage != clientErr.Error() {
		t.Errorf("refused recorded as %q %q, the client's words %q", res.ErrClass, res.ErrMessage, clientErr.Error())
	}
	if strings.Contains(res.ErrMessage, "s3nh4") {
		t.Errorf("the password in an attempt's error: %q", res.ErrMessage)
	}
}
