//! The connection phase: the server's handshake v10 read, the client's answer
//! written (an SSLRequest first when TLS is used), and the login's exchange folded
//! packet by packet — an auth switch to another plugin, `caching_sha2_password`'s
//! fast path (its scramble matched the server's cache) and its full authentication
//! (the password in the clear over TLS; without TLS encrypted with the server's RSA
//! key (`rsa`), from `server-public-key-path` or asked for (0x02) when
//! `get-server-public-key` allows it, else refused naming both), the final OK or
//! ERR. The scrambles:
//! `mysql_native_password` is SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw)));
//! `caching_sha2_password` is SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce).

use sha1::Sha1;
use sha2::{Digest, Sha256};

use super::answer::ServerError;
use super::packet::{self, nul_str, ProtocolError};
use super::url::{MyUrl, SslMode};

/// Capability flags (the protocol's CLIENT_* bits) that the login uses.
pub mod cap {
    pub const LONG_PASSWORD: u32 = 1;
    pub const LONG_FLAG: u32 = 4;
    pub const CONNECT_WITH_DB: u32 = 8;
    pub const PROTOCOL_41: u32 = 0x200;
    pub const SSL: u32 = 0x800;
    pub const TRANSACTIONS: u32 = 0x2000;
    pub const SECURE_CONNECTION: u32 = 0x8000;
    pub const MULTI_STATEMENTS: u32 = 0x1_0000;
    pub const MULTI_RESULTS: u32 = 0x2_0000;
    pub const PS_MULTI_RESULTS: u32 = 0x4_0000;
    pub const PLUGIN_AUTH: u32 = 0x8_0000;
    pub const PLUGIN_AUTH_LENENC: u32 = 0x20_0000;
}

/// What the client asks for; the server's handshake narrows it.
const WANTED: u32 = cap::LONG_PASSWORD
    | cap::LONG_FLAG
    | cap::CONNECT_WITH_DB
    | cap::PROTOCOL_41
    | cap::TRANSACTIONS
    | cap::SECURE_CONNECTION
    | cap::MULTI_STATEMENTS
    | cap::MULTI_RESULTS
    | cap::PS_MULTI_RESULTS
    | cap::PLUGIN_AUTH
    | cap::PLUGIN_AUTH_LENENC;

/// utf8mb4_general_ci: both servers know it, and MariaDB's default is close.
const CHARSET: u8 = 45;

/// Why a login did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginError {
    /// The server's bytes are not the protocol.
    Protocol(ProtocolError),
    /// The server refused (wrong password 1045, unknown database 1049, 1040…).
    Server(ServerError),
    /// Something hakaru does not speak, named (a plugin, a protocol before 4.1,
    /// TLS the server does not offer, full authentication without TLS).
    Unsupported(String),
}

impl From<ProtocolError> for LoginError {
    fn from(e: ProtocolError) -> Self {
        LoginError::Protocol(e)
    }
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::Protocol(e) => write!(f, "{e}"),
            LoginError::Server(e) => write!(f, "{e}"),
            LoginError::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

/// An authentication plugin hakaru answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    Native,
    CachingSha2,
    /// `mysql_clear_password`: only ever sent over TLS.
    Clear,
}

impl Plugin {
    fn named(name: &[u8]) -> Result<Plugin, LoginError> {
        match name {
            b"mysql_native_password" | b"" => Ok(Plugin::Native),
            b"caching_sha2_password" => Ok(Plugin::CachingSha2),
            b"mysql_clear_password" => Ok(Plugin::Clear),
            other => Err(LoginError::Unsupported(format!(
                "the server asks for the authentication plugin {:?}; hakaru speaks \
                 mysql_native_password and caching_sha2_password",
                String::from_utf8_lossy(other)
            ))),
        }
    }

    fn name(self) -> &'static [u8] {
        match self {
            Plugin::Native => b"mysql_native_password",
            Plugin::CachingSha2 => b"caching_sha2_password",
            Plugin::Clear => b"mysql_clear_password",
        }
    }
}

