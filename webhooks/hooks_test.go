package webhooks_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/internal/storetest"
	"github.com/tonql/tonql/internal/testenv"
	"github.com/tonql/tonql/webhooks"
)

const someAddr = "0:561B81016CF0EFE178FBC653F0CF177B852C87333C302C1E4EEAB63ED0105E6A"

// Bad input is refused with an Invalid error whose message starts with
// the field at fault; a hook needs a key, and a key holds a bounded number.
func TestBadInput(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	o := fastOptions(st, nil)
	o.MaxAddresses, o.MaxHooksPerKey = 3, 2
	o.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	svc := webhooks.New(o)
	ctx := context.Background()
	good := webhooks.Input{URL: "https://hooks.example.com/in", Addresses: []string{someAddr}}
	for _, c := range []struct {
		name  string
		edit  func(in *webhooks.Input)
		field string
	}{
		{"no url", func(in *webhooks.Input) { in.URL = "" }, "url"},
		{"not http", func(in *webhooks.Input) { in.URL = "ftp://hooks.example.com/x" }, "url"},
		{"no host", func(in *webhooks.Input) { in.URL = "http:///x" }, "url"},
		{"not a url", func(in *webhooks.Input) { in.URL = "http://a b/%zz" }, "url"},
		{"credentials", func(in *webhooks.Input) { in.URL = "https://u:p@hooks.example.com/" }, "url"},
		{"too long", func(in *webhooks.Input) { in.URL = "https://hooks.example.com/" + strings.Repeat("a", 3000) }, "url"},
		{"no addresses", func(in *webhooks.Input) { in.Addresses = nil }, "addresses"},
		{"oversized set", func(in *webhooks.Input) {
			in.Addresses = []string{someAddr, "0:" + strings.Repeat("1", 64), "0:" + strings.Repeat("2", 64), "0:" + strings.Repeat("3", 64)}
		}, "addresses"},
		{"bad address", func(in *webhooks.Input) { in.Addresses = []string{someAddr, "EQnotanaddress"} }, "addresses[1]"},
		{"unknown event type", func(in *webhooks.Input) { in.EventTypes = []string{"actions", "gossip"} }, "event_types"},
	} {
		in := good
		c.edit(&in)
		_, err := svc.Create(ctx, "key1", in)
		require.Error(t, err, c.name)
		e := apperr.From(err)
		require.Equal(t, apperr.Invalid, e.Kind, c.name)
		require.True(t, strings.HasPrefix(e.Public(), c.field+": "), "%s: %s", c.name, e.Public())
	}

	_, err := svc.Create(ctx, "", good)
	require.Equal(t, apperr.Unauthorized, apperr.From(err).Kind)
	_, err = svc.List(ctx, "")
	require.Equal(t, apperr.Unauthorized, apperr.From(err).Kind)

	made, err := svc.Create(ctx, "key1", webhooks.Input{URL: good.URL, Addresses: []string{someAddr, strings.ToLower(someAddr), someAddr}})
	require.NoError(t, err)
	require.Equal(t, []string{someAddr}, made.Webhook.Addresses, "one set, raw form")
	require.Equal(t, []string{"actions"}, made.Webhook.EventTypes, "actions by default")
	require.True(t, strings.HasPrefix(made.Secret, "whsec_"))
	_, err = svc.Create(ctx, "key1", good)
	require.NoError(t, err)
	_, err = svc.Create(ctx, "key1", good)
	require.Equal(t, apperr.RateLimited, apperr.From(err).Kind, "per-key limit")
	_, err = svc.Create(ctx, "key2", good)
	require.NoError(t, err, "another key has its own limit")

	list, err := svc.List(ctx, "key1")
	require.NoError(t, err)
	require.Len(t, list, 2)
	_, err = svc.Get(ctx, "key2", made.Webhook.ID)
	require.Equal(t, apperr.NotFound, apperr.From(err).Kind, "another key's hook is not found")
	require.Equal(t, apperr.NotFound, apperr.From(svc.Delete(ctx, "key2", made.Webhook.ID)).Kind)
	require.NoError(t, svc.Delete(ctx, "key1", made.Webhook.ID))
	require.Equal(t, apperr.NotFound, apperr.From(svc.Delete(ctx, "key1", made.Webhook.ID)).Kind)
	_, err = svc.Deliveries(ctx, "key1", list[1].ID, 0)
	require.ErrorContains(t, err, "limit: ")
}

