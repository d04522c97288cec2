//! The login, from the startup message to the first ReadyForQuery: the server asks
//! for a password (AuthenticationRequest) in one of the ways hakaru answers — trust
//! (none), cleartext, md5 (`postgres-protocol`'s salted hash), SCRAM-SHA-256 (its SASL
//! exchange, without channel binding) — then reports its parameters and key, and says
//! it is ready. `Login::feed` takes each backend message and appends any answer to
//! the write buffer.

use bytes::BytesMut;
use postgres_protocol::authentication::{md5_hash, sasl};
use postgres_protocol::message::frontend;

use super::backend::{error_field, ProtocolError};

/// Why a login failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginError {
    /// The server asked for a password and none was given (URL, PGPASSWORD, file).
    NoPassword(&'static str),
    /// The server asked for a method hakaru does not speak (its code).
    Unsupported(i32),
    /// The server refused the login: SQLSTATE and message (28P01 wrong password…).
    Refused { sqlstate: String, message: String },
    /// The SCRAM exchange failed (the server's proof did not verify…).
    Scram(String),
    /// The bytes were not PostgreSQL's protocol.
    Protocol(ProtocolError),
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::NoPassword(how) => write!(
                f,
                "the server asks for a password ({how}) and none was given (in the URL, PGPASSWORD or --password-file)"
            ),
            LoginError::Unsupported(code) => write!(
                f,
                "the server asks for authentication method {code}, which hakaru does not speak (trust, password, md5, scram-sha-256)"
            ),
            LoginError::Refused { sqlstate, message } => {
                write!(f, "the server refused the login: {message} (SQLSTATE {sqlstate})")
            }
            LoginError::Scram(e) => write!(f, "SCRAM-SHA-256 failed: {e}"),
            LoginError::Protocol(e) => write!(f, "during login, {e}"),
        }
    }
}

/// Where the login stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginStep {
    /// Read more (write the buffer first if it is not empty).
    More,
    /// ReadyForQuery: the connection takes statements.
    Ready,
}

/// One connection's login.
pub struct Login<'a> {
    user: &'a str,
    password: Option<&'a [u8]>,
    scram: Option<sasl::ScramSha256>,
    /// BackendKeyData: the process ID and key a CancelRequest needs.
    pub backend_key: Option<(i32, i32)>,
}

