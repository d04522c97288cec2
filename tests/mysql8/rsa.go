package main

// The rsa mode: a MySQL 8 login without TLS, caching_sha2_password's full
// authentication with the server's RSA key, written from MySQL's protocol
// documentation (Vitess refuses full authentication without TLS). Then the text
// protocol's queries, answered without CLIENT_DEPRECATE_EOF (the client here
// does not ask for it).

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"strings"
)

// Capability flags (CLIENT_*) this side offers.
const (
	capLongPassword     = 1
	capLongFlag         = 4
	capConnectWithDB    = 8
	capProtocol41       = 0x200
	capTransactions     = 0x2000
	capSecureConnection = 0x8000
	capMultiStatements  = 0x1_0000
	capMultiResults     = 0x2_0000
	capPluginAuth       = 0x8_0000
	capPluginAuthLenenc = 0x20_0000
)

const plugin = "caching_sha2_password"

func serveRSA(ln net.Listener, acct *account, seen *counts, publicKeyFile string, hostileKey bool) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	sent := pub
	if hostileKey { // the DER cut in half, still a well-formed PEM around it
		sent = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der[:len(der)/2]})
	}
	if publicKeyFile != "" {
		if err := os.WriteFile(publicKeyFile, pub, 0o644); err != nil {
			return err
		}
	}
	go func() {
		var id uint32
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			id++
			s := &session{conn: c, r: bufio.NewReader(c), acct: acct, seen: seen, key: key, pub: sent}
			go s.run(id)
		}
	}()
	return nil
}

type session struct {
	conn net.Conn
	r    *bufio.Reader
	seq  byte
	acct *account
	seen *counts
	key  *rsa.PrivateKey
	pub  []byte
}

func (s *session) run(id uint32) {
	defer s.conn.Close()
	if s.login(id) != nil {
		return
	}
	for {
		s.seq = 0
		p, err := s.read()
		if err != nil || len(p) == 0 {
			return
		}
		switch p[0] {
		case 0x01: // COM_QUIT
			return
		case 0x03: // COM_QUERY
			s.seen.queries.Add(1)
			err = s.answer(string(p[1:]))
		case 0x02, 0x0e: // COM_INIT_DB, COM_PING
			err = s.ok()
		default:
			err = s.fail(1047, "08S01", "Unknown command")
		}
		if err != nil {
			return
		}
	}
}

// login: the handshake, the client's response, then the fast path from the cache
// or full authentication with the RSA key.
func (s *session) login(id uint32) error {
	nonce := make([]byte, 20)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	for i := range nonce { // printable, never NUL, as MySQL's are
		nonce[i] = 0x21 + nonce[i]%0x5e
	}
	caps := uint32(capLongPassword | capLongFlag | capConnectWithDB | capProtocol41 |
		capTransactions | capSecureConnection | capMultiStatements | capMultiResults |
		capPluginAuth | capPluginAuthLenenc)
	hs := []byte{10}
	hs = append(hs, "8.0.36-rsa\x00"...)
	hs = binary.LittleEndian.AppendUint32(hs, id)
	hs = append(hs, nonce[:8]...)
	hs = append(hs, 0)
	hs = binary.LittleEndian.AppendUint16(hs, uint16(caps))
	hs = append(hs, 255)
	hs = binary.LittleEndian.AppendUint16(hs, 2)
	hs = binary.LittleEndian.AppendUint16(hs, uint16(caps>>16))
	hs = append(hs, 21)
	hs = append(hs, make([]byte, 10)...)
	hs = append(hs, nonce[8:]...)
	hs = append(hs, 0)
	hs = append(hs, plugin+"\x00"...)
	if err := s.write(hs); err != nil {
		return err
	}
	p, err := s.read()
	if err != nil {
		return err
	}
	user, scramble, name, err := parseResponse(p)
	if err != nil {
		return s.fail(1043, "08S01", "Bad handshake")
	}
	if name != plugin {
		return s.fail(1251, "08004", "this server speaks caching_sha2_password only")
	}
	if s.acct.fastOK(user, nonce, scramble) {
		s.seen.fast.Add(1)
		if err := s.write([]byte{0x01, 0x03}); err != nil {
			return err
		}
		return s.ok()
	}
	// Not cached (or not this scramble): full authentication.
	if err := s.write([]byte{0x01, 0x04}); err != nil {
		return err
	}
	p, err = s.read()
	if err != nil {
		return err
	}
	if len(p) == 1 && p[0] == 0x02 { // the client asks for the public key
		if err := s.write(append([]byte{0x01}, s.pub...)); err != nil {
			return err
		}
		if p, err = s.read(); err != nil {
			return err
		}
	}
	password, ok := s.decrypt(p, nonce)
	if !ok || !s.acct.fullOK(user, password) {
		s.seen.denied.Add(1)
		return s.fail(1045, "28000", "Access denied for user '"+user+"'")
	}
	s.seen.rsa.Add(1)
	return s.ok()
}