// Hooks reach only public addresses: a private URL, a name resolving to a
// private address, and a name that resolves to a public address when the
// hook is made but to a loopback one when it is dialed (DNS rebinding) are
// all refused; WEBHOOK_ALLOW_PRIVATE lets them through.
func TestPrivateAddressRefused(t *testing.T) {
	st := storetest.Open(t, testenv.Databases(t)[0].URL)
	rc := newReceiver(t)
	_, port, _ := strings.Cut(rc.addr, ":")
	dialed := false
	o := fastOptions(st, nil, rc.addr)
	o.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "internal.example.com":
			return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
		case "rebind.example.com":
			if !dialed { // the check at creation sees a public address
				dialed = true
				return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
		}
		return nil, &netErr{}
	}
	svc := webhooks.New(o)
	ctx := context.Background()
	for _, u := range []string{"http://127.0.0.1:" + port + "0/x", "http://[::1]/x", "http://169.254.169.254/latest", "http://internal.example.com/x", "http://nowhere.example.com/x"} {
		_, err := svc.Create(ctx, "key1", webhooks.Input{URL: u, Addresses: []string{someAddr}})
		require.Error(t, err, u)
		require.True(t, strings.HasPrefix(apperr.From(err).Public(), "url: "), apperr.From(err).Public())
	}
	made, err := svc.Create(ctx, "key1", webhooks.Input{URL: "http://rebind.example.com:" + port + "/x", Addresses: []string{someAddr}})
	require.NoError(t, err)
	d, err := svc.Test(ctx, "key1", made.Webhook.ID)
	require.NoError(t, err)
	require.NotNil(t, d.Error)
	require.Contains(t, *d.Error, "not a public address")
	require.Nil(t, d.StatusCode)
	require.Empty(t, rc.got, "nothing reached the receiver")

	// The exempt receiver itself is reached, and a test delivery is signed.
	made, err = svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/ok"), Addresses: []string{someAddr}})
	require.NoError(t, err)
	rc.mu.Lock()
	rc.secret[made.Webhook.ID] = made.Secret
	rc.mu.Unlock()
	d, err = svc.Test(ctx, "key1", made.Webhook.ID)
	require.NoError(t, err)
	require.Nil(t, d.Error)
	require.Equal(t, http.StatusNoContent, *d.StatusCode)
	require.Len(t, rc.got[made.Webhook.ID], 1)
	require.Empty(t, rc.bad)

	o.AllowPrivate, o.ExemptAddrs = true, nil
	open := webhooks.New(o)
	_, err = open.Create(ctx, "key1", webhooks.Input{URL: "http://10.1.2.3/x", Addresses: []string{someAddr}})
	require.NoError(t, err, "WEBHOOK_ALLOW_PRIVATE")
}

type netErr struct{}

func (*netErr) Error() string { return "no such host" }

