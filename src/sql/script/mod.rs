//! pgbench's script language, read whole before any load: SQL commands ended by `;`
//! (a command may span lines; a `;` inside quotes, dollar quotes, identifiers or
//! comments does not end it, as psql's lexer reads them), `:name` variables in SQL,
//! and the meta-commands `\set`, `\sleep`, `\if`/`\elif`/`\else`/`\endif`, `\gset`,
//! `\aset`, `\startpipeline`/`\endpipeline`. `\shell` and `\setshell` are refused:
//! hakaru runs no shell command per transaction.
//!
//! `\if` chains become jumps here, with their nesting checked, so the interpreter
//! walks a flat list. Every error names the file, line and column.

pub mod eval;
pub mod expr;
pub mod rand;

use std::fmt;

use expr::Expr;

/// A piece of a SQL command's text: as written, or a `:variable`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Var(String),
}

/// Where `\gset`/`\aset` put a query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Gset {
    pub prefix: String,
    /// `\aset`: every row's values, no error on zero rows.
    pub all: bool,
}

/// One SQL command.
#[derive(Debug, Clone, PartialEq)]
pub struct Sql {
    pub parts: Vec<Part>,
    /// The command as written, whitespace collapsed: its label.
    pub text: String,
    /// Its first line as written, as pgbench's `-r` prints it (`BEGIN;`, the `;`
    /// kept; `\;` as `;`; `select 1,` of a statement over several lines).
    pub first_line: String,
    pub line: usize,
    pub gset: Option<Gset>,
}

/// `\sleep`'s amount.
#[derive(Debug, Clone, PartialEq)]
pub enum Amount {
    Num(i64),
    Var(String),
}

/// A step of a script, `\if` chains already turned into jumps.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Sql(Sql),
    Set {
        var: String,
        expr: Expr,
    },
    /// `\sleep n unit`: the amount times `unit_us` microseconds.
    Sleep {
        amount: Amount,
        unit_us: u64,
    },
    /// Go to `to` unless the condition holds (`\if`, `\elif`).
    JumpUnless {
        cond: Expr,
        to: usize,
    },
    /// Go to `to` (the end of an `\if` chain after a branch ran).
    Jump {
        to: usize,
    },
    StartPipeline,
    EndPipeline,
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    pub commands: Vec<Command>,
}

impl Script {
    pub fn sql(&self) -> impl Iterator<Item = &Sql> {
        self.commands.iter().filter_map(|c| match c {
            Command::Sql(s) => Some(s),
            _ => None,
        })
    }
}

/// A script that cannot be read, with where.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub what: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.what
        )
    }
}

impl std::error::Error for ScriptError {}

/// An open `\if` chain while parsing: its pending jumps.
struct IfFrame {
    line: usize,
    /// The `JumpUnless` of the branch being read, patched when the next branch starts.
    pending_cond: Option<usize>,
    /// The `Jump`s at each branch's end, patched at `\endif`.
    ends: Vec<usize>,
    seen_else: bool,
    /// The pipeline as the `\if` found it (the line of its `\startpipeline`), and
    /// whether the branches read so far ended in one: every path through the chain
    /// must leave the pipeline as every other does.
    entry_pipeline: Option<usize>,
    branches_in_pipeline: Option<bool>,
}

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    out: Vec<Command>,
    ifs: Vec<IfFrame>,
    /// The open pipeline's `\startpipeline` line.
    pipeline: Option<usize>,
}

/// Reads a script; `path` names it in errors.
pub fn parse(path: &str, text: &str) -> Result<Script, ScriptError> {
    let mut r = Reader {
        file: path,
        text,
        out: Vec::new(),
        ifs: Vec::new(),
        pipeline: None,
    };
    r.run()?;
    if r.out.is_empty() {
        // pgbench 15 refuses it too ("empty command list for script"): a client
        // would begin and end transactions that do nothing, as fast as it can.
        return Err(r.err_at(
            1,
            1,
            "empty command list: the script has no SQL command or meta-command".into(),
        ));
    }
    if let Some(f) = r.ifs.last() {
        return Err(r.err_at(f.line, 1, "\\if without a matching \\endif".into()));
    }
    if let Some(line) = r.pipeline {
        return Err(r.err_at(
            line,
            1,
            "\\startpipeline without an \\endpipeline: the script ends with the pipeline \
             open (pgbench aborts the client there)"
                .into(),
        ));
    }
    Ok(Script { commands: r.out })
}

fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn is_name(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Reader<'_> {
    fn err_at(&self, line: usize, column: usize, what: String) -> ScriptError {
        ScriptError {
            file: self.file.to_string(),
            line,
            column,
            what,
        }
    }
    fn err(&self, at: usize, what: String) -> ScriptError {
        let (line, column) = line_col(self.text, at);
        self.err_at(line, column, what)
    }

    fn run(&mut self) -> Result<(), ScriptError> {
        let b = self.text.as_bytes();
        let mut i = 0;
        // The SQL command being read: its parts and where it began.
        let mut parts: Vec<Part> = Vec::new();
        let mut text = String::new();
        let mut start: Option<usize> = None;
        while i < b.len() {
            let c = b[i];
            match c {
                b'\'' | b'"' => {
                    let end = self.quoted(i, c)?;
                    text.push_str(&self.text[i..end]);
                    start.get_or_insert(i);
                    i = end;
                }
                b'$' if self.dollar_tag(i).is_some() => {
                    let tag = self.dollar_tag(i).unwrap_or("$");
                    let body = i + tag.len();
                    let Some(close) = self.text[body..].find(tag) else {
                        return Err(self.err(i, format!("unterminated dollar-quoted string {tag}")));
                    };
                    let end = body + close + tag.len();
                    text.push_str(&self.text[i..end]);
                    start.get_or_insert(i);
                    i = end;
                }
                b'-' if b.get(i + 1) == Some(&b'-') => {
                    // A comment to the end of the line: not sent.
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    let mut depth = 0;
                    let from = i;
                    loop {
                        if i + 1 >= b.len() {
                            return Err(self.err(from, "unterminated /* comment".into()));
                        }
                        if b[i] == b'/' && b[i + 1] == b'*' {
                            depth += 1;
                            i += 2;
                        } else if b[i] == b'*' && b[i + 1] == b'/' {
                            depth -= 1;
                            i += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            i += 1;
                        }
                    }
                }
                b':' if b.get(i + 1) == Some(&b':') => {
                    text.push_str("::");
                    i += 2;
                }
                b':' if b.get(i + 1).is_some_and(|&c| is_name(c)) => {
                    let mut j = i + 1;
                    while j < b.len() && is_name(b[j]) {
                        j += 1;
                    }
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(Part::Var(self.text[i + 1..j].to_string()));
                    start.get_or_insert(i);
                    i = j;
                }
                b'\\' if b.get(i + 1) == Some(&b';') => {
                    // psql's `\;`: a `;` that does not end the command.
                    text.push(';');
                    i += 2;
                }
                b'\\' => {
                    let end = self.text[i..].find('\n').map_or(b.len(), |n| i + n);
                    let pending = start.take();
                    let all = self.text;
                    let sql = pending.map(|s| {
                        let done = finish(s, std::mem::take(&mut parts), std::mem::take(&mut text));
                        (&all[s..i], done)
                    });
                    self.meta(i, &all[i + 1..end], sql)?;
                    i = end;
                }
                b';' => {
                    if let Some(s) = start.take() {
                        let sql = finish(s, std::mem::take(&mut parts), std::mem::take(&mut text));
                        let all = self.text;
                        self.push_sql(s, &all[s..=i], sql);
                    }
                    text.clear();
                    i += 1;
                }
                _ => {
                    if !c.is_ascii_whitespace() {
                        start.get_or_insert(i);
                    }
                    if start.is_some() {
                        text.push(c as char);
                        // Multi-byte characters: copy the whole character.
                        if c >= 0x80 {
                            text.pop();
                            let ch = self.text[i..].chars().next().unwrap_or(' ');
                            text.push(ch);
                            i += ch.len_utf8();
                            continue;
                        }
                    }
                    i += 1;
                }
            }
        }
        if let Some(s) = start {
            // pgbench sends a last command without its `;`.
            let sql = finish(s, parts, text);
            let all = self.text;
            self.push_sql(s, &all[s..], sql);
        }
        Ok(())
    }

    /// A SQL command, `raw` as written (from its first character to its `;`).
    fn push_sql(&mut self, at: usize, raw: &str, (parts, label): (Vec<Part>, String)) {
        let (line, _) = line_col(self.text, at);
        let first_line = raw.lines().next().unwrap_or("").replace("\\;", ";");
        self.out.push(Command::Sql(Sql {
            parts,
            text: label,
            first_line,
            line,
            gset: None,
        }));
    }

    /// The end of a quoted string or identifier that starts at `i`.
    fn quoted(&self, i: usize, q: u8) -> Result<usize, ScriptError> {
        let b = self.text.as_bytes();
        let mut j = i + 1;
        while j < b.len() {
            if b[j] == q {
                if b.get(j + 1) == Some(&q) {
                    j += 2;
                    continue;
                }
                return Ok(j + 1);
            }
            j += 1;
        }
        let what = if q == b'\'' {
            "string"
        } else {
            "quoted identifier"
        };
        Err(self.err(i, format!("unterminated {what}")))
    }

    /// `$tag$` starting at `i`, if one does (`$1` is a parameter, not a tag).
    fn dollar_tag(&self, i: usize) -> Option<&str> {
        let b = self.text.as_bytes();
        let mut j = i + 1;
        if b.get(j).is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        while j < b.len() && is_name(b[j]) {
            j += 1;
        }
        (b.get(j) == Some(&b'$')).then(|| &self.text[i..=j])
    }

    fn meta(
        &mut self,
        at: usize,
        line: &str,
        sql: Option<(&str, (Vec<Part>, String))>,
    ) -> Result<(), ScriptError> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or("");
        let args_at = |w: &str| at + 1 + (w.as_ptr() as usize - line.as_ptr() as usize);
        let lname = name.to_ascii_lowercase();
        if let Some((raw, s)) = sql {
            if lname != "gset" && lname != "aset" {
                return Err(self.err(
                    at,
                    format!("a SQL command must end with ';' before \\{name}"),
                ));
            }
            self.push_sql(at, raw, s);
        }
        match lname.as_str() {
            "set" => {
                let Some(var) = words.next() else {
                    return Err(
                        self.err(at, "\\set needs a variable name and an expression".into())
                    );
                };
                if !var.bytes().all(is_name) {
                    return Err(self.err(args_at(var), format!("invalid variable name \"{var}\"")));
                }
                let rest_at = args_at(var) + var.len();
                let rest = &self.text[rest_at..at + 1 + line.len()];
                if rest.trim().is_empty() {
                    return Err(self.err(at, format!("\\set {var} needs an expression")));
                }
                let e = expr::parse(rest).map_err(|e| self.err(rest_at + e.offset, e.what))?;
                self.out.push(Command::Set {
                    var: var.to_string(),
                    expr: e,
                });
            }
            "sleep" => self.sleep(at, &mut words, &args_at)?,
            "gset" | "aset" if self.pipeline.is_some() => {
                return Err(self.err(
                    at,
                    format!(
                        "\\{lname} is not allowed in pipeline mode (a pipelined statement's \
                         answer comes only after \\endpipeline, too late for the next one)"
                    ),
                ))
            }
            "gset" | "aset" => {
                let prefix = words.next().unwrap_or("").to_string();
                match self.out.last_mut() {
                    Some(Command::Sql(s)) if s.gset.is_none() => {
                        s.gset = Some(Gset {
                            prefix,
                            all: lname == "aset",
                        })
                    }
                    _ => return Err(self.err(at, format!("\\{lname} must follow a SQL command"))),
                }
            }
            "if" | "elif" | "else" | "endif" => self.branch(at, &lname, line)?,
            "startpipeline" | "endpipeline" => self.pipeline_bound(at, &lname)?,
            "shell" | "setshell" => {
                return Err(self.err(
                    at,
                    format!(
                    "\\{lname} is not supported: hakaru runs no shell command inside a transaction"
                ),
                ))
            }
            "" => return Err(self.err(at, "a backslash without a meta-command".into())),
            _ => return Err(self.err(at, format!("invalid command \\{name}"))),
        }
        if matches!(
            lname.as_str(),
            "gset" | "aset" | "startpipeline" | "endpipeline" | "else" | "endif"
        ) {
            if let Some(extra) = words.next() {
                return Err(self.err(
                    args_at(extra),
                    format!("unexpected argument \"{extra}\" to \\{lname}"),
                ));
            }
        }
        Ok(())
    }

    /// `\startpipeline` or `\endpipeline`, refused where pgbench would abort the
    /// client at run time: a pipeline begun inside one, or ended outside one.
    fn pipeline_bound(&mut self, at: usize, name: &str) -> Result<(), ScriptError> {
        let (line, _) = line_col(self.text, at);
        match (name, self.pipeline) {
            ("startpipeline", Some(open)) => {
                return Err(self.err(
                    at,
                    format!(
                        "\\startpipeline inside the pipeline begun at line {open} (pgbench: \
                         already in pipeline mode)"
                    ),
                ))
            }
            ("startpipeline", None) => {
                self.pipeline = Some(line);
                self.out.push(Command::StartPipeline);
            }
            (_, None) => {
                return Err(self.err(
                    at,
                    "\\endpipeline without a \\startpipeline (pgbench: not in pipeline mode)"
                        .into(),
                ))
            }
            (_, Some(_)) => {
                self.pipeline = None;
                self.out.push(Command::EndPipeline);
            }
        }
        Ok(())
    }

    /// A branch of the innermost `\if` ends here (at `\elif`, `\else` or
    /// `\endif`): its pipeline state must be every other branch's.
    fn branch_ends(&mut self, at: usize, name: &str) -> Result<(), ScriptError> {
        let here = self.pipeline.is_some();
        let Some(f) = self.ifs.last_mut() else {
            return Ok(());
        };
        let (if_line, entry) = (f.line, f.entry_pipeline);
        let agreed = *f.branches_in_pipeline.get_or_insert(here);
        // Without an \else, the path that takes no branch keeps the entry state.
        let implicit = name == "endif" && !f.seen_else && entry.is_some() != here;
        if agreed != here || implicit {
            return Err(self.err(
                at,
                format!(
                    "\\{name}: one path through the \\if at line {if_line} leaves a pipeline \
                     open and another does not (pgbench aborts the client whose path begins \
                     a pipeline it never ends, or ends one it never began): begin and end the \
                     pipeline in the same branch"
                ),
            ));
        }
        self.pipeline = if name == "endif" {
            self.pipeline
        } else {
            entry
        };
        Ok(())
    }

    fn sleep<'w>(
        &mut self,
        at: usize,
        words: &mut impl Iterator<Item = &'w str>,
        args_at: &dyn Fn(&str) -> usize,
    ) -> Result<(), ScriptError> {
        let Some(n) = words.next() else {
            return Err(self.err(at, "\\sleep needs an amount".into()));
        };
        let amount = if let Some(v) = n.strip_prefix(':') {
            Amount::Var(v.to_string())
        } else {
            Amount::Num(
                n.parse()
                    .map_err(|_| self.err(args_at(n), format!("invalid \\sleep amount \"{n}\"")))?,
            )
        };
        let unit_us = match words.next() {
            None | Some("s") => 1_000_000,
            Some("ms") => 1_000,
            Some("us") => 1,
            Some(u) => {
                return Err(self.err(
                    args_at(u),
                    format!("unknown \\sleep unit \"{u}\": use us, ms or s"),
                ))
            }
        };
        if let Some(extra) = words.next() {
            return Err(self.err(
                args_at(extra),
                format!("unexpected argument \"{extra}\" to \\sleep"),
            ));
        }
        self.out.push(Command::Sleep { amount, unit_us });
        Ok(())
    }

    fn branch(&mut self, at: usize, name: &str, line: &str) -> Result<(), ScriptError> {
        let (lineno, _) = line_col(self.text, at);
        let cond_at = at + 1 + name.len();
        let cond_text = &line[name.len()..];
        let cond = |r: &Self| -> Result<Expr, ScriptError> {
            if cond_text.trim().is_empty() {
                return Err(r.err(at, format!("\\{name} needs a condition")));
            }
            expr::parse(cond_text).map_err(|e| r.err(cond_at + e.offset, e.what))
        };
        match name {
            "if" => {
                let c = cond(self)?;
                self.ifs.push(IfFrame {
                    line: lineno,
                    pending_cond: Some(self.out.len()),
                    ends: Vec::new(),
                    seen_else: false,
                    entry_pipeline: self.pipeline,
                    branches_in_pipeline: None,
                });
                self.out.push(Command::JumpUnless { cond: c, to: 0 });
            }
            "elif" | "else" => {
                let c = if name == "elif" {
                    Some(cond(self)?)
                } else {
                    None
                };
                match self.ifs.last() {
                    None => return Err(self.err(at, format!("\\{name} without a matching \\if"))),
                    Some(f) if f.seen_else => {
                        return Err(self.err(at, format!("\\{name} after \\else")))
                    }
                    Some(_) => self.branch_ends(at, name)?,
                }
                let f = self.ifs.last_mut().expect("checked above");
                f.ends.push(self.out.len());
                let here = self.out.len() + 1;
                if let Some(p) = f.pending_cond.take() {
                    if let Command::JumpUnless { to, .. } = &mut self.out[p] {
                        *to = here;
                    }
                }
                self.out.push(Command::Jump { to: 0 });
                let f = self.ifs.last_mut().expect("the frame just read");
                if let Some(c) = c {
                    f.pending_cond = Some(self.out.len());
                    self.out.push(Command::JumpUnless { cond: c, to: 0 });
                } else {
                    f.seen_else = true;
                }
            }
            _ => {
                if !cond_text.trim().is_empty() {
                    return Err(self.err(cond_at, "unexpected argument to \\endif".into()));
                }
                if self.ifs.is_empty() {
                    return Err(self.err(at, "\\endif without a matching \\if".into()));
                }
                self.branch_ends(at, "endif")?;
                let f = self.ifs.pop().expect("checked above");
                let end = self.out.len();
                for j in f.ends.into_iter().chain(f.pending_cond) {
                    match &mut self.out[j] {
                        Command::JumpUnless { to, .. } | Command::Jump { to } => *to = end,
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }
}

/// A finished command's parts and its label (whitespace collapsed, `:vars` kept).
fn finish(_start: usize, mut parts: Vec<Part>, text: String) -> (Vec<Part>, String) {
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    let mut label = String::new();
    for p in &parts {
        match p {
            Part::Text(t) => label.push_str(t),
            Part::Var(v) => {
                label.push(':');
                label.push_str(v);
            }
        }
    }
    let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
    (parts, label)
}

#[cfg(test)]
mod tests;
