//! What the client sends: the startup message (or first an SSLRequest), a
//! statement's messages for each query mode (pgbench's `-M`), and COPY's data. Every
//! encoder appends to the caller's buffer, which the connection reuses, so a
//! statement costs no allocation once the buffer has grown to fit it.

use bytes::BytesMut;
use postgres_protocol::message::frontend;
use postgres_protocol::IsNull;

/// How a statement goes on the wire (pgbench's `-M`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryMode {
    /// One `Query` message with the values substituted into the text.
    Simple,
    /// Parse/Bind/Describe/Execute/Sync of the unnamed statement, values as `$n`.
    Extended,
    /// Parse of a named statement once per connection, then Bind/Describe/Execute/Sync.
    Prepared,
}

impl QueryMode {
    /// `simple`, `extended` or `prepared`, as pgbench's `-M` spells them.
    pub fn parse(s: &str) -> Result<QueryMode, String> {
        match s {
            "simple" => Ok(QueryMode::Simple),
            "extended" => Ok(QueryMode::Extended),
            "prepared" => Ok(QueryMode::Prepared),
            other => Err(format!(
                "query mode {other:?}: expected simple, extended or prepared"
            )),
        }
    }
}

/// A NUL inside text the protocol carries as a C string: the one way encoding fails.
fn nul(what: &str) -> String {
    format!("{what} contains a NUL byte, which PostgreSQL's protocol cannot carry")
}

/// The startup message: protocol 3.0, the user, the database, and
/// `application_name=hakaru` (so the server's views show who is connected).
pub fn startup(user: &str, database: &str, buf: &mut BytesMut) -> Result<(), String> {
    let params = [
        ("user", user),
        ("database", database),
        ("application_name", "hakaru"),
        ("client_encoding", "UTF8"),
    ];
    frontend::startup_message(params, buf).map_err(|_| nul("the user or database name"))
}

/// SSLRequest: the server answers one byte, `S` (go on in TLS) or `N`.
pub fn ssl_request(buf: &mut BytesMut) {
    frontend::ssl_request(buf);
}

/// Terminate: the polite end of a connection.
pub fn terminate(buf: &mut BytesMut) {
    frontend::terminate(buf);
}

/// One statement's messages. `params` are text values (`None` is NULL) for the
/// extended and prepared modes; `prepared` names the statement in prepared mode and
/// `parsed` says whether this connection has already sent its Parse.
pub fn statement(
    mode: QueryMode,
    sql: &str,
    params: &[Option<&[u8]>],
    prepared: Option<&str>,
    parsed: bool,
    buf: &mut BytesMut,
) -> Result<(), String> {
    if mode == QueryMode::Simple {
        return frontend::query(sql, buf).map_err(|_| nul("the statement"));
    }
    pipelined(mode, sql, params, prepared, parsed, buf)?;
    frontend::sync(buf);
    Ok(())
}

/// A statement's extended-query messages without their Sync: one of a pipeline's
/// (`\startpipeline`), whose one Sync ([`sync`]) ends it. The simple protocol has
/// no pipeline: `mode` is extended or prepared.
pub fn pipelined(
    mode: QueryMode,
    sql: &str,
    params: &[Option<&[u8]>],
    prepared: Option<&str>,
    parsed: bool,
    buf: &mut BytesMut,
) -> Result<(), String> {
    let name = match mode {
        QueryMode::Simple => return Err("the simple query protocol has no pipeline".into()),
        QueryMode::Extended => "",
        QueryMode::Prepared => prepared.unwrap_or(""),
    };
    if mode == QueryMode::Extended || !parsed {
        frontend::parse(name, sql, std::iter::empty(), buf).map_err(|_| nul("the statement"))?;
    }
    // Text format for every value (no format codes = all text) and every column.
    frontend::bind(
        "",
        name,
        std::iter::empty(),
        params.iter().copied(),
        |v, out| match v {
            Some(bytes) => {
                out.extend_from_slice(bytes);
                Ok(IsNull::No)
            }
            None => Ok(IsNull::Yes),
        },
        std::iter::empty(),
        buf,
    )
    .map_err(|_| {
        "a statement's parameters do not fit the protocol (over 32767 values, or one over 2 GiB)"
            .to_string()
    })?;
    frontend::describe(b'P', "", buf).map_err(|_| nul("the portal"))?;
    frontend::execute("", 0, buf).map_err(|_| nul("the portal"))?;
    Ok(())
}