// A hook whose receiver keeps failing gives each event up after RetryFor
// (logged expired) and is disabled after DisableAfter, saying why; its
// owner can enable it again.
func TestFailingHookIsDisabled(t *testing.T) {
	for _, db := range testenv.Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			st := storetest.Open(t, db.URL)
			hub := startHub(t, st)
			rc := newReceiver(t)
			rc.behave = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
				return false
			}
			o := fastOptions(st, hub, rc.addr)
			o.RetryFor, o.DisableAfter = 100*time.Millisecond, 400*time.Millisecond
			// The receiver fails at once (503) until it is fixed; after, no
			// attempt may fail on the client's timeout (a loaded machine
			// would otherwise disable the hook again).
			o.Timeout = 30 * time.Second
			svc := startService(t, o)
			ctx := context.Background()
			made, err := svc.Create(ctx, "key1", webhooks.Input{URL: rc.url("/x"), Addresses: busiestOfAll(t, 3)})
			require.NoError(t, err)
			importFiles(t, st, blockFiles(t)[:1])
			var h *webhooks.Hook
			waitFor(t, loadedWait, func() bool {
				h, err = svc.Get(ctx, "key1", made.Webhook.ID)
				return err == nil && h.Status == "disabled"
			}, func() string { return debugHook(ctx, svc, made.Webhook.ID, 0, 0) })
			require.Contains(t, *h.DisabledReason, "WEBHOOK_DISABLE_AFTER")
			require.Contains(t, *h.DisabledReason, "HTTP 503: down for maintenance")
			require.NotNil(t, h.FailingSince)
			log, err := svc.Deliveries(ctx, "key1", made.Webhook.ID, 1000)
			require.NoError(t, err)
			outcomes := map[string]int{}
			for _, d := range log {
				outcomes[d.Outcome]++
			}
			require.Positive(t, outcomes["expired"])
			require.Zero(t, outcomes["delivered"])

			// Its owner turns it back on once the receiver works again: it is told
			// what is committed from then on. Another key cannot.
			_, err = svc.Enable(ctx, "key2", made.Webhook.ID)
			require.Error(t, err)
			rc.mu.Lock()
			rc.behave, rc.secret[made.Webhook.ID] = nil, made.Secret
			rc.mu.Unlock()
			start, err := st.LastActionSeq(ctx)
			require.NoError(t, err)
			h, err = svc.Get(ctx, "key1", made.Webhook.ID)
			require.NoError(t, err)
			waiting := h.Pending // queued before it was disabled: sent first
			h, err = svc.Enable(ctx, "key1", made.Webhook.ID)
			require.NoError(t, err)
			require.Equal(t, "active", h.Status)
			require.Nil(t, h.DisabledAt)
			require.Nil(t, h.DisabledReason)
			importFiles(t, st, blockFiles(t)[1:3])
			want := expectedSeqs(t, st, busiestOfAll(t, 3), start)
			require.NotEmpty(t, want)
			got, _ := awaitHook(t, loadedWait, svc, rc, made.Webhook.ID, waiting+len(want))
			require.Len(t, got, waiting+len(want))
			require.Equal(t, want, got[waiting:], "every event committed after it was enabled, in order, after those that waited")
			again, err := svc.Enable(ctx, "key1", made.Webhook.ID)
			require.NoError(t, err, "enabling an active hook changes nothing")
			require.Equal(t, "active", again.Status)
		})
	}
}

func TestSignature(t *testing.T) {
	body := []byte(`{"event_id":"x"}`)
	now := time.Unix(1_800_000_000, 0)
	ts := "1800000000"
	sig := webhooks.Sign("whsec_a", ts, body)
	require.True(t, strings.HasPrefix(sig, "v1="))
	require.NoError(t, webhooks.Verify("whsec_a", ts, sig, body, now, time.Minute))
	require.ErrorContains(t, webhooks.Verify("whsec_b", ts, sig, body, now, time.Minute), "signature")
	require.ErrorContains(t, webhooks.Verify("whsec_a", ts, sig, []byte(`{"event_id":"y"}`), now, time.Minute), "signature")
	require.ErrorContains(t, webhooks.Verify("whsec_a", ts, sig, body, now.Add(10*time.Minute), time.Minute), "timestamp", "a replay")
	require.ErrorContains(t, webhooks.Verify("whsec_a", "1800000001", sig, body, now, time.Minute), "signature", "timestamp is signed")
}
