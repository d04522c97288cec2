//! The commands file: what a key-value run sends, one command a line, in the text
//! patterns file's grammar (blank lines and `#` comments skipped, `name=NAME` before a
//! line labels its requests) with one more prefix, `weight=N`, for drnbench's
//! frequencies: each request draws a line by weight.
//!
//! ```text
//! # 1 write for 10 reads
//! weight=1  SET key:{key} {value}
//! weight=10 GET key:{key}
//! name=mget weight=2 MGET key:{key} key:{key} key:{key}
//! ```
//!
//! A command is its words as typed; `{key}` becomes a key drawn by
//! `--key-distribution` over `--keys` (each `{key}` draws anew), `{value}` a value of
//! `--value-size` bytes. Redis commands go out as RESP arrays, one word a bulk string,
//! so any command works but those that change what the connection answers
//! (`SUBSCRIBE`, `MONITOR`, `HELLO`…). memcached commands are its text protocol:
//! `get`/`gets` of one or more keys, `delete`, `incr`/`decr`, `touch`, and the
//! storage commands written `set KEY VALUE [FLAGS [EXPTIME]]` (hakaru writes the
//! byte count); `noreply` is refused, since a command without a reply cannot be
//! timed.
//!
//! `cas KEY VALUE [FLAGS [EXPTIME]]` is written like `set`; hakaru adds the byte
//! count and the CAS unique: the last one a `gets` reply of this run brought for
//! that key, each used once (see [`crate::kv::memcache::Tokens`]). A file with `cas`
//! must have a `gets` (or `gats`) line, where the tokens come from. A `cas` drawn for
//! a key with no token is not sent as a `cas` at all (a made-up token would be
//! answered `EXISTS`, a change nobody made): the no-op `mn` goes in its place and is
//! counted under its own status, apart from `STORED`, `EXISTS` and `NOT_FOUND`.

use std::fmt;

/// Which store's language a file is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Redis,
    Memcached,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Redis => "redis",
            Protocol::Memcached => "memcached",
        }
    }
}

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(Box<[u8]>),
    /// `{key}`: a key drawn for this request.
    Key,
    /// `{value}`: a value of the run's size.
    Value,
}

/// One word of a command: its pieces, joined when the request is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word(pub Vec<Part>);

impl Word {
    fn text(s: &str) -> Word {
        Word(vec![Part::Text(s.as_bytes().into())])
    }

    /// The word holds no placeholder.
    pub fn literal(&self) -> Option<&[u8]> {
        match self.0.as_slice() {
            [Part::Text(t)] => Some(t),
            [] => Some(b""),
            _ => None,
        }
    }
}

/// How a memcached command goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Its words joined by spaces (Redis: an array of its words).
    Line,
    /// memcached storage: `CMD KEY FLAGS EXPTIME BYTES\r\nVALUE\r\n`, from the file's
    /// `CMD KEY VALUE [FLAGS [EXPTIME]]`.
    Storage,
    /// memcached `cas`: as [`Shape::Storage`], with the key's last CAS unique after
    /// the byte count (or `mn` when there is none).
    Cas,
}

/// One line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its label: `name=`, else its first word (upper case for Redis).
    pub name: String,
    pub weight: u32,
    pub words: Vec<Word>,
    pub shape: Shape,
    /// Its line in the file (0 for a command made from `--ratio`).
    pub line: usize,
}

impl Command {
    /// The command reads (a hit or a miss is what it learns).
    pub fn reads(&self) -> bool {
        let first = self.words[0].literal().unwrap_or_default();
        READS
            .iter()
            .any(|r| first.eq_ignore_ascii_case(r.as_bytes()))
    }
}

/// Commands whose answer is a hit or a miss (a value, or a nil, an empty array,
/// `END`): their hit ratio is the summary's. Not `EXISTS`, whose `:0` is an integer
/// like its `:1` (both counted `250`).
const READS: [&str; 17] = [
    "get",
    "gets",
    "gat",
    "gats",
    "mget",
    "getex",
    "getdel",
    "hget",
    "hgetall",
    "hmget",
    "hvals",
    "lrange",
    "lindex",
    "smembers",
    "zrange",
    "zrangebyscore",
    "srandmember",
];