/// Sync: the end of a pipeline; the server answers ReadyForQuery after the
/// statements' answers (or after the first error, the rest skipped).
pub fn sync(buf: &mut BytesMut) {
    frontend::sync(buf);
}

/// One CopyData message carrying `chunk` (COPY FROM STDIN's rows as text).
pub fn copy_data(chunk: &[u8], buf: &mut BytesMut) -> Result<(), String> {
    frontend::CopyData::new(chunk)
        .map_err(|_| "a COPY chunk over 1 GiB".to_string())?
        .write(buf);
    Ok(())
}

/// CopyDone: COPY FROM STDIN's end.
pub fn copy_done(buf: &mut BytesMut) {
    frontend::copy_done(buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message tags in `buf`, in order (the startup message has none).
    fn tags(buf: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = buf;
        while rest.len() >= 5 {
            let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
            out.push(rest[0]);
            rest = &rest[1 + len..];
        }
        assert!(rest.is_empty());
        out
    }

    #[test]
    fn each_query_mode_sends_pgbench_s_messages() {
        let mut b = BytesMut::new();
        statement(QueryMode::Simple, "SELECT 1", &[], None, false, &mut b).unwrap();
        assert_eq!(&b[..], b"Q\0\0\0\x0dSELECT 1\0");
        b.clear();
        let p: [Option<&[u8]>; 2] = [Some(b"42"), None];
        statement(QueryMode::Extended, "SELECT $1, $2", &p, None, true, &mut b).unwrap();
        assert_eq!(tags(&b), b"PBDES");
        b.clear();
        statement(
            QueryMode::Prepared,
            "SELECT $1, $2",
            &p,
            Some("P0_1"),
            false,
            &mut b,
        )
        .unwrap();
        assert_eq!(tags(&b), b"PBDES");
        assert!(b.windows(5).any(|w| w == b"P0_1\0"));
        b.clear();
        statement(
            QueryMode::Prepared,
            "SELECT $1, $2",
            &p,
            Some("P0_1"),
            true,
            &mut b,
        )
        .unwrap();
        assert_eq!(tags(&b), b"BDES", "a prepared statement is Parse'd once");
        // Bind: portal "", statement, 0 formats, 2 values: "42" then NULL (-1), 0 formats.
        let bind = &b[5..5 + u32::from_be_bytes(b[1..5].try_into().unwrap()) as usize - 4];
        assert_eq!(bind, b"\0P0_1\0\0\0\0\x02\0\0\0\x0242\xff\xff\xff\xff\0\0");
    }

    #[test]
    fn a_pipelined_statement_has_no_sync_of_its_own() {
        let mut b = BytesMut::new();
        let p: [Option<&[u8]>; 1] = [Some(b"1")];
        pipelined(QueryMode::Extended, "SELECT $1", &p, None, false, &mut b).unwrap();
        pipelined(
            QueryMode::Prepared,
            "SELECT $1",
            &p,
            Some("P0_2"),
            true,
            &mut b,
        )
        .unwrap();
        sync(&mut b);
        assert_eq!(tags(&b), b"PBDEBDES", "two statements, one Sync");
        let e = pipelined(QueryMode::Simple, "SELECT 1", &[], None, false, &mut b).unwrap_err();
        assert!(e.contains("no pipeline"), "{e}");
    }

    #[test]
    fn startup_names_user_and_database_and_a_nul_is_refused() {
        let mut b = BytesMut::new();
        startup("bench", "pgb", &mut b).unwrap();
        assert_eq!(&b[4..8], &[0, 3, 0, 0], "protocol 3.0");
        assert!(b
            .windows(12)
            .any(|w| w == b"user\0bench\0\0" || w == b"user\0bench\0d"));
        b.clear();
        let e = statement(QueryMode::Simple, "SELECT\0 1", &[], None, false, &mut b).unwrap_err();
        assert!(e.contains("NUL"), "{e}");
        assert_eq!(QueryMode::parse("prepared"), Ok(QueryMode::Prepared));
        assert!(QueryMode::parse("fast")
            .unwrap_err()
            .contains("simple, extended or prepared"));
    }
}
