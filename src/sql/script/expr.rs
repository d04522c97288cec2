//! `\set`'s expressions, as pgbench reads and evaluates them: integers, doubles,
//! booleans and NULL; `+ - * / %`, comparisons, `AND OR NOT`, the bitwise
//! `& | # ~ << >>`, `CASE WHEN`, `IS [NOT] NULL`, and pgbench's functions. Integer
//! arithmetic that overflows is an error (as pgbench's "bigint out of range"), never
//! a wrapped value; an int and a double make a double.
//!
//! Parsing is a Pratt parser over pgbench's precedence (`exprparse.y`: OR < AND <
//! NOT < IS < comparisons < bitwise < `+ -` < `* / %` < unary). Evaluation takes the
//! client's variables and random state through [`Env`], so it allocates nothing but
//! an error's text; it lives in [`super::eval`].

use std::fmt;

pub use super::eval::{eval, hash_fnv1a, hash_murmur2, Env};

/// A value of pgbench's expression language.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Double(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str(""),
            Value::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Double(d) => f.write_str(&pg_double(*d)),
        }
    }
}

/// A double as pgbench writes it into SQL: C's `%.15g` through PostgreSQL's own
/// `snprintf` (`Infinity`, `NaN`), so `0.1 + 0.2` is `0.3` and `1e16` is `1e+16`,
/// not Rust's shortest round-trip text.
pub fn pg_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rounded to 15 significant digits first: %g picks its style by that exponent.
    let sci = format!("{d:.14e}");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} writes an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    if !(-4..15).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs());
    }
    strip_zeros(&format!("{d:.*}", (14 - exp) as usize)).to_string()
}

/// `%g` drops a fraction's trailing zeros, and its point if nothing is left.
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

/// The functions pgbench knows (`pgbench --help` lists none; its docs' table does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Abs,
    Debug,
    Double,
    Exp,
    Greatest,
    Hash,
    HashFnv1a,
    HashMurmur2,
    Int,
    Least,
    Ln,
    Mod,
    Permute,
    Pi,
    Pow,
    Random,
    RandomExponential,
    RandomGaussian,
    RandomZipfian,
    Sqrt,
}