/// A problem with a commands file, naming the file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandsError {
    pub source: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for CommandsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{}:{}: {}", self.source, self.line, self.message)
        }
    }
}

impl std::error::Error for CommandsError {}

/// Redis commands that change what the connection answers: one request, one reply
/// no longer holds after them.
const REDIS_REFUSED: [&str; 9] = [
    "SUBSCRIBE",
    "PSUBSCRIBE",
    "SSUBSCRIBE",
    "MONITOR",
    "HELLO",
    "QUIT",
    "RESET",
    "SELECT",
    "AUTH",
];

const MC_STORAGE: [&str; 5] = ["set", "add", "replace", "append", "prepend"];
const MC_LINE: [&str; 8] = [
    "get", "gets", "delete", "incr", "decr", "touch", "gat", "gats",
];

/// The longest name a label may have.
const MAX_NAME: usize = 64;

/// Read a whole commands file's text; `source` names it in errors.
pub fn parse(text: &str, source: &str, proto: Protocol) -> Result<Vec<Command>, CommandsError> {
    let mut out: Vec<Command> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let err = |message: String| CommandsError {
            source: source.into(),
            line: i + 1,
            message,
        };
        if let Some(c) = parse_line(raw, proto).map_err(err)? {
            out.push(Command { line: i + 1, ..c });
        }
    }
    if out.is_empty() {
        return Err(CommandsError {
            source: source.into(),
            line: 0,
            message: "no command in the file (one a line; # starts a comment)".into(),
        });
    }
    let token_source = out
        .iter()
        .any(|c| matches!(c.words[0].literal(), Some(b"gets") | Some(b"gats")));
    if let Some(cas) = out.iter().find(|c| c.shape == Shape::Cas) {
        if !token_source {
            return Err(CommandsError {
                source: source.into(),
                line: cas.line,
                message: "cas needs a gets line in the file: its CAS unique is the one a \
                          gets reply brought for the key"
                    .into(),
            });
        }
    }
    Ok(out)
}

/// One line: `None` for a blank line or a comment.
fn parse_line(raw: &str, proto: Protocol) -> Result<Option<Command>, String> {
    let line = raw.trim_matches(|c: char| c.is_ascii_whitespace());
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut words = line.split_ascii_whitespace().peekable();
    let (mut name, mut weight) = (None, None);
    while let Some(w) = words.peek() {
        if let Some(n) = w.strip_prefix("name=") {
            if name.replace(check_name(n)?).is_some() {
                return Err("name= given twice".into());
            }
        } else if let Some(n) = w.strip_prefix("weight=") {
            let v = n
                .parse::<u32>()
                .ok()
                .filter(|v| (1..=1_000_000).contains(v))
                .ok_or_else(|| format!("weight={n}: a weight is a whole number 1-1000000"))?;
            if weight.replace(v).is_some() {
                return Err("weight= given twice".into());
            }
        } else {
            break;
        }
        words.next();
    }
    let words: Vec<Word> = words.map(word).collect::<Result<_, _>>()?;
    let Some(first) = words.first() else {
        return Err("name= or weight= needs a command after it".into());
    };
    let Some(verb) = first.literal().and_then(|v| std::str::from_utf8(v).ok()) else {
        return Err("the command's first word cannot hold {key} or {value}".into());
    };
    let verb = verb.to_owned();
    let shape = match proto {
        Protocol::Redis => {
            let upper = verb.to_ascii_uppercase();
            if REDIS_REFUSED.contains(&upper.as_str()) {
                return Err(format!(
                    "{upper} changes what the connection answers (give AUTH and the \
                     database in the URL: redis://user:password@host:port/db)"
                ));
            }
            Shape::Line
        }
        Protocol::Memcached => memcached_shape(&verb, &words)?,
    };
    let name = name.unwrap_or_else(|| match proto {
        Protocol::Redis => verb.to_ascii_uppercase(),
        Protocol::Memcached => verb.clone(),
    });
    Ok(Some(Command {
        name,
        weight: weight.unwrap_or(1),
        words,
        shape,
        line: 0,
    }))
}