impl<'a> Login<'a> {
    pub fn new(user: &'a str, password: Option<&'a [u8]>) -> Login<'a> {
        Login {
            user,
            password,
            scram: None,
            backend_key: None,
        }
    }

    fn password(&self, how: &'static str) -> Result<&'a [u8], LoginError> {
        self.password.ok_or(LoginError::NoPassword(how))
    }

    /// Folds one backend message; an answer, if any, is appended to `out`.
    pub fn feed(
        &mut self,
        tag: u8,
        body: &[u8],
        out: &mut BytesMut,
    ) -> Result<LoginStep, LoginError> {
        let malformed = || LoginError::Protocol(ProtocolError::Malformed(tag));
        match tag {
            b'R' => {
                let code = body.get(..4).ok_or_else(malformed)?;
                let data = &body[4..];
                self.authenticate(i32::from_be_bytes(code.try_into().unwrap()), data, out)?;
            }
            b'E' => {
                let text =
                    |f| String::from_utf8_lossy(error_field(body, f).unwrap_or(b"")).into_owned();
                return Err(LoginError::Refused {
                    sqlstate: text(b'C'),
                    message: text(b'M'),
                });
            }
            b'K' => {
                let k = body.get(..8).ok_or_else(malformed)?;
                let i = |r: &[u8]| i32::from_be_bytes(r.try_into().unwrap());
                self.backend_key = Some((i(&k[..4]), i(&k[4..8])));
            }
            b'Z' => return Ok(LoginStep::Ready),
            b'S' | b'N' => {}
            other => return Err(LoginError::Protocol(ProtocolError::Unexpected(other))),
        }
        Ok(LoginStep::More)
    }

    fn authenticate(
        &mut self,
        code: i32,
        data: &[u8],
        out: &mut BytesMut,
    ) -> Result<(), LoginError> {
        let nul = |_| LoginError::Refused {
            sqlstate: "none".into(),
            message: "the user name or password contains a NUL byte".into(),
        };
        match code {
            0 => {}
            3 => {
                // password_message adds the C string's NUL itself.
                frontend::password_message(self.password("cleartext")?, out).map_err(nul)?;
            }
            5 => {
                let salt: [u8; 4] = data
                    .get(..4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or(LoginError::Protocol(ProtocolError::Malformed(b'R')))?;
                let hash = md5_hash(self.user.as_bytes(), self.password("md5")?, salt);
                frontend::password_message(hash.as_bytes(), out).map_err(nul)?;
            }
            10 => {
                let offered = data
                    .split(|&b| b == 0)
                    .any(|m| m == sasl::SCRAM_SHA_256.as_bytes());
                if !offered {
                    return Err(LoginError::Unsupported(code));
                }
                let scram = sasl::ScramSha256::new(
                    self.password("scram-sha-256")?,
                    sasl::ChannelBinding::unsupported(),
                );
                frontend::sasl_initial_response(sasl::SCRAM_SHA_256, scram.message(), out)
                    .map_err(nul)?;
                self.scram = Some(scram);
            }
            11 => {
                let scram = self
                    .scram
                    .as_mut()
                    .ok_or(LoginError::Scram("SASLContinue before SASL".into()))?;
                scram
                    .update(data)
                    .map_err(|e| LoginError::Scram(e.to_string()))?;
                frontend::sasl_response(scram.message(), out).map_err(nul)?;
            }
            12 => {
                let scram = self
                    .scram
                    .as_mut()
                    .ok_or(LoginError::Scram("SASLFinal before SASL".into()))?;
                scram
                    .finish(data)
                    .map_err(|e| LoginError::Scram(e.to_string()))?;
            }
            other => return Err(LoginError::Unsupported(other)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(code: i32, data: &[u8]) -> Vec<u8> {
        let mut b = code.to_be_bytes().to_vec();
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn md5_answers_with_the_salted_hash() {
        let mut out = BytesMut::new();
        let mut l = Login::new("bench", Some(b"pw"));
        assert_eq!(
            l.feed(b'R', &auth(5, b"abcd"), &mut out),
            Ok(LoginStep::More)
        );
        let want = md5_hash(b"bench", b"pw", *b"abcd");
        assert_eq!(&out[0..1], b"p");
        assert_eq!(&out[5..out.len() - 1], want.as_bytes());
        assert!(want.starts_with("md5"));
    }

    #[test]
    fn trust_then_ready_and_a_refusal_names_its_sqlstate() {
        let mut out = BytesMut::new();
        let mut l = Login::new("bench", None);
        assert_eq!(l.feed(b'R', &auth(0, b""), &mut out), Ok(LoginStep::More));
        assert!(out.is_empty());
        l.feed(b'S', b"server_version\x0015\0", &mut out).unwrap();
        l.feed(b'K', b"\0\0\0\x07\0\0\0\x09", &mut out).unwrap();
        assert_eq!(l.backend_key, Some((7, 9)));
        assert_eq!(l.feed(b'Z', b"I", &mut out), Ok(LoginStep::Ready));
        let e = l.feed(
            b'E',
            b"SFATAL\0C28P01\0Mpassword authentication failed\0\0",
            &mut out,
        );
        let e = e.unwrap_err();
        assert!(e.to_string().contains("28P01"), "{e}");
    }

    #[test]
    fn a_password_request_without_one_and_an_unknown_method_are_named() {
        let mut out = BytesMut::new();
        let mut l = Login::new("bench", None);
        let e = l
            .feed(b'R', &auth(10, b"SCRAM-SHA-256\0\0"), &mut out)
            .unwrap_err();
        assert_eq!(e, LoginError::NoPassword("scram-sha-256"));
        assert!(e.to_string().contains("PGPASSWORD"));
        let e = l.feed(b'R', &auth(7, b""), &mut out).unwrap_err();
        assert_eq!(e, LoginError::Unsupported(7));
        let mut l = Login::new("bench", Some(b"pw"));
        let e = l
            .feed(b'R', &auth(10, b"SCRAM-SHA-256-PLUS\0\0"), &mut out)
            .unwrap_err();
        assert_eq!(e, LoginError::Unsupported(10));
        // SCRAM's first message is the client-first-message, "n,,n=,r=NONCE".
        l.feed(
            b'R',
            &auth(10, b"SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0"),
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0], b'p');
        assert!(out.windows(6).any(|w| w == b"n,,n=,"));
    }
}