impl Func {
    fn by_name(name: &str) -> Option<(Func, usize, usize)> {
        use Func::*;
        // (function, fewest arguments, most arguments)
        Some(match name.to_ascii_lowercase().as_str() {
            "abs" => (Abs, 1, 1),
            "debug" => (Debug, 1, 1),
            "double" => (Double, 1, 1),
            "exp" => (Exp, 1, 1),
            "greatest" => (Greatest, 1, usize::MAX),
            "hash" => (Hash, 1, 2),
            "hash_fnv1a" => (HashFnv1a, 1, 2),
            "hash_murmur2" => (HashMurmur2, 1, 2),
            "int" => (Int, 1, 1),
            "least" => (Least, 1, usize::MAX),
            "ln" => (Ln, 1, 1),
            "mod" => (Mod, 2, 2),
            "permute" => (Permute, 2, 3),
            "pi" => (Pi, 0, 0),
            "pow" | "power" => (Pow, 2, 2),
            "random" => (Random, 2, 2),
            "random_exponential" => (RandomExponential, 3, 3),
            "random_gaussian" => (RandomGaussian, 3, 3),
            "random_zipfian" => (RandomZipfian, 3, 3),
            "sqrt" => (Sqrt, 1, 1),
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
    IsNull,
    IsNotNull,
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Const(Value),
    Var(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
    Case(Vec<(Expr, Expr)>, Option<Box<Expr>>),
}

impl Expr {
    /// Every variable the expression reads, for the parser's checks.
    pub fn vars<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Const(_) => {}
            Expr::Var(v) => out.push(v),
            Expr::Unary(_, e) => e.vars(out),
            Expr::Binary(_, a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.vars(out)),
            Expr::Case(arms, other) => {
                for (c, v) in arms {
                    c.vars(out);
                    v.vars(out);
                }
                if let Some(o) = other {
                    o.vars(out);
                }
            }
        }
    }
}

/// A parse error: the byte offset in the expression's text and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub offset: usize,
    pub what: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Double(f64),
    Var(String),
    Ident(String),
    Op(&'static str),
    LParen,
    RParen,
    Comma,
    End,
}

fn lex(text: &str) -> Result<Vec<(usize, Tok)>, ExprError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |offset, what: String| Err(ExprError { offset, what });
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let mut double = false;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && b[i] == b'.' {
                double = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    double = true;
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let s = &text[start..i];
            let tok = if double {
                Tok::Double(s.parse().map_err(|_| ExprError {
                    offset: start,
                    what: format!("invalid number \"{s}\""),
                })?)
            } else {
                match s.parse::<i64>() {
                    Ok(n) => Tok::Int(n),
                    // -9223372036854775808 is a literal of its own in pgbench.
                    Err(_) if s == "9223372036854775808" => Tok::Int(i64::MIN),
                    Err(_) => return err(start, format!("bigint constant out of range: {s}")),
                }
            };
            out.push((start, tok));
            continue;
        }
        if c == b':' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == start + 1 {
                return err(start, "a variable's name must follow ':'".into());
            }
            out.push((start, Tok::Var(text[start + 1..i].to_string())));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((start, Tok::Ident(text[start..i].to_ascii_lowercase())));
            continue;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let op: Option<&'static str> = match two {
            "<=" => Some("<="),
            ">=" => Some(">="),
            "<>" | "!=" => Some("<>"),
            "<<" => Some("<<"),
            ">>" => Some(">>"),
            _ => None,
        };
        if let Some(op) = op {
            out.push((start, Tok::Op(op)));
            i += 2;
            continue;
        }
        let tok = match c {
            b'(' => Tok::LParen,
            b')' => Tok::RParen,
            b',' => Tok::Comma,
            b'+' => Tok::Op("+"),
            b'-' => Tok::Op("-"),
            b'*' => Tok::Op("*"),
            b'/' => Tok::Op("/"),
            b'%' => Tok::Op("%"),
            b'=' => Tok::Op("="),
            b'<' => Tok::Op("<"),
            b'>' => Tok::Op(">"),
            b'&' => Tok::Op("&"),
            b'|' => Tok::Op("|"),
            b'#' => Tok::Op("#"),
            b'~' => Tok::Op("~"),
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(start, format!("unexpected character '{ch}'"));
            }
        };
        out.push((start, tok));
        i += 1;
    }
    out.push((text.len(), Tok::End));
    Ok(out)
}

/// Parses one expression (the rest of a `\set` line).
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0 };
    let e = p.expr(0)?;
    match p.peek() {
        Tok::End => Ok(e),
        t => Err(p.error(format!("unexpected {} after the expression", show(t)))),
    }
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Int(n) => n.to_string(),
        Tok::Double(d) => d.to_string(),
        Tok::Var(v) => format!(":{v}"),
        Tok::Ident(s) => s.clone(),
        Tok::Op(o) => format!("'{o}'"),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::End => "the end".into(),
    }
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
}

