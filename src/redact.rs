//! Secret header values kept out of everything hakaru writes or prints.
//!
//! `Authorization`, `Cookie` and `Proxy-Authorization` are secret by default, and
//! `--secret-header NAME` marks more. Their values still go on the wire; what the result
//! files, the reports and the terminal show is `Name: <redacted>`. The one place a
//! secret could leak into a result is the command line as typed, so that is what is
//! rewritten, once, when the run is specified.
//!
//! Query parameters that carry credentials (`?token=…`, `?api_key=…`: the names in
//! [`SECRET_PARAMS`], and `--secret-param NAME`) are kept out the same way: sent as
//! given, recorded as `token=<redacted>` in the command line, the patterns source and
//! every request URL a result names. `key` is not among the defaults: CouchDB's view
//! queries (`?key="a"`) say what was asked, not who asked.

/// Header names whose values are never written or printed.
pub const SECRET_HEADERS: [&str; 3] = ["Authorization", "Cookie", "Proxy-Authorization"];

/// Query parameter names whose values are never written or printed (case-insensitive).
pub const SECRET_PARAMS: [&str; 9] = [
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "api_key",
    "apikey",
    "password",
    "secret",
    "client_secret",
];

/// What a secret value is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Which header values are secret: the default three plus `--secret-header` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    extra: Vec<String>,
    /// `--secret-param` names, beside [`SECRET_PARAMS`].
    params: Vec<String>,
}

impl Redactor {
    /// The default secret headers and these more (`--secret-header`, as typed).
    pub fn new(extra: &[String]) -> Self {
        Redactor {
            extra: extra
                .iter()
                .map(|n| n.trim().trim_end_matches(':').trim().to_string())
                .filter(|n| !n.is_empty())
                .collect(),
            params: Vec::new(),
        }
    }

    /// These query parameter names secret too (`--secret-param`, as typed).
    pub fn with_params(mut self, params: &[String]) -> Self {
        self.params = params
            .iter()
            .map(|n| n.trim().trim_end_matches('=').to_string())
            .filter(|n| !n.is_empty())
            .collect();
        self
    }

    /// Whether a query parameter of this name has its value redacted.
    pub fn is_secret_param(&self, name: &str) -> bool {
        SECRET_PARAMS.iter().any(|s| s.eq_ignore_ascii_case(name))
            || self.params.iter().any(|s| s.eq_ignore_ascii_case(name))
    }

