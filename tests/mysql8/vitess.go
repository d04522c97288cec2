package main

// The vitess mode: Vitess' MySQL server over TLS, its caching_sha2_password
// method given this program's cache, and a handler that answers and counts.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

func serveVitess(ln net.Listener, acct *account, seen *counts) error {
	cert, err := throwawayCert()
	if err != nil {
		return err
	}
	auth := &authServer{acct: acct, seen: seen}
	auth.methods = []mysql.AuthMethod{mysql.NewSha2CachingAuthMethod(auth, auth, auth)}
	l, err := mysql.NewFromListener(ln, auth, &handler{seen: seen}, 0, 0)
	if err != nil {
		return err
	}
	l.ServerVersion = "8.0.36-vitess"
	l.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	go l.Accept()
	return nil
}

// throwawayCert is a self-signed certificate for 127.0.0.1, made at start
// (clients with ssl-mode=REQUIRED do not check it).
func throwawayCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// authServer is Vitess' AuthServer with caching_sha2_password only: its
// CachingStorage is the account's cache, its PlainTextStorage the password.
type authServer struct {
	acct    *account
	seen    *counts
	methods []mysql.AuthMethod
}

func (a *authServer) AuthMethods() []mysql.AuthMethod { return a.methods }

func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return mysql.CachingSha2Password
}

func (a *authServer) HandleUser(string, net.Addr) bool { return true }

func (a *authServer) UserEntryWithCacheHash(_ []*x509.Certificate, salt []byte, user string, reply []byte, _ net.Addr) (mysql.Getter, mysql.CacheState, error) {
	if a.acct.fastOK(user, salt, reply) {
		a.seen.fast.Add(1)
		return &mysql.StaticUserData{}, mysql.AuthAccepted, nil
	}
	// Not cached, or not this scramble: full authentication, as MySQL does.
	return nil, mysql.AuthNeedMoreData, nil
}

func (a *authServer) UserEntryWithPassword(_ []*x509.Certificate, user, password string, _ net.Addr) (mysql.Getter, error) {
	if !a.acct.fullOK(user, password) {
		a.seen.denied.Add(1)
		return nil, mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
			"Access denied for user '%v'", user)
	}
	a.seen.full.Add(1)
	return &mysql.StaticUserData{}, nil
}

// handler answers every query, a SELECT with one row, and counts it.
type handler struct{ seen *counts }

func answer(query string) *sqltypes.Result {
	q := strings.ToUpper(strings.TrimSpace(query))
	if !strings.HasPrefix(q, "SELECT") {
		return &sqltypes.Result{}
	}
	return &sqltypes.Result{
		Fields: []*querypb.Field{{Name: "1", Type: querypb.Type_INT64}},
		Rows:   [][]sqltypes.Value{{sqltypes.NewInt64(1)}},
	}
}

func (h *handler) NewConnection(*mysql.Conn)                   {}
func (h *handler) ConnectionClosed(*mysql.Conn)                {}
func (h *handler) ConnectionAborted(*mysql.Conn, string) error { return nil }
func (h *handler) ComInitDB(*mysql.Conn, string) error         { return nil }
func (h *handler) WarningCount(*mysql.Conn) uint16             { return 0 }
func (h *handler) ComResetConnection(*mysql.Conn) error        { return nil }

func (h *handler) ComQuery(_ context.Context, _ *mysql.Conn, query string, cb mysql.ResultSpoolFn) error {
	h.seen.queries.Add(1)
	return cb(answer(query), false)
}

// ComMultiQuery takes the whole text as one statement (the tests send one).
func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (string, error) {
	return "", h.ComQuery(ctx, c, query, cb)
}

func (h *handler) ComPrepare(context.Context, *mysql.Conn, string, *mysql.PrepareData) ([]*querypb.Field, error) {
	return nil, mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownComError, "prepared statements are not served here")
}

func (h *handler) ComStmtExecute(context.Context, *mysql.Conn, *mysql.PrepareData, func(*sqltypes.Result) error) error {
	return mysql.NewSQLError(mysql.ERUnknownComError, mysql.SSUnknownComError, "prepared statements are not served here")
}

func (h *handler) ParserOptionsForConnection(*mysql.Conn) (sqlparser.ParserOptions, error) {
	return sqlparser.ParserOptions{}, nil
}
