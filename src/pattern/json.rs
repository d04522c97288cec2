//! A JSON tree that remembers where each value was written, for the drnbench forms
//! in [`super::drnbench`].
//!
//! serde_json checks the syntax (and gives line and column). Then this small walker
//! re-reads the now-valid text into `Node`s that keep each value's byte span, so shape
//! errors can name a line, objects keep file order, and a JSON body keeps its key
//! order, without the `preserve_order` feature changing serde_json for the crate.

/// Deeper nesting than any patterns file needs; bounds the walker's recursion.
const MAX_DEPTH: usize = 64;

/// One JSON value and its byte span in the text.
pub(super) struct Node {
    pub start: usize,
    pub end: usize,
    /// Where the key of the member holding this value starts (its own start when it
    /// is not an object's member), for errors about the key.
    pub key_at: usize,
    pub kind: Kind,
}

pub(super) enum Kind {
    Null,
    Bool,
    Number(f64),
    Str(String),
    Array(Vec<Node>),
    /// Members in file order; a repeated key is looked up by its last occurrence,
    /// as serde_json does.
    Object(Vec<(String, Node)>),
}

impl Node {
    pub fn members(&self) -> Option<&[(String, Node)]> {
        match &self.kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// A member of an object, `None` if absent or null.
pub(super) fn member<'a>(members: &'a [(String, Node)], key: &str) -> Option<&'a Node> {
    members
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .filter(|v| !matches!(v.kind, Kind::Null))
}

/// A shape error at a byte offset of the JSON text.
pub(super) struct ShapeErr {
    pub at: usize,
    pub message: String,
    /// The error is about one spot (a key), so its column is worth naming too.
    pub column: bool,
}

pub(super) fn shape(node: &Node, message: String) -> ShapeErr {
    ShapeErr {
        at: node.start,
        message,
        column: false,
    }
}

/// The first key of `members` not among `known`, as an error at the key with the
/// nearest known key suggested ("did you mean \"method\"?").
pub(super) fn unknown_key(
    members: &[(String, Node)],
    known: &[&str],
    label: &str,
) -> Result<(), ShapeErr> {
    let Some((key, value)) = members.iter().find(|(k, _)| !known.contains(&k.as_str())) else {
        return Ok(());
    };
    let nearest = known
        .iter()
        .map(|k| (edit_distance(key, k), *k))
        .min()
        .filter(|(d, k)| *d <= 2 && *d < k.len());
    let hint = match nearest {
        Some((_, k)) => format!("did you mean \"{k}\"?"),
        None => format!("known keys: {}", known.join(", ")),
    };
    Err(ShapeErr {
        at: value.key_at,
        message: format!("{label}: unknown key \"{key}\" ({hint})"),
        column: true,
    })
}

/// Levenshtein distance over characters; keys are short.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Reads JSON text that serde_json has already checked into its [`Node`] tree.
pub(super) fn read(text: &str) -> Result<Node, ShapeErr> {
    Walker { text, i: 0 }.value(0)
}

struct Walker<'a> {
    text: &'a str,
    i: usize,
}

impl Walker<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    fn fail(&self, what: &str) -> ShapeErr {
        // Only reachable if serde_json accepted something this walker does not.
        ShapeErr {
            at: self.i.min(self.text.len()),
            message: format!("unexpected JSON here ({what})"),
            column: false,
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes().get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        if self.bytes().get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, ShapeErr> {
        self.skip_ws();
        let start = self.i;
        if depth > MAX_DEPTH {
            return Err(ShapeErr {
                at: start,
                message: format!("values are nested more than {MAX_DEPTH} levels deep"),
                column: false,
            });
        }
        let kind = match self.bytes().get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.skip_ws();
                        let key_at = self.i;
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.fail("expected ':'"));
                        }
                        let mut value = self.value(depth + 1)?;
                        value.key_at = key_at;
                        members.push((key, value));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail("expected ',' or '}'"));
                        }
                    }
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail("expected ',' or ']'"));
                        }
                    }
                }
                Kind::Array(items)
            }
            Some(b'"') => Kind::Str(self.string()?),
            Some(b't') => self.literal("true", Kind::Bool)?,
            Some(b'f') => self.literal("false", Kind::Bool)?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => {
                while matches!(
                    self.bytes().get(self.i),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.i += 1;
                }
                let n = self.text[start..self.i]
                    .parse::<f64>()
                    .map_err(|_| self.fail("bad number"))?;
                Kind::Number(n)
            }
            _ => return Err(self.fail("expected a value")),
        };
        Ok(Node {
            start,
            end: self.i,
            key_at: start,
            kind,
        })
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Kind, ShapeErr> {
        if self.text[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(kind)
        } else {
            Err(self.fail("bad literal"))
        }
    }

    fn string(&mut self) -> Result<String, ShapeErr> {
        let start = self.i;
        if self.bytes().get(self.i) != Some(&b'"') {
            return Err(self.fail("expected a string"));
        }
        self.i += 1;
        loop {
            match self.bytes().get(self.i) {
                None => return Err(self.fail("unterminated string")),
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(_) => self.i += 1,
            }
        }
        self.text
            .get(start..self.i)
            .and_then(|raw| serde_json::from_str::<String>(raw).ok())
            .ok_or_else(|| self.fail("bad string"))
    }
}

/// JSON text without the whitespace between tokens, in the original key order.
pub(super) fn compact(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}