    /// A URL (or any text with a query string) as it may be shown: the values of
    /// secret query parameters replaced. Text without `?` comes back as it is.
    pub fn query(&self, url: &str) -> String {
        let Some((head, rest)) = url.split_once('?') else {
            return url.to_string();
        };
        let (query, fragment) = match rest.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (rest, None),
        };
        let mut out = String::with_capacity(url.len());
        out.push_str(head);
        out.push('?');
        for (i, pair) in query.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            match pair.split_once('=') {
                Some((name, _)) if self.is_secret_param(name) => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(REDACTED);
                }
                _ => out.push_str(pair),
            }
        }
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(f);
        }
        out
    }

    /// Whether a header of this name has its value redacted (names are case-insensitive).
    pub fn is_secret(&self, name: &str) -> bool {
        let name = name.trim();
        SECRET_HEADERS.iter().any(|s| s.eq_ignore_ascii_case(name))
            || self.extra.iter().any(|s| s.eq_ignore_ascii_case(name))
    }

    /// A "Name: value" line as it may be shown: the value replaced when the name is secret.
    pub fn header_line(&self, line: &str) -> String {
        match line.split_once(':') {
            Some((name, _)) if self.is_secret(name) => format!("{}: {REDACTED}", name.trim()),
            _ => line.to_string(),
        }
    }

    /// The command line as it may be recorded: every `-H`/`--header` value naming a
    /// secret header, and `ab`'s `-A` (credentials) and `-C` (cookie) values, redacted.
    pub fn command_line(&self, args: &[String]) -> Vec<String> {
        let ab = args.get(1).is_some_and(|a| a == "ab");
        let mut out = Vec::with_capacity(args.len());
        let mut next_is_secret = false;
        let mut next_is_shell = false;
        for arg in args {
            if std::mem::take(&mut next_is_secret) {
                out.push(REDACTED.to_string());
                continue;
            }
            // `--before-step CMD`: a shell command, with its own known secrets.
            if std::mem::take(&mut next_is_shell) {
                out.push(self.shell_command(arg));
                continue;
            }
            if arg == "--before-round" || arg == "--before-step" {
                next_is_shell = true;
                out.push(arg.clone());
                continue;
            }
            if let Some((flag, command)) = arg
                .split_once('=')
                .filter(|(f, _)| *f == "--before-round" || *f == "--before-step")
            {
                out.push(format!("{flag}={}", self.shell_command(command)));
                continue;
            }
            if ab && (arg == "-A" || arg == "-C") {
                next_is_secret = true;
                out.push(arg.clone());
                continue;
            }
            if ab && arg.len() > 2 && (arg.starts_with("-A") || arg.starts_with("-C")) {
                out.push(format!("{}{REDACTED}", &arg[..2]));
                continue;
            }
            out.push(url_password(&self.query(&self.header_arg(arg))));
        }
        out
    }

    /// A shell command (`--before-step`, a suite's `before` or event) as it may be
    /// recorded: the secrets it carries in a known form redacted — a URL's password
    /// (`redis://user:pass@`), redis-cli's `-a PASSWORD` and `--pass PASSWORD`, and
    /// the value of a secret header (`-H 'Authorization: Bearer …'`, to its closing
    /// quote). A password in any other form is not recognised: the guide says so.
    pub fn shell_command(&self, command: &str) -> String {
        let text = self.shell_headers(command);
        let mut out = String::with_capacity(text.len());
        let mut secret_next = false;
        // Inside a redis-cli command: `-a` there is its password (grep's is not).
        let mut cli = false;
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let space = rest.len() - rest.trim_start().len();
            if rest[..space].contains('\n') {
                cli = false;
            }
            out.push_str(&rest[..space]);
            rest = &rest[space..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            let bare = word.trim_matches(['\'', '"']);
            cli |= bare.ends_with("redis-cli") || bare.ends_with("valkey-cli");
            if std::mem::take(&mut secret_next) && !bare.is_empty() {
                let quote = if word.starts_with(['\'', '"']) {
                    &word[..1]
                } else {
                    ""
                };
                out.push_str(&format!("{quote}{REDACTED}{quote}"));
                continue;
            }
            match bare.split_once('=') {
                Some((flag @ ("--pass" | "--password"), _)) => {
                    let lead = &word[..word.len() - word.trim_start_matches(['\'', '"']).len()];
                    out.push_str(&format!("{lead}{flag}={REDACTED}{lead}"));
                }
                // redis-cli's password attached to its flag: `-aPW`, `-a'PW'`.
                _ if cli && word.len() > 2 && word.starts_with("-a") => {
                    let quote = word[2..].chars().next().filter(|c| matches!(c, '\'' | '"'));
                    let q = quote.map(String::from).unwrap_or_default();
                    out.push_str(&format!("-a{q}{REDACTED}{q}"));
                }
                _ => {
                    secret_next = cli && matches!(bare, "-a" | "--pass" | "--password");
                    out.push_str(&self.quoted_query(&url_password(word)));
                }
            }
            if word.contains([';', '|', '&']) {
                cli = false;
            }
        }
        hide_known(&out)
    }

    /// A shell word with any secret query parameter's value replaced, its quotes
    /// kept (`'http://h/?token=abc'`).
    fn quoted_query(&self, word: &str) -> String {
        let inner = word.trim_matches(['\'', '"']);
        if !inner.contains('?') {
            return word.to_string();
        }
        let lead = &word[..word.len() - word.trim_start_matches(['\'', '"']).len()];
        let trail = &word[word.trim_end_matches(['\'', '"']).len()..];
        format!("{lead}{}{trail}", self.query(inner))
    }

    /// `command` with the value of every secret header in it (`Name: value`)
    /// replaced, to the quote that closes it or the line's end.
    fn shell_headers(&self, command: &str) -> String {
        let names: Vec<&str> = (SECRET_HEADERS.iter().copied())
            .chain(self.extra.iter().map(String::as_str))
            .collect();
        let lower = command.to_ascii_lowercase();
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for name in names {
            let pattern = format!("{}:", name.to_ascii_lowercase());
            let mut from = 0;
            while let Some(i) = lower[from..].find(&pattern).map(|i| from + i) {
                let start = i + pattern.len();
                from = start;
                // A longer name ending in this one (`X-Authorization:`) is its own.
                let before = command[..i].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') {
                    continue;
                }
                let closing = match before {
                    Some(q @ ('\'' | '"')) => command[start..].find(q),
                    _ => command[start..].find('\n'),
                };
                let end = closing.map_or(command.len(), |j| start + j);
                if end > start {
                    cuts.push((start, end));
                }
            }
        }
        cuts.sort_unstable();
        let mut out = String::with_capacity(command.len());
        let mut at = 0;
        for (start, end) in cuts {
            if start < at {
                continue;
            }
            out.push_str(&command[at..start]);
            out.push(' ');
            out.push_str(REDACTED);
            at = end;
        }
        out.push_str(&command[at..]);
        out
    }

    /// One argument that may carry a header: "Name: v", "-HName: v", "--header=Name: v".
    fn header_arg(&self, arg: &str) -> String {
        let prefix = ["--header=", "-H"]
            .into_iter()
            .find(|p| arg.starts_with(p) && arg.contains(':'))
            .unwrap_or("");
        let rest = &arg[prefix.len()..];
        match rest.split_once(':') {
            // A URL ("http://…") has no header name before its colon.
            Some((name, _)) if self.is_secret(name) => {
                format!("{prefix}{}", self.header_line(rest))
            }
            _ => arg.to_string(),
        }
    }
}

