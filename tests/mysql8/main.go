// Command mysql8 is a MySQL-protocol server that logs users in with
// caching_sha2_password, MySQL 8's default, for hakaru's login tests
// (tests/it/mysql_auth.rs): no MySQL 8 server is packaged here, and MariaDB has
// no such plugin.
//
//	mysql8 -user U -password P [-mode vitess|rsa] [-public-key FILE] [-hostile-key]
//
// It listens on a loopback port of its own choosing and prints
// "listening 127.0.0.1:PORT" on stdout. On SIGTERM it prints what it saw,
// "queries=N fast=N full=N rsa=N denied=N", and exits.
//
// Both modes keep a cache as MySQL 8 does: empty at the start (as after a
// restart), filled by a full authentication, read by the fast one (the client's
// SHA-256 scramble checked against SHA256(SHA256(password))); a scramble the cache
// does not match goes to full authentication, as MySQL's does.
//
//   - vitess (default): Vitess' MySQL server (github.com/dolthub/vitess/go/mysql)
//     with TLS (a throwaway self-signed certificate) and its
//     caching_sha2_password, which does full authentication over TLS only.
//   - rsa: no TLS. Full authentication with the server's RSA key: the client asks
//     for the public key (0x02) or has it from a file (-public-key writes it),
//     then sends its password XOR the nonce, RSA-OAEP encrypted, which this side
//     decrypts with Go's crypto/rsa. Vitess refuses full authentication without
//     TLS, so this mode speaks the login itself (rsa.go), the smallest honest
//     server side of it. With -hostile-key it sends half of its key when asked,
//     for the test that a client refuses such a key.
//
// Either way, a query is answered with one row ("1") if it is a SELECT, an OK
// otherwise, and counted.
package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// counts is what the server saw, printed at the end.
type counts struct {
	queries, fast, full, rsa, denied atomic.Int64
}

func (c *counts) String() string {
	return fmt.Sprintf("queries=%d fast=%d full=%d rsa=%d denied=%d",
		c.queries.Load(), c.fast.Load(), c.full.Load(), c.rsa.Load(), c.denied.Load())
}

// account is the one user and MySQL 8's cache of its password's double SHA-256.
type account struct {
	user, password string
	mu             sync.Mutex
	cached         []byte
}

func doubleSha256(pw []byte) []byte {
	a := sha256.Sum256(pw)
	b := sha256.Sum256(a[:])
	return b[:]
}

// fastOK checks a caching_sha2_password scramble against the cache:
// SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce) gives back SHA256(pw),
// whose SHA-256 must be the cached hash.
func (a *account) fastOK(user string, nonce, scramble []byte) bool {
	a.mu.Lock()
	cached := a.cached
	a.mu.Unlock()
	if user != a.user || cached == nil || len(scramble) != sha256.Size {
		return false
	}
	h := sha256.New()
	h.Write(cached)
	h.Write(nonce)
	mix := h.Sum(nil)
	stage1 := make([]byte, sha256.Size)
	for i := range stage1 {
		stage1[i] = scramble[i] ^ mix[i]
	}
	got := sha256.Sum256(stage1)
	return subtle.ConstantTimeCompare(got[:], cached) == 1
}

// fullOK checks a password in the clear and, when it is right, fills the cache.
func (a *account) fullOK(user, password string) bool {
	ok := user == a.user && subtle.ConstantTimeCompare([]byte(password), []byte(a.password)) == 1
	if ok {
		a.mu.Lock()
		a.cached = doubleSha256([]byte(password))
		a.mu.Unlock()
	}
	return ok
}

func main() {
	user := flag.String("user", "bench", "the account's user")
	password := flag.String("password", "bench-pw", "the account's password")
	mode := flag.String("mode", "vitess", "vitess (TLS) or rsa (no TLS, the server's RSA key)")
	publicKey := flag.String("public-key", "", "rsa mode: write the server's public key (PEM) here")
	hostileKey := flag.Bool("hostile-key", false, "rsa mode: send a truncated public key when asked (a client must refuse it)")
	flag.Parse()

	acct := &account{user: *user, password: *password}
	seen := &counts{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	switch *mode {
	case "vitess":
		err = serveVitess(ln, acct, seen)
	case "rsa":
		err = serveRSA(ln, acct, seen, *publicKey, *hostileKey)
	default:
		err = fmt.Errorf("unknown -mode %q (vitess or rsa)", *mode)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	fmt.Println(seen)
}