/// What a memcached line may be.
fn memcached_shape(verb: &str, words: &[Word]) -> Result<Shape, String> {
    if words
        .iter()
        .any(|w| w.literal() == Some(b"noreply".as_slice()))
    {
        return Err("noreply is refused: a command without a reply cannot be timed".into());
    }
    if MC_STORAGE.contains(&verb) || verb == "cas" {
        if !(3..=5).contains(&words.len()) {
            return Err(format!(
                "{verb} is written `{verb} KEY VALUE [FLAGS [EXPTIME]]` (hakaru writes the byte count)"
            ));
        }
        for (w, what) in words.iter().skip(3).zip(["FLAGS", "EXPTIME"]) {
            let ok = w
                .literal()
                .and_then(|t| std::str::from_utf8(t).ok())
                .is_some_and(|t| t.parse::<u64>().is_ok());
            if !ok {
                return Err(format!("{verb}'s {what} is a number"));
            }
        }
        return Ok(if verb == "cas" {
            Shape::Cas
        } else {
            Shape::Storage
        });
    }
    if MC_LINE.contains(&verb) {
        if words.len() < 2 {
            return Err(format!("{verb} needs a key"));
        }
        if words.iter().any(|w| w.0.contains(&Part::Value)) {
            return Err(format!("{{value}} has no place in {verb}"));
        }
        return Ok(Shape::Line);
    }
    Err(format!(
        "unknown memcached command {verb:?} (one of {}, cas, {})",
        MC_STORAGE.join(", "),
        MC_LINE.join(", ")
    ))
}

fn check_name(n: &str) -> Result<String, String> {
    if n.is_empty() || n.len() > MAX_NAME {
        return Err(format!("name= needs 1 to {MAX_NAME} characters"));
    }
    Ok(n.to_owned())
}

/// One word: text with `{key}`/`{value}` placeholders.
fn word(w: &str) -> Result<Word, String> {
    let mut parts = Vec::new();
    let mut rest = w;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("{w}: a {{ without its }}"))?;
        if open > 0 {
            parts.push(Part::Text(rest.as_bytes()[..open].into()));
        }
        parts.push(match &rest[open + 1..close] {
            "key" => Part::Key,
            "value" => Part::Value,
            other => {
                return Err(format!(
                "{w}: unknown placeholder {{{other}}} (the placeholders are {{key}} and {{value}})"
            ))
            }
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.as_bytes().into()));
    }
    Ok(Word(parts))
}

/// `--ratio SET:GET` without a file: a write and a read of `key:{key}`, weighted.
pub fn ratio(sets: u32, gets: u32, proto: Protocol) -> Vec<Command> {
    let (set, get) = match proto {
        Protocol::Redis => ("SET", "GET"),
        Protocol::Memcached => ("set", "get"),
    };
    let key = Word(vec![Part::Text(b"key:".as_slice().into()), Part::Key]);
    let value = Word(vec![Part::Value]);
    let shape = match proto {
        Protocol::Redis => Shape::Line,
        Protocol::Memcached => Shape::Storage,
    };
    let mut out = Vec::new();
    // The busier first: the engine gives the first labels their own timeline.
    let write = Command {
        name: set.into(),
        weight: sets,
        words: vec![Word::text(set), key.clone(), value],
        shape,
        line: 0,
    };
    let read = Command {
        name: get.into(),
        weight: gets,
        words: vec![Word::text(get), key],
        shape: Shape::Line,
        line: 0,
    };
    // A side of weight 0 is never drawn, but stays: `--preload` writes with the write.
    out.extend(if gets >= sets {
        [read, write]
    } else {
        [write, read]
    });
    out
}