/// `arg` with the password of a `scheme://user:password@host…` URL in it redacted
/// (`redis://:pw@host` and `redis://pw@host` too: Redis reads a lone userinfo as the
/// password); the user name stays, it says which account ran.
pub fn url_password(arg: &str) -> String {
    let Some(start) = arg.find("://").map(|i| i + 3) else {
        return arg.to_owned();
    };
    let end = arg[start..]
        .find(['/', '?', '#'])
        .map_or(arg.len(), |i| start + i);
    let Some(at) = arg[start..end].rfind('@').map(|i| start + i) else {
        return arg.to_owned();
    };
    let keep = match arg[start..at].find(':') {
        Some(c) => start + c + 1,
        None if lone_userinfo_is_user(&arg[..start - 3]) => return arg.to_owned(),
        None => start,
    };
    format!("{}{REDACTED}{}", &arg[..keep], &arg[at..])
}

/// Whether a URL whose scheme ends `before` reads a lone userinfo (`user@host`) as
/// the user, as SQL clients do (`postgres://bench@db/bench`, the password in
/// `PGPASSWORD`), not as Redis does, as the password.
fn lone_userinfo_is_user(before: &str) -> bool {
    let scheme = before
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .next()
        .unwrap_or("");
    ["postgres", "postgresql", "mysql", "mariadb"]
        .iter()
        .any(|s| scheme.eq_ignore_ascii_case(s))
}

/// Secret values this process was given (a URL's password, a secret header's
/// value, `PGPASSWORD`…), hidden in text it records from elsewhere that may echo
/// them: a before-command's stderr, a stop reason.
static KNOWN: std::sync::RwLock<Vec<String>> = std::sync::RwLock::new(Vec::new());

/// Shorter values are not hidden: a two-letter password would cut every word it
/// is part of.
const KNOWN_MIN: usize = 4;

