//! ApacheBench's options with ApacheBench's defaults, turned into the shared
//! [`RunOptions`]: `hakaru ab` is the same spec → runner → engine path as `run`, only
//! its defaults and its report differ. One connection per request unless `-k`; one
//! request and one client unless `-n`/`-c`; `-t` caps the run at 50,000 requests as ab
//! does; a 30 s timeout; `text/plain` bodies.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;

use crate::engine::ConnectionSettings;

use super::{Body, Load, RequestOptions, RunOptions, SessionOptions, SpecError};

/// ab's request budget when only `-t` is given (its `MAX_REQUESTS`).
pub const TIMED_REQUESTS: u64 = 50_000;
/// ab's `-s` default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// ab's Content-Type for `-p`/`-u` bodies without `-T`.
pub const DEFAULT_CONTENT_TYPE: &str = "text/plain";

/// ab's options, as plain values (`cli::ab` fills them from ab's flags).
#[derive(Debug, Clone, PartialEq)]
pub struct AbOptions {
    pub url: String,
    /// `-n`; None: 1, or [`TIMED_REQUESTS`] with `-t`.
    pub requests: Option<u64>,
    /// `-c`.
    pub concurrency: usize,
    /// `-t`: the longest the run may last.
    pub timelimit: Option<Duration>,
    /// `-p`: POST this file's bytes.
    pub post_file: Option<PathBuf>,
    /// `-u`: PUT this file's bytes.
    pub put_file: Option<PathBuf>,
    /// `-T`.
    pub content_type: Option<String>,
    /// `-H`, as typed.
    pub headers: Vec<String>,
    /// `-C name=value`, each as typed.
    pub cookies: Vec<String>,
    /// `-A user:password`.
    pub auth: Option<String>,
    /// `-s`.
    pub timeout: Duration,
    /// `-k`.
    pub keep_alive: bool,
    /// `-i`: HEAD instead of GET.
    pub head: bool,
    /// `-m`: a method name of one's own (sent with the `-p`/`-u` body, if any).
    pub method: Option<String>,
    /// `--ok-status`: what counts as a success.
    pub ok_status: crate::stats::OkStatus,
    /// `-o`: the result files (CSV, JSON beside it), as `run` writes them.
    pub output: Option<std::path::PathBuf>,
    /// `--http2`, `--streams`: as `run`'s (ab itself speaks HTTP/1.0 only).
    pub connection: ConnectionSettings,
}

impl Default for AbOptions {
    /// ab's defaults.
    fn default() -> Self {
        AbOptions {
            url: String::new(),
            requests: None,
            concurrency: 1,
            timelimit: None,
            post_file: None,
            put_file: None,
            content_type: None,
            headers: Vec::new(),
            cookies: Vec::new(),
            auth: None,
            timeout: DEFAULT_TIMEOUT,
            keep_alive: false,
            head: false,
            method: None,
            ok_status: Default::default(),
            output: None,
            connection: ConnectionSettings::default(),
        }
    }
}

/// What ab refuses, before any load; otherwise the shared checks' errors.
#[derive(Debug, thiserror::Error)]
pub enum AbError {
    #[error("-p and -u cannot be used together (one body, one method)")]
    PostAndPut,
    #[error("-i (HEAD) cannot send the -p/-u body")]
    HeadWithBody,
    #[error("-m \"{0}\" is not a method name")]
    Method(String),
    #[error(
        "-c {concurrency} is more than -n {requests}: ab cannot use more clients than requests"
    )]
    MoreClientsThanRequests { concurrency: usize, requests: u64 },
    #[error("-C \"{0}\": expected name=value")]
    Cookie(String),
    /// HTTP/2 keeps its connections (as `run` refuses `--http2 --no-keep-alive`):
    /// without `-k`, ab's one connection per request would silently not happen.
    #[error(
        "--http2 keeps connections open, as -k does: give -k with it \
         (without -k ab opens one connection per request)"
    )]
    Http2WithoutKeepAlive,
    /// The shared checks' refusal, told with ab's flag names (`-t`, not `-d`).
    #[error("{}", ab_names(.0))]
    Spec(#[from] SpecError),
}

/// `run`'s flags that ab spells its own way, and ab's names for them.
const AB_FLAGS: [(&str, &str); 6] = [
    ("--duration", "-t"),
    ("-d", "-t"),
    ("--default-timeout", "-s"),
    ("--timeout", "-s"),
    ("--body-file", "-p/-u"),
    ("--method", "-m"),
];

/// A shared check's message with the flag it starts with, or the flag it quotes, in
/// ab's name.
fn ab_names(e: &SpecError) -> String {
    let text = e.to_string();
    for (run, ab) in AB_FLAGS {
        if let Some(rest) = text.strip_prefix(run) {
            if rest.starts_with([' ', ':']) {
                return format!("{ab}{rest}");
            }
        }
        let within = format!("cannot read {run} ");
        if text.starts_with(&within) {
            return text.replacen(run, ab, 1);
        }
    }
    text
}