/// `--ratio`'s text: `SETS:GETS`, whole numbers, not both 0.
pub fn parse_ratio(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--ratio {text:?}: expected SETS:GETS, e.g. 1:10 (memtier's form)");
    let (a, b) = text.split_once(':').ok_or_else(bad)?;
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 && b == 0 {
        return Err(format!("--ratio {text:?}: sets and gets cannot both be 0"));
    }
    if a > 1_000_000 || b > 1_000_000 {
        return Err(format!("--ratio {text:?}: each side at most 1000000"));
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_names_weights_and_placeholders() {
        let text = "# comment\n\nweight=3 SET key:{key} {value}\nname=multi MGET k:{key} k:{key}\n  get x  \n";
        let c = parse(text, "cmds.txt", Protocol::Redis).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].name.as_str(), c[0].weight, c[0].line), ("SET", 3, 3));
        assert_eq!(
            c[0].words[1],
            Word(vec![Part::Text(b"key:".as_slice().into()), Part::Key])
        );
        assert_eq!(c[0].words[2], Word(vec![Part::Value]));
        assert_eq!((c[1].name.as_str(), c[1].weight), ("multi", 1));
        assert_eq!(c[2].name, "GET");
        assert!(c[2].reads() && !c[0].reads());
    }

    #[test]
    fn errors_name_the_file_and_line() {
        for (text, proto, want) in [
            (
                "GET a\nGET {kye}\n",
                Protocol::Redis,
                "cmds:2: {kye}: unknown placeholder",
            ),
            ("weight=0 GET a", Protocol::Redis, "cmds:1: weight=0:"),
            ("SUBSCRIBE ch", Protocol::Redis, "cmds:1: SUBSCRIBE changes"),
            ("AUTH pw", Protocol::Redis, "cmds:1: AUTH changes"),
            ("# nothing\n", Protocol::Redis, "cmds: no command"),
            ("set k:{key}", Protocol::Memcached, "cmds:1: set is written"),
            (
                "set k {value} x",
                Protocol::Memcached,
                "cmds:1: set's FLAGS is a number",
            ),
            (
                "get k noreply",
                Protocol::Memcached,
                "cmds:1: noreply is refused",
            ),
            (
                "GET k",
                Protocol::Memcached,
                "cmds:1: unknown memcached command \"GET\"",
            ),
            (
                "{key} x",
                Protocol::Redis,
                "cmds:1: the command's first word",
            ),
            ("name=a", Protocol::Redis, "cmds:1: name= or weight= needs"),
            (
                "SET k:{key {value}",
                Protocol::Redis,
                "cmds:1: k:{key: a { without its }",
            ),
        ] {
            let e = parse(text, "cmds", proto).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn memcached_storage_and_ratio() {
        let c = parse(
            "set k:{key} {value} 5 60\nget a b c",
            "f",
            Protocol::Memcached,
        )
        .unwrap();
        assert_eq!((c[0].shape, c[1].shape), (Shape::Storage, Shape::Line));
        let r = ratio(1, 10, Protocol::Memcached);
        assert_eq!((r[0].name.as_str(), r[0].weight), ("get", 10));
        assert_eq!((r[1].name.as_str(), r[1].shape), ("set", Shape::Storage));
        assert_eq!(ratio(0, 1, Protocol::Redis)[1].weight, 0);
        assert_eq!(parse_ratio("1:10"), Ok((1, 10)));
        assert!(parse_ratio("0:0").is_err() && parse_ratio("a").is_err());
    }

    #[test]
    fn cas_is_written_like_set_and_needs_a_gets_line() {
        let c = parse(
            "gets k:{key}\nweight=2 cas k:{key} {value} 3 60\n",
            "f",
            Protocol::Memcached,
        )
        .unwrap();
        assert_eq!(
            (c[1].name.as_str(), c[1].shape, c[1].weight),
            ("cas", Shape::Cas, 2)
        );
        assert!(c[0].reads() && !c[1].reads());
        assert!(parse("gats 60 k\ncas k {value}", "f", Protocol::Memcached).is_ok());
        for (text, want) in [
            (
                "get k:{key}\n\ncas k:{key} {value}",
                "f:3: cas needs a gets line",
            ),
            ("gets k\ncas k", "f:2: cas is written `cas KEY VALUE"),
            ("gets k\ncas k {value} x", "f:2: cas's FLAGS is a number"),
            (
                "gets k\ncas k {value} 0 0 noreply",
                "f:2: noreply is refused",
            ),
        ] {
            let e = parse(text, "f", Protocol::Memcached)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        // Redis has no `cas` of its own: a word like any other, sent as typed.
        assert_eq!(
            parse("CAS a", "f", Protocol::Redis).unwrap()[0].shape,
            Shape::Line
        );
    }
}