// Binding powers, lowest first, as exprparse.y's %left/%right lines.
const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_NOT: u8 = 3;
const P_IS: u8 = 4;
const P_CMP: u8 = 5;
const P_BIT: u8 = 6;
const P_ADD: u8 = 7;
const P_MUL: u8 = 8;
const P_UNARY: u8 = 9;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].1
    }
    fn error(&self, what: String) -> ExprError {
        ExprError {
            offset: self.toks[self.pos].0,
            what,
        }
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].1.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }
    fn expect_kw(&mut self, kw: &str) -> Result<(), ExprError> {
        if self.is_kw(kw) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(format!(
                "expected {} here, found {}",
                kw.to_uppercase(),
                show(self.peek())
            )))
        }
    }

    fn infix(&self) -> Option<(BinOp, u8)> {
        Some(match self.peek() {
            Tok::Ident(s) if s == "or" => (BinOp::Or, P_OR),
            Tok::Ident(s) if s == "and" => (BinOp::And, P_AND),
            Tok::Op(o) => match *o {
                "=" => (BinOp::Eq, P_CMP),
                "<>" => (BinOp::Ne, P_CMP),
                "<" => (BinOp::Lt, P_CMP),
                "<=" => (BinOp::Le, P_CMP),
                ">" => (BinOp::Gt, P_CMP),
                ">=" => (BinOp::Ge, P_CMP),
                "|" => (BinOp::BitOr, P_BIT),
                "#" => (BinOp::BitXor, P_BIT),
                "&" => (BinOp::BitAnd, P_BIT),
                "<<" => (BinOp::Shl, P_BIT),
                ">>" => (BinOp::Shr, P_BIT),
                "+" => (BinOp::Add, P_ADD),
                "-" => (BinOp::Sub, P_ADD),
                "*" => (BinOp::Mul, P_MUL),
                "/" => (BinOp::Div, P_MUL),
                "%" => (BinOp::Mod, P_MUL),
                _ => return None,
            },
            _ => return None,
        })
    }

    fn expr(&mut self, min: u8) -> Result<Expr, ExprError> {
        let mut lhs = self.prefix()?;
        loop {
            // IS [NOT] NULL, ISNULL, NOTNULL: postfix, nonassociative.
            if min <= P_IS {
                if self.is_kw("isnull") {
                    self.bump();
                    lhs = Expr::Unary(UnOp::IsNull, Box::new(lhs));
                    continue;
                }
                if self.is_kw("notnull") {
                    self.bump();
                    lhs = Expr::Unary(UnOp::IsNotNull, Box::new(lhs));
                    continue;
                }
                if self.is_kw("is") {
                    self.bump();
                    let not = self.is_kw("not");
                    if not {
                        self.bump();
                    }
                    let op = if self.is_kw("null") {
                        if not {
                            UnOp::IsNotNull
                        } else {
                            UnOp::IsNull
                        }
                    } else if self.is_kw("true") || self.is_kw("false") {
                        let want = self.is_kw("true") != not;
                        self.bump();
                        lhs = Expr::Binary(
                            BinOp::Eq,
                            Box::new(lhs),
                            Box::new(Expr::Const(Value::Bool(want))),
                        );
                        continue;
                    } else {
                        return Err(self.error("expected NULL, TRUE or FALSE after IS".into()));
                    };
                    self.bump();
                    lhs = Expr::Unary(op, Box::new(lhs));
                    continue;
                }
            }
            let Some((op, prec)) = self.infix() else {
                break;
            };
            if prec < min {
                break;
            }
            self.bump();
            // All binary operators are left-associative; comparisons are
            // nonassociative in pgbench, which this accepts as left.
            let rhs = self.expr(prec + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn prefix(&mut self) -> Result<Expr, ExprError> {
        let at = self.pos;
        match self.bump() {
            Tok::Int(n) => Ok(Expr::Const(Value::Int(n))),
            Tok::Double(d) => Ok(Expr::Const(Value::Double(d))),
            Tok::Var(v) => Ok(Expr::Var(v)),
            Tok::Op("-") => {
                let e = self.expr(P_UNARY)?;
                Ok(match e {
                    Expr::Const(Value::Int(i64::MIN)) => Expr::Const(Value::Int(i64::MIN)),
                    e => Expr::Unary(UnOp::Neg, Box::new(e)),
                })
            }
            Tok::Op("+") => self.expr(P_UNARY),
            Tok::Op("~") => Ok(Expr::Unary(UnOp::BitNot, Box::new(self.expr(P_UNARY)?))),
            Tok::LParen => {
                let e = self.expr(0)?;
                let close = self.pos;
                match self.bump() {
                    Tok::RParen => Ok(e),
                    t => {
                        self.pos = close;
                        Err(self.error(format!("expected ')', found {}", show(&t))))
                    }
                }
            }
            Tok::Ident(s) => self.ident(at, s),
            t => {
                self.pos = at;
                Err(self.error(format!("expected a value, found {}", show(&t))))
            }
        }
    }

    fn ident(&mut self, at: usize, s: String) -> Result<Expr, ExprError> {
        match s.as_str() {
            "true" => return Ok(Expr::Const(Value::Bool(true))),
            "false" => return Ok(Expr::Const(Value::Bool(false))),
            "null" => return Ok(Expr::Const(Value::Null)),
            "not" => return Ok(Expr::Unary(UnOp::Not, Box::new(self.expr(P_NOT)?))),
            "case" => return self.case(),
            _ => {}
        }
        let Some((f, lo, hi)) = Func::by_name(&s) else {
            self.pos = at;
            return Err(self.error(format!("unknown function or keyword \"{s}\"")));
        };
        if *self.peek() != Tok::LParen {
            return Err(self.error(format!("expected '(' after {s}")));
        }
        self.bump();
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.expr(0)?);
                let sep = self.pos;
                match self.bump() {
                    Tok::Comma => continue,
                    Tok::RParen => break,
                    t => {
                        self.pos = sep;
                        return Err(self.error(format!("expected ',' or ')', found {}", show(&t))));
                    }
                }
            }
        } else {
            self.bump();
        }
        if args.len() < lo || args.len() > hi {
            self.pos = at;
            let want = if lo == hi {
                format!("{lo}")
            } else if hi == usize::MAX {
                format!("at least {lo}")
            } else {
                format!("{lo} to {hi}")
            };
            return Err(self.error(format!(
                "{s}() takes {want} argument(s), given {}",
                args.len()
            )));
        }
        Ok(Expr::Call(f, args))
    }

    fn case(&mut self) -> Result<Expr, ExprError> {
        let mut arms = Vec::new();
        while self.is_kw("when") {
            self.bump();
            let c = self.expr(0)?;
            self.expect_kw("then")?;
            arms.push((c, self.expr(0)?));
        }
        if arms.is_empty() {
            return Err(self.error("CASE needs at least one WHEN".into()));
        }
        let other = if self.is_kw("else") {
            self.bump();
            Some(Box::new(self.expr(0)?))
        } else {
            None
        };
        self.expect_kw("end")?;
        Ok(Expr::Case(arms, other))
    }
}