impl AbOptions {
    /// The request budget: `-n`, else ab's 50,000 under `-t`, else 1.
    pub fn budget(&self) -> u64 {
        match (self.requests, self.timelimit) {
            (Some(n), _) => n,
            (None, Some(_)) => TIMED_REQUESTS,
            (None, None) => 1,
        }
    }

    /// The method ab sends: `-m`'s, else HEAD with `-i`, PUT with `-u`, POST with `-p`,
    /// else GET.
    pub fn method(&self) -> &str {
        if let Some(m) = &self.method {
            m
        } else if self.head {
            "HEAD"
        } else if self.put_file.is_some() {
            "PUT"
        } else if self.post_file.is_some() {
            "POST"
        } else {
            "GET"
        }
    }

    /// True when one uncounted request before the load has no effect on the server's
    /// data: GET and HEAD without a body. (The look itself is a GET.)
    pub fn safe_to_look(&self) -> bool {
        self.post_file.is_none()
            && self.put_file.is_none()
            && matches!(self.method(), "GET" | "HEAD")
    }

    /// The headers every request carries: `-H` as typed, then the cookie and the
    /// basic authorization ab builds from `-C` and `-A`.
    pub fn all_headers(&self) -> Result<Vec<String>, AbError> {
        let mut headers = self.headers.clone();
        if !self.cookies.is_empty() {
            for c in &self.cookies {
                if !c.contains('=') {
                    return Err(AbError::Cookie(c.clone()));
                }
            }
            headers.push(format!("Cookie: {}", self.cookies.join("; ")));
        }
        if let Some(auth) = &self.auth {
            let token = base64::engine::general_purpose::STANDARD.encode(auth.as_bytes());
            headers.push(format!("Authorization: Basic {token}"));
        }
        Ok(headers)
    }

    /// The headers as (name, value) pairs, for the one look at the server before the
    /// load; checked the same way as the load's.
    pub fn header_pairs(&self) -> Result<Vec<(String, String)>, AbError> {
        Ok(self
            .all_headers()?
            .iter()
            .map(|h| super::parse_header(h))
            .collect::<Result<_, _>>()?)
    }

    /// The shared run options these say; `check`ed and built like `run`'s.
    pub fn run_options(&self, command_line: Vec<String>) -> Result<RunOptions, AbError> {
        if self.post_file.is_some() && self.put_file.is_some() {
            return Err(AbError::PostAndPut);
        }
        if self.head && (self.post_file.is_some() || self.put_file.is_some()) {
            return Err(AbError::HeadWithBody);
        }
        if let Some(m) = &self.method {
            if m.is_empty()
                || !m
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(AbError::Method(m.clone()));
            }
        }
        if self.connection.http2 && !self.keep_alive {
            return Err(AbError::Http2WithoutKeepAlive);
        }
        let requests = self.budget();
        if requests > 0 && self.concurrency as u64 > requests {
            return Err(AbError::MoreClientsThanRequests {
                concurrency: self.concurrency,
                requests,
            });
        }
        let body = self
            .put_file
            .as_ref()
            .or(self.post_file.as_ref())
            .map(|p| Body::File(p.clone()));
        let content_type = body.as_ref().map(|_| {
            self.content_type
                .clone()
                .unwrap_or_else(|| DEFAULT_CONTENT_TYPE.to_string())
        });
        let options = RunOptions {
            request: RequestOptions {
                url: Some(self.url.clone()),
                method: self.method().to_string(),
                timeout: self.timeout,
                headers: self.all_headers()?,
                body,
                content_type,
                keep_alive: self.keep_alive,
                ok_status: self.ok_status,
                // ab's Waiting column: time to the response's head.
                time_first_byte: true,
                // ab's request line and connection header, as servers see ab's
                // (with --http2, the request goes as HTTP/2 and they are dropped).
                http10: true,
                connection: self.connection,
                // ab's report lists no requests by name.
                n_slow: 0,
                n_fast: 0,
                ..RequestOptions::default()
            },
            session: SessionOptions::default(),
            load: Load::Step {
                clients: self.concurrency,
                duration: self.timelimit,
                requests: Some(requests),
                rate: None,
            },
            interval: Duration::ZERO,
            output_path: self.output.clone(),
            command_line,
        };
        options.check()?;
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ab(f: impl FnOnce(&mut AbOptions)) -> AbOptions {
        let mut o = AbOptions {
            url: "http://127.0.0.1:1/d/status".into(),
            ..AbOptions::default()
        };
        f(&mut o);
        o
    }