/// `mysql_native_password`'s answer to `nonce` (empty for an empty password).
pub fn scramble_native(password: &[u8], nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(nonce);
    h.update(stage2);
    let mix = h.finalize();
    stage1.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect()
}

/// `caching_sha2_password`'s answer to `nonce` (empty for an empty password).
pub fn scramble_sha256(password: &[u8], nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha256::digest(password);
    let stage2 = Sha256::digest(stage1);
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(nonce);
    let mix = h.finalize();
    stage1.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect()
}

/// Where the login stands after a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginStep {
    /// A packet was written to `out`: send it, then read the next.
    Sent,
    /// Nothing to send; read the next packet.
    Wait,
    /// The server said OK: the connection is ready for commands.
    Done,
}

/// One connection's login.
pub struct Login {
    user: String,
    password: String,
    database: String,
    nonce: Vec<u8>,
    plugin: Plugin,
    caps: u32,
    tls: bool,
    seq: u8,
    /// The server's RSA public key (PEM), from `server-public-key-path`.
    server_key: Option<Vec<u8>>,
    /// `get-server-public-key`: full authentication without TLS may ask for it.
    fetch_key: bool,
    /// The client asked for the key (0x02); the server's next packet holds it.
    awaiting_key: bool,
    /// The server's version string, from its handshake.
    pub server_version: String,
    /// The server's id for this connection (`KILL` takes it).
    pub connection_id: u32,
}

impl Login {
    pub fn new(user: &str, password: Option<&str>, database: &str) -> Login {
        Login {
            user: user.into(),
            password: password.unwrap_or("").into(),
            database: database.into(),
            nonce: Vec::new(),
            plugin: Plugin::Native,
            caps: 0,
            tls: false,
            seq: 0,
            server_key: None,
            fetch_key: false,
            awaiting_key: false,
            server_version: String::new(),
            connection_id: 0,
        }
    }

    /// A login as `url` says: its user and database, `password` (else the URL's),
    /// and how full authentication may go without TLS (its RSA key parameters).
    pub fn for_url(url: &MyUrl, password: Option<&str>) -> Login {
        let mut login = Login::new(
            &url.user,
            password.or(url.password.as_deref()),
            &url.database,
        );
        login.server_key = url.server_public_key.as_ref().map(|k| k.pem.clone());
        login.fetch_key = url.get_server_public_key;
        login
    }

    /// Reads the server's first packet (its handshake, or an ERR such as 1040) and
    /// says whether to go on over TLS as `ssl` asks and the server offers; writes the
    /// SSLRequest (then do the TLS handshake, then `respond`) or the response itself.
    pub fn greeting(
        &mut self,
        seq: u8,
        p: &[u8],
        ssl: SslMode,
        out: &mut Vec<u8>,
    ) -> Result<bool, LoginError> {
        if p.first() == Some(&0xff) {
            return Err(LoginError::Server(ServerError::parse(p)?));
        }
        let bad = ProtocolError::Malformed("handshake");
        if p.first() != Some(&10) {
            return Err(LoginError::Unsupported(format!(
                "a handshake of protocol version {}; hakaru speaks 10",
                p.first().copied().unwrap_or(0)
            )));
        }
        let (version, rest) = nul_str(&p[1..])?;
        self.server_version = String::from_utf8_lossy(version).into_owned();
        let fixed = rest.get(..13).ok_or(bad.clone())?;
        self.connection_id = u32::from_le_bytes(fixed[..4].try_into().unwrap());
        self.nonce.clear();
        self.nonce.extend_from_slice(&fixed[4..12]);
        let mut caps =
            u16::from_le_bytes(rest.get(13..15).ok_or(bad.clone())?.try_into().unwrap()) as u32;
        let mut plugin = Plugin::Native;
        if let Some(more) = rest.get(15..31) {
            caps |= (u16::from_le_bytes([more[3], more[4]]) as u32) << 16;
            let data_len = more[5] as usize;
            let tail = &rest[31..];
            // Part 2 of the nonce: max(13, len - 8) bytes, its last a NUL.
            let n2 = data_len.saturating_sub(8).max(13);
            let part2 = tail.get(..n2).ok_or(bad.clone())?;
            self.nonce
                .extend_from_slice(&part2[..part2.len().saturating_sub(1).min(12)]);
            if caps & cap::PLUGIN_AUTH != 0 {
                let name = &tail[n2..];
                let name = name.split(|&b| b == 0).next().unwrap_or(b"");
                plugin = Plugin::named(name)?;
            }
        }
        if caps & cap::PROTOCOL_41 == 0 {
            return Err(LoginError::Unsupported(
                "a server without protocol 4.1 (MySQL before 4.1)".into(),
            ));
        }
        self.plugin = plugin;
        self.caps = WANTED & caps;
        self.seq = seq.wrapping_add(1);
        let offered = caps & cap::SSL != 0;
        self.tls = match ssl {
            SslMode::Disabled => false,
            SslMode::Preferred => offered,
            SslMode::Required | SslMode::VerifyIdentity if offered => true,
            _ => {
                return Err(LoginError::Unsupported(
                    "ssl-mode asks for TLS, and the server does not offer it".into(),
                ))
            }
        };
        if self.tls {
            self.caps |= cap::SSL;
            let at = packet::start(out);
            self.put_head(out);
            packet::finish(out, at, &mut self.seq);
        } else {
            self.respond(out);
        }
        Ok(self.tls)
    }