/// Remembers `value` as a secret for [`hide_known`].
pub fn know(value: &str) {
    if value.len() < KNOWN_MIN {
        return;
    }
    let mut known = KNOWN.write().unwrap_or_else(|p| p.into_inner());
    if !known.iter().any(|k| k == value) {
        known.push(value.to_string());
        // The longest first, so one that contains another is hidden whole.
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// Learns the secrets of a command line as typed: every URL's password (as typed
/// and percent-decoded), every secret header's value (the default names and
/// `--secret-header`s), and the password environment variables SQL and Redis
/// clients read.
pub fn know_command_line(args: &[String]) {
    let extra: Vec<String> = args
        .windows(2)
        .filter(|w| w[0] == "--secret-header")
        .map(|w| w[1].clone())
        .chain(
            args.iter()
                .filter_map(|a| a.strip_prefix("--secret-header=").map(String::from)),
        )
        .collect();
    let redactor = Redactor::new(&extra);
    for arg in args {
        if let Some(pw) = url_password_of(arg) {
            know(pw);
            if let Ok(decoded) = percent_encoding::percent_decode_str(pw).decode_utf8() {
                know(&decoded);
            }
        }
        let header = ["--header=", "-H"]
            .iter()
            .find_map(|p| arg.strip_prefix(p))
            .unwrap_or(arg);
        if let Some((name, value)) = header.split_once(':') {
            if !value.starts_with("//") && redactor.is_secret(name) {
                know(value.trim());
                // `Bearer TOKEN`, `Basic CREDENTIALS`: the token alone too.
                if let Some((_, token)) = value.trim().split_once(' ') {
                    know(token.trim());
                }
            }
        }
    }
    for var in ["PGPASSWORD", "MYSQL_PWD", "REDISCLI_AUTH"] {
        if let Ok(v) = std::env::var(var) {
            know(&v);
        }
    }
}

/// `text` with every value [`know`] was told replaced by [`REDACTED`].
pub fn hide_known(text: &str) -> String {
    let known = KNOWN.read().unwrap_or_else(|p| p.into_inner());
    let mut out = text.to_string();
    for k in known.iter() {
        if out.contains(k.as_str()) {
            out = out.replace(k.as_str(), REDACTED);
        }
    }
    out
}

/// The password of a `scheme://user:password@host…` URL in `arg` (a lone userinfo
/// is Redis's password), as [`url_password`] finds it.
fn url_password_of(arg: &str) -> Option<&str> {
    let start = arg.find("://")? + 3;
    let end = arg[start..]
        .find(['/', '?', '#'])
        .map_or(arg.len(), |i| start + i);
    let at = arg[start..end].rfind('@').map(|i| start + i)?;
    let from = match arg[start..at].find(':') {
        Some(c) => start + c + 1,
        None if lone_userinfo_is_user(&arg[..start - 3]) => return None,
        None => start,
    };
    Some(&arg[from..at]).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36 item 12: a password hakaru knows stays out of a before-command's
    /// recorded stderr (it echoed `redis-cli -a` and the URL's password).
    #[test]
    fn known_secrets_are_hidden_in_text_from_elsewhere() {
        let args: Vec<String> = [
            "run",
            "redis://:s3cr%40t-pw@127.0.0.1:6379",
            "-H",
            "X-Api: tk-unique-55",
            "--secret-header",
            "X-Api",
            "-H",
            "Authorization: Bearer zq-unique-77",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        know_command_line(&args);
        let text = "AUTH s3cr@t-pw failed; sent s3cr%40t-pw, tk-unique-55 and Bearer zq-unique-77";
        assert_eq!(
            hide_known(text),
            "AUTH <redacted> failed; sent <redacted>, <redacted> and <redacted>"
        );
        know("pw");
        assert_eq!(hide_known("pwd"), "pwd", "too short to hide");
    }

    /// Issue 36 item 12: shell-command redaction covers secret query parameters and
    /// redis-cli's attached `-a'PW'`.
    #[test]
    fn shell_commands_hide_query_tokens_and_attached_passwords() {
        let r = Redactor::default();
        assert_eq!(
            r.shell_command("curl -s 'http://h/flush?token=abc&x=1' && redis-cli -a'PW' flushall"),
            "curl -s 'http://h/flush?token=<redacted>&x=1' && redis-cli -a'<redacted>' flushall"
        );
        assert_eq!(
            r.shell_command("redis-cli -apassword ping; curl http://h/?api_key=k"),
            "redis-cli -a<redacted> ping; curl http://h/?api_key=<redacted>"
        );
    }

    fn line(args: &[&str], extra: &[&str]) -> Vec<String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        Redactor::new(&extra).command_line(&args)
    }

    #[test]
    fn secrets_in_shell_commands_are_redacted_in_their_known_forms() {
        let r = Redactor::new(&["X-Api-Key".to_string()]);
        for (given, shown) in [
            (
                "redis-cli -u redis://app:s3cret@db:6379 flushall",
                "redis-cli -u redis://app:<redacted>@db:6379 flushall",
            ),
            (
                "redis-cli -h db -a s3cret FLUSHALL",
                "redis-cli -h db -a <redacted> FLUSHALL",
            ),
            (
                "redis-cli --pass 's3cret' flushall",
                "redis-cli --pass '<redacted>' flushall",
            ),
            (
                "redis-cli --pass=s3cret flushall",
                "redis-cli --pass=<redacted> flushall",
            ),
            (
                "curl -H 'Authorization: Bearer abc def' -X POST http://h/reset",
                "curl -H 'Authorization: <redacted>' -X POST http://h/reset",
            ),
            (
                "curl -H \"x-api-key: k1\" http://h/",
                "curl -H \"x-api-key: <redacted>\" http://h/",
            ),
            ("echo hello; sleep 1", "echo hello; sleep 1"),
            (
                "grep -a pattern file; redis-cli -a pw ping",
                "grep -a pattern file; redis-cli -a <redacted> ping",
            ),
        ] {
            assert_eq!(r.shell_command(given), shown, "{given}");
        }
    }

    #[test]
    fn before_commands_in_the_command_line_are_redacted_as_shell_commands() {
        let got = line(
            &[
                "hakaru",
                "run",
                "--before-step",
                "redis-cli -a pw flushall",
                "--before-round=redis-cli --pass pw x",
                "u",
            ],
            &[],
        );
        assert_eq!(
            got,
            [
                "hakaru",
                "run",
                "--before-step",
                "redis-cli -a <redacted> flushall",
                "--before-round=redis-cli --pass <redacted> x",
                "u"
            ]
        );
    }

    #[test]
    fn url_passwords_are_redacted_in_the_command_line() {
        let got = line(
            &[
                "hakaru",
                "run",
                "redis://app:s3cret@h:6379/1",
                "redis://pw@h",
                "http://h/@x",
            ],
            &[],
        );
        assert_eq!(got[2], "redis://app:<redacted>@h:6379/1");
        assert_eq!(got[3], "redis://<redacted>@h");
        assert_eq!(got[4], "http://h/@x");
    }

    /// The bug: `PGPASSWORD=… hakaru run … postgres://bench@db/bench` recorded
    /// `postgres://<redacted>@db/bench` (a lone userinfo read as Redis reads it, the
    /// password) and learnt the user name as a secret, to hide in every text.
    #[test]
    fn a_sql_url_s_lone_userinfo_is_its_user_and_stays() {
        for url in [
            "postgres://bench@db:5432/bench",
            "postgresql://bench@db/bench",
            "mysql://bench@db:3306/bench",
            "MariaDB://bench@db/bench",
        ] {
            assert_eq!(url_password(url), url);
            assert_eq!(url_password_of(url), None, "{url}");
        }
        assert_eq!(
            url_password("postgres://bench:pw@db/bench"),
            "postgres://bench:<redacted>@db/bench"
        );
        assert_eq!(url_password_of("mysql://bench:pw@db/b"), Some("pw"));
        assert_eq!(url_password("rediss://pw@h"), "rediss://<redacted>@h");
        assert_eq!(url_password_of("redis://pw@h"), Some("pw"));
    }

    #[test]
    fn default_secret_headers_in_every_form() {
        let got = line(
            &[
                "hakaru",
                "run",
                "-H",
                "Authorization: Bearer s3cret",
                "-Hcookie: a=1",
                "--header=Proxy-Authorization: Basic eA==",
                "-H",
                "Accept: text/plain",
                "http://127.0.0.1:1/",
            ],
            &[],
        );
        assert_eq!(
            got,
            vec![
                "hakaru",
                "run",
                "-H",
                "Authorization: <redacted>",
                "-Hcookie: <redacted>",
                "--header=Proxy-Authorization: <redacted>",
                "-H",
                "Accept: text/plain",
                "http://127.0.0.1:1/",
            ]
        );
        assert!(!got.concat().contains("s3cret"));
    }

    #[test]
    fn secret_header_flag_marks_more() {
        let got = line(
            &["hakaru", "run", "-H", "X-Api-Key: k", "-H", "X-Other: o"],
            &["x-api-key"],
        );
        assert_eq!(got[3], "X-Api-Key: <redacted>");
        assert_eq!(got[5], "X-Other: o");
    }

    #[test]
    fn ab_credentials_and_cookies() {
        let got = line(
            &[
                "hakaru",
                "ab",
                "-A",
                "user:pw",
                "-Ca=b",
                "-C",
                "c=d",
                "http://h/",
            ],
            &[],
        );
        assert_eq!(
            got,
            vec![
                "hakaru",
                "ab",
                "-A",
                "<redacted>",
                "-C<redacted>",
                "-C",
                "<redacted>",
                "http://h/"
            ]
        );
        // Outside ab, -A and -C mean nothing secret.
        assert_eq!(line(&["hakaru", "run", "-C", "x"], &[])[3], "x");
    }

    #[test]
    fn secret_param_and_common_token_names_are_redacted_in_urls() {
        let r = Redactor::default().with_params(&["sessionid".into()]);
        assert_eq!(
            r.query("http://h/a?token=t0k&q=x&API_KEY=k&sessionid=s#top"),
            "http://h/a?token=<redacted>&q=x&API_KEY=<redacted>&sessionid=<redacted>#top"
        );
        // CouchDB's key= says what was asked: kept.
        assert_eq!(
            r.query("http://h/db/_all_docs?key=%22a%22"),
            "http://h/db/_all_docs?key=%22a%22"
        );
        assert_eq!(r.query("/no/query"), "/no/query");
        let got = line(&["hakaru", "run", "http://h/?access_token=s3cret"], &[]);
        assert_eq!(got[2], "http://h/?access_token=<redacted>");
    }
}
