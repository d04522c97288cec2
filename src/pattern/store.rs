//! A group's patterns, stored compactly. A patterns file of a million lines is mostly
//! the same text around a short varying part (`/d/select?...&query=` + a term, or
//! `/items/` + a number + `/reviews?...`), so a path-only pattern is kept as a shared
//! start and a shared end (each interned once) around its own middle, which goes into
//! one string with every other middle — not as a `String` of its own. Where to cut is
//! found by comparing a path with the one before it ([`split`]). Patterns with more
//! than a path (a method, body, host, headers...) are kept whole beside them.
//!
//! About 16 bytes a pattern plus its middle, where a `Pattern` per line took over 200.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::Pattern;

/// Marks an item as a whole [`Pattern`] rather than a shared start and a tail.
const FULL: u32 = u32::MAX;

/// A pattern as the store hands it out, without copying.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    /// A pattern that is only a path, `start` + `middle` + `end`; the start and end
    /// are shared with other patterns.
    Path {
        start: &'a str,
        middle: &'a str,
        end: &'a str,
    },
    /// A pattern with fields beyond its path.
    Full(&'a Pattern),
}

impl Entry<'_> {
    /// The pattern as the parser read it.
    pub fn to_pattern(&self) -> Pattern {
        match self {
            Entry::Path { start, middle, end } => Pattern {
                path: Some(format!("{start}{middle}{end}")),
                ..Pattern::default()
            },
            Entry::Full(p) => (*p).clone(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Item {
    /// Index into `pieces`, or [`FULL`].
    start: u32,
    /// Index into `pieces`.
    end: u32,
    /// End of this item's middle in `middles` (a full item's is its predecessor's).
    middle_end: u64,
}

/// A group's patterns, in file order. See the module documentation.
#[derive(Clone, Default)]
pub struct Patterns {
    /// Shared starts and ends.
    pieces: Vec<Box<str>>,
    /// Hash of a piece → its index, while patterns are added; collisions are checked
    /// against `pieces` (and simply not shared).
    index: HashMap<u64, u32>,
    middles: String,
    items: Vec<Item>,
    /// The path added last, while patterns are added.
    last: String,
    /// Whole patterns, by their item's index (ascending).
    full: Vec<(usize, Pattern)>,
}

/// Bytes that end a shared start or begin a shared end: a cut falls beside one, so
/// that the pieces repeat from line to line (`...&query=` + `term10`, not `...term1` + `0`).
fn is_delimiter(b: u8) -> bool {
    matches!(b, b'/' | b'?' | b'&' | b'=' | b';' | b',')
}

/// Where to cut `path` into a shared start, its own middle and a shared end, as byte
/// offsets `(a, b)`: `path[..a]`, `path[a..b]`, `path[b..]`. The start is what it
/// shares with `previous` up to the last delimiter; the end is what they share at the
/// end, from a delimiter on. Without a previous path: after the last `=` of the query
/// (the term of drnbench's `...&query=<term>`), else after the last `/`. Shared by the
/// plan, which cuts encoded paths the same way; a `%XX` escape is never cut.
pub fn split(previous: Option<&str>, path: &str) -> (usize, usize) {
    let b = path.as_bytes();
    let Some(prev) = previous.map(str::as_bytes) else {
        return (split_point(path), b.len());
    };
    let common = b.iter().zip(prev).take_while(|(x, y)| x == y).count();
    let a = b[..common]
        .iter()
        .rposition(|&c| is_delimiter(c))
        .map_or(0, |i| i + 1);
    let room = (b.len() - a).min(prev.len().saturating_sub(a));
    let same_end = b[a..]
        .iter()
        .rev()
        .zip(prev.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let from = b.len() - same_end;
    let end = b[from..]
        .iter()
        .position(|&c| is_delimiter(c))
        .map_or(b.len(), |i| from + i);
    (a, end)
}

/// The cut of a path with nothing to compare: after the last `=` of the query, else
/// after the last `/`.
fn split_point(path: &str) -> usize {
    let b = path.as_bytes();
    let query = b.iter().position(|&c| c == b'?');
    if let Some(q) = query {
        if let Some(eq) = b[q..].iter().rposition(|&c| c == b'=') {
            return q + eq + 1;
        }
    }
    let scope = &b[..query.unwrap_or(b.len())];
    scope.iter().rposition(|&c| c == b'/').map_or(0, |s| s + 1)
}

impl Patterns {
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Adds a pattern: a path-only one compactly, any other whole.
    pub fn push(&mut self, p: Pattern) {
        let path_only = p.method.is_none()
            && p.body.is_none()
            && p.host.is_none()
            && p.port.is_none()
            && p.timeout.is_none()
            && p.headers.is_empty()
            && p.name.is_none();
        match p.path {
            Some(path) if path_only => self.push_path(&path),
            _ => {
                self.full.push((self.items.len(), p));
                self.items.push(Item {
                    start: FULL,
                    end: FULL,
                    middle_end: self.middles.len() as u64,
                });
            }
        }
    }

    /// Adds a pattern that is only a path.
    pub fn push_path(&mut self, path: &str) {
        let previous = (!self.items.is_empty()).then_some(self.last.as_str());
        let (a, b) = split(previous, path);
        let start = self.intern(&path[..a]);
        let end = self.intern(&path[b..]);
        self.middles.push_str(&path[a..b]);
        self.items.push(Item {
            start,
            end,
            middle_end: self.middles.len() as u64,
        });
        self.last.clear();
        self.last.push_str(path);
    }

    fn intern(&mut self, piece: &str) -> u32 {
        let start = piece;
        let mut h = DefaultHasher::new();
        start.hash(&mut h);
        let key = h.finish();
        if let Some(&id) = self.index.get(&key) {
            if &*self.pieces[id as usize] == start {
                return id;
            }
        }
        let id = self.pieces.len() as u32;
        self.pieces.push(start.into());
        self.index.entry(key).or_insert(id);
        id
    }

    /// Frees what only adding needed and the slack of the growing buffers.
    pub fn shrink(&mut self) {
        self.index = HashMap::new();
        self.last = String::new();
        self.middles.shrink_to_fit();
        self.items.shrink_to_fit();
        self.pieces.shrink_to_fit();
    }

    /// The `i`th pattern. Panics when `i >= len()`, as indexing does.
    pub fn entry(&self, i: usize) -> Entry<'_> {
        let item = self.items[i];
        if item.start == FULL {
            let at = self
                .full
                .binary_search_by_key(&i, |(k, _)| *k)
                .expect("a full item has its pattern");
            return Entry::Full(&self.full[at].1);
        }
        let begin = if i == 0 {
            0
        } else {
            self.items[i - 1].middle_end
        } as usize;
        Entry::Path {
            start: &self.pieces[item.start as usize],
            middle: &self.middles[begin..item.middle_end as usize],
            end: &self.pieces[item.end as usize],
        }
    }

    /// The `i`th pattern, copied out (for tests and messages).
    pub fn get(&self, i: usize) -> Pattern {
        self.entry(i).to_pattern()
    }

    pub fn iter(&self) -> impl Iterator<Item = Entry<'_>> + '_ {
        (0..self.len()).map(|i| self.entry(i))
    }

    pub fn to_vec(&self) -> Vec<Pattern> {
        self.iter().map(|e| e.to_pattern()).collect()
    }
}

impl From<Vec<Pattern>> for Patterns {
    fn from(v: Vec<Pattern>) -> Patterns {
        let mut out = Patterns::default();
        for p in v {
            out.push(p);
        }
        out.shrink();
        out
    }
}

impl PartialEq for Patterns {
    fn eq(&self, other: &Patterns) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a.to_pattern() == b.to_pattern())
    }
}

impl std::fmt::Debug for Patterns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut<'a>(previous: Option<&str>, p: &'a str) -> (&'a str, &'a str, &'a str) {
        let (a, b) = split(previous, p);
        (&p[..a], &p[a..b], &p[b..])
    }

    #[test]
    fn a_path_is_cut_where_it_differs_from_the_one_before() {
        let q = "/d/select?table=P&query=";
        assert_eq!(
            cut(
                Some("/d/select?table=P&query=term1"),
                "/d/select?table=P&query=term10"
            ),
            (q, "term10", "")
        );
        assert_eq!(
            cut(Some("/items/11/reviews?page=1"), "/items/12/reviews?page=1"),
            ("/items/", "12", "/reviews?page=1")
        );
        // Same text at both ends, but not at a delimiter: the middle keeps it.
        assert_eq!(cut(Some("/t/ab1x"), "/t/cd2x"), ("/t/", "cd2x", ""));
        assert_eq!(cut(Some("/a"), "/a"), ("/", "a", ""));
        assert_eq!(cut(Some("/a/b"), "/a"), ("/", "a", ""));
        assert_eq!(
            cut(Some("/x"), "/search?q=apple"),
            ("/", "search?q=apple", "")
        );
    }

    #[test]
    fn without_a_previous_path_the_cut_is_after_the_last_query_equals() {
        assert_eq!(
            cut(None, "/d/select?table=P&query=term1"),
            ("/d/select?table=P&query=", "term1", "")
        );
        assert_eq!(cut(None, "/items/123"), ("/items/", "123", ""));
        assert_eq!(cut(None, "/a/b?flag"), ("/a/", "b?flag", ""));
        assert_eq!(cut(None, "http://h:1/x"), ("http://h:1/", "x", ""));
        assert_eq!(cut(None, "/"), ("/", "", ""));
        assert_eq!(cut(None, "x"), ("", "x", ""));
    }

    #[test]
    fn paths_share_their_pieces_and_come_back_as_written() {
        let mut ps = Patterns::default();
        for i in 0..1000 {
            ps.push_path(&format!("/d/select?table=P&query=t{i}"));
        }
        for i in 0..1000 {
            ps.push_path(&format!("/items/{i}/reviews?sort=recent"));
        }
        ps.push(Pattern {
            path: Some("/full".into()),
            method: Some("POST".into()),
            ..Pattern::default()
        });
        ps.push_path("/other/x");
        ps.shrink();
        assert_eq!(ps.len(), 2002);
        assert!(ps.pieces.len() <= 6, "{:?}", ps.pieces);
        assert_eq!(
            ps.get(7).path.as_deref(),
            Some("/d/select?table=P&query=t7")
        );
        assert_eq!(
            ps.get(1500).path.as_deref(),
            Some("/items/500/reviews?sort=recent")
        );
        assert_eq!(ps.get(2000).method.as_deref(), Some("POST"));
        assert_eq!(ps.get(2001).path.as_deref(), Some("/other/x"));
        assert_eq!(Patterns::from(ps.to_vec()), ps);
    }
}