    #[test]
    fn abs_defaults_are_one_request_one_client_no_keep_alive() {
        let o = ab(|_| {}).run_options(vec![]).unwrap();
        assert_eq!(
            o.load,
            Load::Step {
                clients: 1,
                duration: None,
                requests: Some(1),
                rate: None
            }
        );
        assert!(!o.request.keep_alive);
        assert_eq!(o.request.timeout, Duration::from_secs(30));
        assert_eq!(o.request.method, "GET");
        assert!(o.request.body.is_none() && o.request.content_type.is_none());
    }

    #[test]
    fn a_timelimit_implies_fifty_thousand_requests() {
        let o = ab(|o| o.timelimit = Some(Duration::from_secs(3)))
            .run_options(vec![])
            .unwrap();
        assert_eq!(
            o.load,
            Load::Step {
                clients: 1,
                duration: Some(Duration::from_secs(3)),
                requests: Some(50_000),
                rate: None
            }
        );
        let o = ab(|o| {
            o.timelimit = Some(Duration::from_secs(3));
            o.requests = Some(10);
        });
        assert_eq!(o.budget(), 10);
    }

    #[test]
    fn bodies_cookies_and_auth_become_requests() {
        let o = ab(|o| {
            o.post_file = Some("body.json".into());
            o.cookies = vec!["a=1".into(), "b=2".into()];
            o.auth = Some("user:pass".into());
            o.headers = vec!["X-A: 1".into()];
        })
        .run_options(vec![])
        .unwrap();
        assert_eq!(o.request.method, "POST");
        assert_eq!(o.request.body, Some(Body::File("body.json".into())));
        assert_eq!(o.request.content_type.as_deref(), Some("text/plain"));
        assert_eq!(
            o.request.headers,
            vec![
                "X-A: 1".to_string(),
                "Cookie: a=1; b=2".into(),
                "Authorization: Basic dXNlcjpwYXNz".into()
            ]
        );
        let o = ab(|o| {
            o.put_file = Some("b".into());
            o.content_type = Some("application/json".into());
        })
        .run_options(vec![])
        .unwrap();
        assert_eq!(o.request.method, "PUT");
        assert_eq!(o.request.content_type.as_deref(), Some("application/json"));
        let o = ab(|o| o.head = true);
        assert_eq!(o.method(), "HEAD");
        assert!(o.safe_to_look());
        let o = ab(|o| {
            o.method = Some("PATCH".into());
            o.post_file = Some("b".into());
        });
        assert_eq!(o.run_options(vec![]).unwrap().request.method, "PATCH");
        assert!(!o.safe_to_look());
        assert!(!ab(|o| o.method = Some("DELETE".into())).safe_to_look());
    }

    #[test]
    fn what_ab_refuses_is_refused_by_flag() {
        let e = |o: AbOptions| o.run_options(vec![]).unwrap_err().to_string();
        assert!(e(ab(|o| {
            o.post_file = Some("a".into());
            o.put_file = Some("b".into());
        }))
        .contains("-p and -u"));
        assert!(e(ab(|o| o.concurrency = 10)).contains("-c 10 is more than -n 1"));
        assert!(e(ab(|o| o.cookies = vec!["nope".into()])).contains("-C \"nope\""));
        assert!(e(ab(|o| o.headers = vec!["nope".into()])).contains("-H"));
        assert!(e(ab(|o| o.concurrency = 0)).contains("-c must be at least 1"));
        assert!(e(ab(|o| {
            o.head = true;
            o.post_file = Some("a".into());
        }))
        .contains("-i (HEAD)"));
        assert!(e(ab(|o| o.method = Some("GE T".into()))).contains("-m \"GE T\""));
        assert!(e(ab(|o| o.requests = Some(0))).contains("-n must be at least 1"));
    }

    #[test]
    fn http2_is_handed_on_and_needs_keep_alive() {
        let h2 = ConnectionSettings {
            http2: true,
            streams: 10,
            coalesce: None,
        };
        let e = ab(|o| o.connection = h2).run_options(vec![]).unwrap_err();
        assert!(matches!(e, AbError::Http2WithoutKeepAlive), "{e}");
        assert!(e.to_string().contains("--http2") && e.to_string().contains("-k"));
        let o = ab(|o| {
            o.connection = h2;
            o.keep_alive = true;
        })
        .run_options(vec![])
        .unwrap();
        assert_eq!(o.request.connection, h2);
    }

    #[test]
    fn ab_t_0_is_refused_with_abs_flag_names() {
        let e = ab(|o| o.timelimit = Some(Duration::ZERO))
            .run_options(vec![])
            .unwrap_err();
        assert_eq!(e.to_string(), "-t must be positive");
        let e = ab(|o| o.timeout = Duration::ZERO)
            .run_options(vec![])
            .unwrap_err();
        assert_eq!(e.to_string(), "-s must be positive");
        let e = ab(|o| o.concurrency = 0).run_options(vec![]).unwrap_err();
        assert_eq!(e.to_string(), "-c must be at least 1");
    }
}