    /// The fixed front of the response (and all of the SSLRequest).
    fn put_head(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.caps.to_le_bytes());
        out.extend_from_slice(&(packet::MAX_PAYLOAD as u32).to_le_bytes());
        out.push(CHARSET);
        out.extend_from_slice(&[0; 23]);
    }

    /// Writes the HandshakeResponse41 (after the TLS handshake, when there is one).
    pub fn respond(&mut self, out: &mut Vec<u8>) {
        let at = packet::start(out);
        self.put_head(out);
        out.extend_from_slice(self.user.as_bytes());
        out.push(0);
        let answer = self.scramble(self.plugin);
        if self.caps & cap::PLUGIN_AUTH_LENENC != 0 {
            packet::put_lenenc_int(out, answer.len() as u64);
        } else {
            out.push(answer.len() as u8);
        }
        out.extend_from_slice(&answer);
        out.extend_from_slice(self.database.as_bytes());
        out.push(0);
        if self.caps & cap::PLUGIN_AUTH != 0 {
            out.extend_from_slice(self.plugin.name());
            out.push(0);
        }
        packet::finish(out, at, &mut self.seq);
    }

    fn scramble(&self, plugin: Plugin) -> Vec<u8> {
        let pw = self.password.as_bytes();
        match plugin {
            Plugin::Native => scramble_native(pw, &self.nonce),
            Plugin::CachingSha2 => scramble_sha256(pw, &self.nonce),
            Plugin::Clear => [pw, b"\0"].concat(),
        }
    }

    /// Writes one packet of `payload` at the login's sequence.
    fn send(&mut self, payload: &[u8], out: &mut Vec<u8>) {
        let at = packet::start(out);
        out.extend_from_slice(payload);
        packet::finish(out, at, &mut self.seq);
    }

    /// Folds the server's next packet (sequence id `seq`) into the login.
    pub fn feed(&mut self, seq: u8, p: &[u8], out: &mut Vec<u8>) -> Result<LoginStep, LoginError> {
        if seq != self.seq {
            return Err(ProtocolError::Sequence(self.seq, seq).into());
        }
        self.seq = seq.wrapping_add(1);
        match p.first() {
            Some(0x00) => Ok(LoginStep::Done),
            Some(0xff) => Err(LoginError::Server(ServerError::parse(p)?)),
            Some(0xfe) => {
                // AuthSwitchRequest: another plugin and a fresh nonce.
                let (name, data) = if p.len() == 1 {
                    (&b"mysql_old_password"[..], &[][..])
                } else {
                    nul_str(&p[1..])?
                };
                self.plugin = Plugin::named(name)?;
                if self.plugin == Plugin::Clear && !self.tls {
                    return Err(LoginError::Unsupported(
                        "the server asks for the password in the clear without TLS".into(),
                    ));
                }
                self.nonce.clear();
                self.nonce.extend_from_slice(&data[..data.len().min(20)]);
                let answer = self.scramble(self.plugin);
                self.send(&answer, out);
                Ok(LoginStep::Sent)
            }
            Some(0x01) if self.plugin == Plugin::CachingSha2 => self.more_data(&p[1..], out),
            Some(&b) => Err(ProtocolError::Unexpected(b).into()),
            None => Err(ProtocolError::Malformed("empty packet").into()),
        }
    }
}

