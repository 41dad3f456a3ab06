package sweep

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testPKI writes a CA, a server certificate for 127.0.0.1 and a client
// certificate, all signed by the CA, as PEM files in dir.
func testPKI(t *testing.T, dir string) (ca, srvCert, srvKey, cliCert, cliKey string) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return p
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage},
			KeyUsage: x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		require.NoError(t, err)
		kd, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kd)
	}
	srvCert, srvKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	cliCert, cliKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return write("ca.pem", "CERTIFICATE", caDER), srvCert, srvKey, cliCert, cliKey
}

// Each way of authenticating: the server refuses a client without the
// credential (one line naming the URL) and accepts one with it; with
// TLS and client verification, a client needs the CA and its own
// certificate. A sweep through the TLS + NKey server records its
// result.
func TestAuth(t *testing.T) {
	dir := t.TempDir()
	ca, sc, sk, cc, ck := testPKI(t, dir)
	user, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, err := user.PublicKey()
	require.NoError(t, err)
	seed, err := user.Seed()
	require.NoError(t, err)
	seedFile := filepath.Join(dir, "user.nk")
	require.NoError(t, os.WriteFile(seedFile, seed, 0o600))
	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	otherSeed, err := other.Seed()
	require.NoError(t, err)
	otherFile := filepath.Join(dir, "other.nk")
	require.NoError(t, os.WriteFile(otherFile, otherSeed, 0o600))

	tlsAuth := Auth{NKeySeed: seedFile, CA: ca, Cert: cc, Key: ck}
	for _, c := range []struct {
		name      string
		srv       ServerOptions
		good      Auth
		bad       []Auth
		badSubstr string
	}{
		{"token", ServerOptions{Token: "s3cret"}, Auth{Token: "s3cret"}, []Auth{{}, {Token: "wrong"}}, "Authorization Violation"},
		{"user", ServerOptions{User: "ann", Password: "pw"}, Auth{User: "ann", Password: "pw"}, []Auth{{}, {User: "ann", Password: "no"}}, "Authorization Violation"},
		{"nkey", ServerOptions{NKeys: []string{pub}}, Auth{NKeySeed: seedFile}, []Auth{{}, {NKeySeed: otherFile}}, "Authorization Violation"},
		{"tls", ServerOptions{NKeys: []string{pub}, Cert: sc, Key: sk, CA: ca}, tlsAuth,
			[]Auth{{NKeySeed: seedFile}, {NKeySeed: seedFile, CA: ca}}, "tls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := StartServer(filepath.Join(t.TempDir(), "store"), c.srv)
			require.NoError(t, err)
			defer srv.Close()
			for _, a := range c.bad {
				_, err := dial(srv.URL(), a, 0, nil)
				require.Error(t, err, "%+v", a)
				assert.Contains(t, err.Error(), "--nats "+srv.URL()+": cannot connect")
				assert.NotContains(t, err.Error(), "\n")
			}
			l, err := dial(srv.URL(), c.good, 0, nil)
			require.NoError(t, err)
			l.close()
		})
	}

	// A sweep with the TLS + NKey server: coordinator and worker both
	// authenticate.
	srv, err := StartServer(filepath.Join(dir, "store"), ServerOptions{NKeys: []string{pub}, Cert: sc, Key: sk, CA: ca})
	require.NoError(t, err)
	defer srv.Close()
	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	s, err := Open(spec, Options{Out: filepath.Join(dir, "out"), NATS: srv.URL(), Auth: tlsAuth, Workers: 1})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Run(ctx, jobs[:2])
	require.NoError(t, err)
	for i, r := range res {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		sameResult(t, alone, r)
	}
}

// Conflicting or incomplete options fail before connecting, naming the
// flags.
func TestAuthValidate(t *testing.T) {
	for _, c := range []struct {
		a    Auth
		want string
	}{
		{Auth{Token: "t", User: "u", Password: "p"}, "give at most one"},
		{Auth{User: "u"}, "--nats-user and --nats-password: give both or neither"},
		{Auth{Cert: "c.pem"}, "--nats-cert and --nats-key: give both or neither"},
		{Auth{CA: "/no/such/ca.pem"}, "--nats-ca /no/such/ca.pem: stat /no/such/ca.pem: no such file or directory"},
	} {
		assert.ErrorContains(t, c.a.Validate(), c.want)
	}
	assert.NoError(t, Auth{}.Validate())
	_, err := StartServer(t.TempDir(), ServerOptions{Listen: "127.0.0.1"})
	assert.ErrorContains(t, err, "--listen 127.0.0.1: want HOST:PORT")
	_, err = StartServer(t.TempDir(), ServerOptions{Token: "t", User: "u", Password: "p"})
	assert.ErrorContains(t, err, "--token: give it alone")
}

// The embedded server binds loopback unless told otherwise.
func TestEmbeddedBindsLoopback(t *testing.T) {
	e, err := StartEmbedded(t.TempDir(), 0)
	require.NoError(t, err)
	defer e.Close()
	assert.Contains(t, e.URL(), "nats://127.0.0.1:")
	assert.Equal(t, "127.0.0.1", e.srv.Addr().(*net.TCPAddr).IP.String())
}