/// Text (a query's answer through `\gset`, a `-D` value) read as a value the way
/// pgbench reads it where an expression uses it: `null`; a boolean (`true`, `yes`
/// or a prefix of either, `on`; `false`, `no` or a prefix, `off`, `of`, any case);
/// an integer (one that overflows is no value); else a double; else none.
pub fn text_value(text: &str) -> Option<Value> {
    let t = text.trim();
    let starts = |word: &str| {
        !text.is_empty()
            && text.len() <= word.len()
            && word[..text.len()].eq_ignore_ascii_case(text)
    };
    if text.is_empty() {
        None
    } else if text.eq_ignore_ascii_case("null") {
        Some(Value::Null)
    } else if starts("true") || starts("yes") || text.eq_ignore_ascii_case("on") {
        Some(Value::Bool(true))
    } else if starts("false")
        || starts("no")
        || ["off", "of"].iter().any(|w| text.eq_ignore_ascii_case(w))
    {
        Some(Value::Bool(false))
    } else if is_an_int(t) {
        t.parse::<i64>().ok().map(Value::Int)
    } else {
        t.parse::<f64>().ok().map(Value::Double)
    }
}

/// An optional sign and digits (surrounding blanks trimmed): pgbench's integer
/// look, which then must fit 64 bits.
fn is_an_int(t: &str) -> bool {
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}