impl Login {
    /// caching_sha2_password's AuthMoreData: fast authentication's verdict, a
    /// request for full authentication, or the RSA key the client asked for.
    fn more_data(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<LoginStep, LoginError> {
        if self.awaiting_key {
            self.awaiting_key = false;
            return self.send_encrypted(data, out);
        }
        match data {
            // Fast authentication succeeded: an OK follows.
            [3] => Ok(LoginStep::Wait),
            [4] if self.tls => {
                let pw = [self.password.as_bytes(), b"\0"].concat();
                self.send(&pw, out);
                Ok(LoginStep::Sent)
            }
            [4] => match self.server_key.take() {
                Some(pem) => self.send_encrypted(&pem, out),
                None if self.fetch_key => {
                    self.awaiting_key = true;
                    self.send(&[2], out);
                    Ok(LoginStep::Sent)
                }
                None => Err(LoginError::Unsupported(
                    "caching_sha2_password wants full authentication (the server's cache \
                     does not hold this user yet, as after its restart), which sends the \
                     password over TLS (ssl-mode=REQUIRED) or encrypted with the server's \
                     RSA public key: add get-server-public-key=true to the URL to fetch the \
                     key from the server (a man in the middle can swap a key fetched in \
                     the clear), or server-public-key-path=FILE to read it from a file"
                        .into(),
                )),
            },
            _ => Err(ProtocolError::Malformed("caching_sha2_password's answer").into()),
        }
    }

    /// Sends the password encrypted with `pem` (the file's key or the server's).
    fn send_encrypted(&mut self, pem: &[u8], out: &mut Vec<u8>) -> Result<LoginStep, LoginError> {
        if super::rsa::check_key(pem).is_err() {
            return Err(ProtocolError::Malformed("RSA public key from the server").into());
        }
        let sealed = super::rsa::encrypt_password(self.password.as_bytes(), &self.nonce, pem)
            .map_err(LoginError::Unsupported)?;
        self.send(&sealed, out);
        Ok(LoginStep::Sent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONCE: [u8; 20] = [
        10, 47, 74, 111, 75, 73, 34, 48, 88, 76, 114, 74, 37, 13, 3, 80, 82, 2, 23, 21,
    ];

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// A MariaDB-like handshake v10 offering `caps`, with `plugin`, at sequence 0.
    fn handshake(caps: u32, plugin: &str) -> Vec<u8> {
        let mut p = vec![10];
        p.extend_from_slice(b"10.11.6-MariaDB\0");
        p.extend_from_slice(&42u32.to_le_bytes());
        p.extend_from_slice(&NONCE[..8]);
        p.push(0);
        p.extend_from_slice(&(caps as u16).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&2u16.to_le_bytes());
        p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
        p.push(21);
        p.extend_from_slice(&[0; 10]);
        p.extend_from_slice(&NONCE[8..]);
        p.push(0);
        p.extend_from_slice(plugin.as_bytes());
        p.push(0);
        p
    }

    #[test]
    fn scrambles_match_known_answers() {
        // caching_sha2_password: go-sql-driver/mysql's published vectors.
        assert_eq!(
            hex(&scramble_sha256(b"secret", &NONCE)),
            "f490e76f66d9d86665ce54d98c78d0acfe2fb0b08b423da807144873d30b312c"
        );
        assert_eq!(
            hex(&scramble_sha256(b"secret2", &NONCE)),
            "abc3934a012cf342e876071c8ee202de51785b430258a7a0138bc79c4d800bc6"
        );
        // mysql_native_password is pinned against MariaDB itself (tests/it/mysql.rs);
        // here its shape: 20 bytes, empty for no password, nonce-dependent.
        assert_eq!(scramble_native(b"pw", &NONCE).len(), 20);
        assert!(scramble_native(b"", &NONCE).is_empty());
        assert_ne!(
            scramble_native(b"pw", &NONCE),
            scramble_native(b"pw", &[0; 20])
        );
    }

    #[test]
    fn a_handshake_is_answered_with_the_user_scramble_database_and_plugin() {
        let mut login = Login::new("bench", Some("secret"), "db");
        let mut out = Vec::new();
        let caps = WANTED | cap::SSL;
        let hs = handshake(caps, "caching_sha2_password");
        assert!(!login.greeting(0, &hs, SslMode::Disabled, &mut out).unwrap());
        assert_eq!(
            (login.connection_id, login.server_version.as_str()),
            (42, "10.11.6-MariaDB")
        );
        assert_eq!(out[3], 1, "the response is packet 1");
        let body = &out[4..];
        assert_eq!(
            u32::from_le_bytes(body[..4].try_into().unwrap()) & cap::SSL,
            0
        );
        let rest = &body[32..];
        let (user, rest) = nul_str(rest).unwrap();
        assert_eq!(user, b"bench");
        let (answer, rest) = packet::lenenc_str(rest).unwrap();
        assert_eq!(answer, &scramble_sha256(b"secret", &NONCE)[..]);
        assert_eq!(rest, b"db\0caching_sha2_password\0");
        // Fast auth: 0x01 0x03, then OK.
        out.clear();
        assert_eq!(login.feed(2, b"\x01\x03", &mut out), Ok(LoginStep::Wait));
        assert_eq!(
            login.feed(3, b"\x00\0\0\x02\0\0\0", &mut out),
            Ok(LoginStep::Done)
        );
        assert!(out.is_empty());
    }

    #[test]
    fn tls_is_asked_for_first_when_offered_and_full_auth_sends_the_password_only_over_it() {
        let mut login = Login::new("u", Some("pw"), "db");
        let mut out = Vec::new();
        let hs = handshake(WANTED | cap::SSL, "caching_sha2_password");
        assert!(login
            .greeting(0, &hs, SslMode::Preferred, &mut out)
            .unwrap());
        assert_eq!(out.len(), 4 + 32, "an SSLRequest alone");
        assert_eq!(out[3], 1);
        out.clear();
        login.respond(&mut out);
        assert_eq!(out[3], 2, "the response after TLS is packet 2");
        out.clear();
        assert_eq!(login.feed(3, b"\x01\x04", &mut out), Ok(LoginStep::Sent));
        assert_eq!(out, b"\x03\0\0\x04pw\0");
        // Without TLS, full authentication is refused by name, not attempted.
        let mut clear = Login::new("u", Some("pw"), "db");
        out.clear();
        let hs = handshake(WANTED, "caching_sha2_password");
        assert!(!clear
            .greeting(0, &hs, SslMode::Preferred, &mut out)
            .unwrap());
        match clear.feed(2, b"\x01\x04", &mut out) {
            Err(LoginError::Unsupported(m)) => assert!(m.contains("TLS"), "{m}"),
            other => panic!("{other:?}"),
        }
        // REQUIRED against a server without TLS.
        let mut req = Login::new("u", None, "db");
        assert!(matches!(
            req.greeting(0, &hs, SslMode::Required, &mut out),
            Err(LoginError::Unsupported(_))
        ));
    }

    #[test]
    fn an_auth_switch_is_answered_with_the_new_plugin_s_scramble_and_errors_are_named() {
        let mut login = Login::new("u", Some("secret"), "db");
        let mut out = Vec::new();
        let hs = handshake(WANTED, "mysql_native_password");
        login.greeting(0, &hs, SslMode::Disabled, &mut out).unwrap();
        out.clear();
        let mut switch = b"\xfecaching_sha2_password\0".to_vec();
        switch.extend_from_slice(&NONCE);
        switch.push(0);
        assert_eq!(login.feed(2, &switch, &mut out), Ok(LoginStep::Sent));
        assert_eq!(out[..4], [32, 0, 0, 3]);
        assert_eq!(&out[4..], &scramble_sha256(b"secret", &NONCE)[..]);
        // A sequence id out of order, an unknown plugin, an ERR: each named.
        assert!(matches!(
            login.feed(9, b"\x00", &mut out),
            Err(LoginError::Protocol(ProtocolError::Sequence(4, 9)))
        ));
        let mut other = Login::new("u", None, "db");
        let hs = handshake(WANTED, "client_ed25519");
        assert!(matches!(
            other.greeting(0, &hs, SslMode::Disabled, &mut out),
            Err(LoginError::Unsupported(m)) if m.contains("client_ed25519")
        ));
        let mut full = Login::new("u", None, "db");
        match full.greeting(
            0,
            b"\xff\x10\x04Too many connections",
            SslMode::Disabled,
            &mut out,
        ) {
            Err(LoginError::Server(e)) => {
                assert_eq!((e.code, &e.sqlstate), (1040, b"HY000"));
                assert_eq!(
                    e.kind(),
                    super::super::errcode::MyErrorKind::TooManyConnections
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Login::new("u", None, "db").greeting(0, b"\x0a5.0\0", SslMode::Disabled, &mut out),
            Err(LoginError::Protocol(_))
        ));
    }

    /// A login to a caching_sha2_password server without TLS, at full authentication.
    fn at_full_auth(login: &mut Login) -> Vec<u8> {
        let mut out = Vec::new();
        let hs = handshake(WANTED, "caching_sha2_password");
        assert!(!login.greeting(0, &hs, SslMode::Disabled, &mut out).unwrap());
        out.clear();
        out
    }

    #[test]
    fn full_auth_without_tls_fetches_the_rsa_key_when_allowed_and_sends_the_password_sealed() {
        use super::super::rsa::TEST_KEY;
        let mut login = Login::new("u", Some("pw"), "db");
        login.fetch_key = true;
        let mut out = at_full_auth(&mut login);
        assert_eq!(login.feed(2, b"\x01\x04", &mut out), Ok(LoginStep::Sent));
        assert_eq!(out, b"\x01\0\0\x03\x02", "the key asked for");
        out.clear();
        let key = [b"\x01", TEST_KEY.as_bytes()].concat();
        assert_eq!(login.feed(4, &key, &mut out), Ok(LoginStep::Sent));
        assert_eq!(out[..4], [0, 1, 0, 5], "one 256-byte block, packet 5");
        assert!(!out.windows(2).any(|w| w == b"pw"), "never in the clear");
        assert_eq!(
            login.feed(6, b"\x00\0\0\x02\0\0\0", &mut out),
            Ok(LoginStep::Done)
        );
        // From a file: sealed at once, nothing asked.
        let mut filed = Login::new("u", Some("pw"), "db");
        filed.server_key = Some(TEST_KEY.as_bytes().to_vec());
        let mut out = at_full_auth(&mut filed);
        assert_eq!(filed.feed(2, b"\x01\x04", &mut out), Ok(LoginStep::Sent));
        assert_eq!(out[..4], [0, 1, 0, 3]);
    }

    #[test]
    fn full_auth_without_tls_or_a_key_is_refused_naming_the_parameters_and_a_bad_key_is_malformed()
    {
        let mut login = Login::new("u", Some("pw"), "db");
        let mut out = at_full_auth(&mut login);
        match login.feed(2, b"\x01\x04", &mut out) {
            Err(LoginError::Unsupported(m)) => assert!(
                m.contains("get-server-public-key=true")
                    && m.contains("server-public-key-path=")
                    && m.contains("ssl-mode=REQUIRED"),
                "{m}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(out.is_empty(), "nothing sent");
        let mut fetch = Login::new("u", Some("pw"), "db");
        fetch.fetch_key = true;
        let mut out = at_full_auth(&mut fetch);
        fetch.feed(2, b"\x01\x04", &mut out).unwrap();
        assert_eq!(
            fetch.feed(
                4,
                b"\x01-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----",
                &mut out
            ),
            Err(LoginError::Protocol(ProtocolError::Malformed(
                "RSA public key from the server"
            )))
        );
    }
}
