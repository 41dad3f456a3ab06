package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Auth is how a client proves itself to a NATS server and checks the
// server: at most one of a token, a user and password, or an NKey seed
// file; and TLS with a CA file (to verify the server) and a certificate
// and key (for servers that verify their clients). The zero value is no
// authentication and no TLS, which the embedded server, on loopback,
// needs.
type Auth struct {
	Token    string
	User     string
	Password string
	// NKeySeed is the path of a file holding a user NKey seed ("SU…",
	// as nk -gen user writes it); the server lists its public key.
	NKeySeed string
	// CA is a PEM file of the certificate authorities that sign the
	// server's certificate; Cert and Key are the client's certificate
	// and key (PEM), both or neither. Any of them turns TLS on.
	CA, Cert, Key string
}

// Validate reports conflicting or incomplete options and files that
// cannot be read, naming the flag.
func (a Auth) Validate() error {
	n := 0
	for _, set := range []bool{a.Token != "", a.User != "" || a.Password != "", a.NKeySeed != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("--nats-token, --nats-user and --nats-nkey: give at most one")
	case (a.User == "") != (a.Password == ""):
		return errors.New("--nats-user and --nats-password: give both or neither")
	case (a.Cert == "") != (a.Key == ""):
		return errors.New("--nats-cert and --nats-key: give both or neither")
	}
	for _, f := range []struct{ flag, path string }{{"--nats-nkey", a.NKeySeed}, {"--nats-ca", a.CA}, {"--nats-cert", a.Cert}, {"--nats-key", a.Key}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return fmt.Errorf("%s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}

// options returns the client options of a.
func (a Auth) options() ([]nats.Option, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	var o []nats.Option
	switch {
	case a.Token != "":
		o = append(o, nats.Token(a.Token))
	case a.User != "":
		o = append(o, nats.UserInfo(a.User, a.Password))
	case a.NKeySeed != "":
		nk, err := nats.NkeyOptionFromSeed(a.NKeySeed)
		if err != nil {
			return nil, fmt.Errorf("--nats-nkey %s: %v", a.NKeySeed, err)
		}
		o = append(o, nk)
	}
	if a.CA != "" {
		o = append(o, nats.RootCAs(a.CA))
	}
	if a.Cert != "" {
		o = append(o, nats.ClientCert(a.Cert, a.Key))
	}
	return o, nil
}

// Reconnection. A client that loses its server reconnects with
// exponential backoff, ReconnectBase doubling up to ReconnectMax between
// attempts, and logs the loss, the attempts and the reconnection; after
// its reconnect window (DefaultReconnectWindow unless set) without a
// server it gives up: a Worker's Run then returns an error, a
// Coordinator's Run too.
const (
	ReconnectBase          = 100 * time.Millisecond
	ReconnectMax           = 5 * time.Second
	DefaultReconnectWindow = 2 * time.Minute
)

// reconnectDelay is the wait before reconnection attempt n (1, 2, …).
func reconnectDelay(n int) time.Duration {
	d := ReconnectBase << min(max(n-1, 0), 16)
	return min(d, ReconnectMax)
}

// link is a connection whose reconnection gives up after a window.
type link struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	url  string
	lost chan struct{} // closed when reconnecting gave up
	mu   sync.Mutex
	err  error     // why it gave up
	down time.Time // when the server was lost; zero while connected
	gen  int       // counts disconnections
}

// dial connects to url within ConnectTimeout (the error is one line),
// reconnecting for window after a loss (0 = DefaultReconnectWindow);
// logf, if not nil, gets one line per loss, attempt and reconnection.
func dial(url string, a Auth, window time.Duration, logf func(string, ...any)) (*link, error) {
	if window <= 0 {
		window = DefaultReconnectWindow
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ao, err := a.options()
	if err != nil {
		return nil, err
	}
	l := &link{url: url, lost: make(chan struct{})}
	opts := append(ao, nats.Timeout(ConnectTimeout), nats.Name("gorigid"), nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(func(n int) time.Duration {
			d := reconnectDelay(n)
			if n&(n-1) == 0 { // attempts 1, 2, 4, 8, …: the log stays short
				logf("nats %s: reconnecting, attempt %d, next in %v", url, n, d)
			}
			return d
		}),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if nc.IsClosed() {
				return // closed by this process, not lost
			}
			l.mu.Lock()
			l.gen++
			g := l.gen
			l.down = time.Now()
			l.mu.Unlock()
			logf("nats %s: lost the server (%v); reconnecting for up to %v", url, err, window)
			time.AfterFunc(window, func() { l.giveUp(g, window) })
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			l.mu.Lock()
			d := time.Since(l.down)
			l.gen++
			l.down = time.Time{}
			l.mu.Unlock()
			logf("nats %s: reconnected after %v", url, d.Round(time.Millisecond))
		}))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("--nats %s: cannot connect: %v", url, err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(publishWait))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("--nats %s: %v", url, err)
	}
	l.nc, l.js = nc, js
	return l, nil
}

// giveUp closes the connection if it is still down since disconnection
// gen.
func (l *link) giveUp(gen int, window time.Duration) {
	l.mu.Lock()
	if l.gen != gen || l.err != nil || l.nc.IsConnected() || l.nc.IsClosed() {
		l.mu.Unlock()
		return
	}
	l.err = fmt.Errorf("nats %s: no server for %v (the reconnect window): giving up", l.url, window)
	l.mu.Unlock()
	close(l.lost)
	l.nc.Close()
}

// pause waits for d, or until ctx ends or the link gives up.
func (l *link) pause(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	case <-l.lost:
	}
}

// lostErr returns why the link gave up, or nil.
func (l *link) lostErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *link) close() {
	if l != nil && l.nc != nil {
		l.nc.Close()
	}
}