// decrypt: RSA-OAEP (SHA-1, as MySQL's RSA_PKCS1_OAEP_PADDING), then XOR the
// nonce off: the password, NUL-terminated. A password in the clear (no TLS
// here) is refused as MySQL refuses it.
func (s *session) decrypt(p, nonce []byte) (string, bool) {
	if len(p) != s.key.Size() {
		return "", false
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, s.key, p, nil)
	if err != nil {
		return "", false
	}
	for i := range plain {
		plain[i] ^= nonce[i%len(nonce)]
	}
	if len(plain) == 0 || plain[len(plain)-1] != 0 {
		return "", false
	}
	return string(plain[:len(plain)-1]), true
}

// parseResponse reads a HandshakeResponse41: the user, the auth response and the
// plugin's name.
func parseResponse(p []byte) (user string, auth []byte, name string, err error) {
	bad := errors.New("bad handshake response")
	if len(p) < 32 {
		return "", nil, "", bad
	}
	caps := binary.LittleEndian.Uint32(p)
	rest := p[32:]
	cut := func() (string, bool) {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", false
		}
		v := string(rest[:i])
		rest = rest[i+1:]
		return v, true
	}
	var ok bool
	if user, ok = cut(); !ok {
		return "", nil, "", bad
	}
	var n int
	if caps&capPluginAuthLenenc != 0 {
		if len(rest) == 0 || rest[0] >= 0xfb {
			return "", nil, "", bad // no password is longer than 250 bytes here
		}
		n, rest = int(rest[0]), rest[1:]
	} else if len(rest) > 0 {
		n, rest = int(rest[0]), rest[1:]
	}
	if len(rest) < n {
		return "", nil, "", bad
	}
	auth, rest = rest[:n], rest[n:]
	if caps&capConnectWithDB != 0 {
		if _, ok = cut(); !ok {
			return "", nil, "", bad
		}
	}
	if caps&capPluginAuth != 0 {
		if name, ok = cut(); !ok {
			return "", nil, "", bad
		}
	}
	return user, auth, name, nil
}

// answer: a SELECT gets one column, one row ("1"); anything else an OK.
func (s *session) answer(query string) error {
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "SELECT") {
		return s.ok()
	}
	col := []byte{3, 'd', 'e', 'f', 0, 0, 0, 1, '1', 0, 0x0c}
	col = binary.LittleEndian.AppendUint16(col, 63)   // binary
	col = binary.LittleEndian.AppendUint32(col, 1)    // display length
	col = append(col, 0x08)                           // LONGLONG
	col = binary.LittleEndian.AppendUint16(col, 0x81) // NOT NULL, BINARY
	col = append(col, 0, 0, 0)
	eof := []byte{0xfe, 0, 0, 2, 0}
	for _, p := range [][]byte{{1}, col, eof, {1, '1'}, eof} {
		if err := s.write(p); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) ok() error {
	return s.write([]byte{0, 0, 0, 2, 0, 0, 0})
}

func (s *session) fail(code uint16, state, msg string) error {
	p := binary.LittleEndian.AppendUint16([]byte{0xff}, code)
	p = append(p, '#')
	p = append(p, state...)
	p = append(p, msg...)
	if err := s.write(p); err != nil {
		return err
	}
	return errors.New(msg)
}

// write sends one packet (payloads here are far under 16 MiB).
func (s *session) write(payload []byte) error {
	n := len(payload)
	head := []byte{byte(n), byte(n >> 8), byte(n >> 16), s.seq}
	s.seq++
	_, err := s.conn.Write(append(head, payload...))
	return err
}

// read takes one packet and checks its sequence id.
func (s *session) read() ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(s.r, head[:]); err != nil {
		return nil, err
	}
	if head[3] != s.seq {
		return nil, errors.New("sequence id out of order")
	}
	s.seq++
	n := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
	p := make([]byte, n)
	_, err := io.ReadFull(s.r, p)
	return p, err
}
