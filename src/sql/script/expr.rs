//! `\set`'s expressions, as pgbench reads and evaluates them: integers, doubles,
//! booleans and NULL; `+ - * / %`, comparisons, `AND OR NOT`, the bitwise
//! `& | # ~ << >>`, `CASE WHEN`, `IS [NOT] NULL`, and pgbench's functions. Integer
//! arithmetic that overflows is an error (as pgbench's "bigint out of range"), never
//! a wrapped value; an int and a double make a double.
//!
//! Parsing is a Pratt parser over pgbench's precedence (`exprparse.y`: OR < AND <
//! NOT < IS < comparisons < bitwise < `+ -` < `* / %` < unary). Evaluation takes the
//! client's variables and random state through [`Env`], so it allocates nothing but
//! an error's text.

use std::fmt;

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
            Value::Double(d) => write!(f, "{d}"),
        }
    }
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

/// What evaluation reads: the client's variables and its random state.
pub trait Env {
    /// The variable's value, `None` when it is not set.
    fn var(&self, name: &str) -> Option<Result<Value, String>>;
    fn rng(&mut self) -> &mut crate::sql::script::rand::Rand;
    /// `hash()`'s seed when none is given: `:default_seed`.
    fn default_seed(&self) -> i64;
}

fn num_err(v: &Value) -> String {
    format!("cannot use {} as a number", kind(v))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "NULL",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an integer",
        Value::Double(_) => "a double",
    }
}

fn to_int(v: Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(i),
        Value::Double(d) => {
            if d.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
                Err("double to int overflow".into())
            } else {
                Ok(d as i64)
            }
        }
        v => Err(num_err(&v)),
    }
}

fn to_double(v: Value) -> Result<f64, String> {
    match v {
        Value::Int(i) => Ok(i as f64),
        Value::Double(d) => Ok(d),
        v => Err(num_err(&v)),
    }
}

fn to_bool(v: Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(b),
        Value::Int(i) => Ok(i != 0),
        Value::Double(d) => Ok(d != 0.0),
        Value::Null => Err("cannot use NULL as a boolean".into()),
    }
}

const OVERFLOW: &str = "bigint out of range";

/// Evaluates an expression for one client.
pub fn eval(e: &Expr, env: &mut dyn Env) -> Result<Value, String> {
    match e {
        Expr::Const(v) => Ok(*v),
        Expr::Var(name) => env
            .var(name)
            .unwrap_or_else(|| Err(format!("undefined variable \"{name}\""))),
        Expr::Unary(op, a) => unary(*op, eval(a, env)?),
        Expr::Binary(BinOp::And, a, b) => {
            let a = eval(a, env)?;
            if a == Value::Null {
                return Ok(Value::Null);
            }
            if !to_bool(a)? {
                return Ok(Value::Bool(false));
            }
            let b = eval(b, env)?;
            if b == Value::Null {
                return Ok(Value::Null);
            }
            Ok(Value::Bool(to_bool(b)?))
        }
        Expr::Binary(BinOp::Or, a, b) => {
            let a = eval(a, env)?;
            if a == Value::Null {
                return Ok(Value::Null);
            }
            if to_bool(a)? {
                return Ok(Value::Bool(true));
            }
            let b = eval(b, env)?;
            if b == Value::Null {
                return Ok(Value::Null);
            }
            Ok(Value::Bool(to_bool(b)?))
        }
        Expr::Binary(op, a, b) => {
            let a = eval(a, env)?;
            let b = eval(b, env)?;
            binary(*op, a, b)
        }
        Expr::Case(arms, other) => {
            for (c, v) in arms {
                let c = eval(c, env)?;
                if c != Value::Null && to_bool(c)? {
                    return eval(v, env);
                }
            }
            match other {
                Some(o) => eval(o, env),
                None => Ok(Value::Null),
            }
        }
        Expr::Call(f, args) => call(*f, args, env),
    }
}

fn unary(op: UnOp, a: Value) -> Result<Value, String> {
    Ok(match op {
        UnOp::IsNull => Value::Bool(a == Value::Null),
        UnOp::IsNotNull => Value::Bool(a != Value::Null),
        _ if a == Value::Null => Value::Null,
        UnOp::Neg => match a {
            Value::Int(i) => Value::Int(i.checked_neg().ok_or(OVERFLOW)?),
            v => Value::Double(-to_double(v)?),
        },
        UnOp::Not => Value::Bool(!to_bool(a)?),
        UnOp::BitNot => Value::Int(!to_int(a)?),
    })
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    use BinOp::*;
    if a == Value::Null || b == Value::Null {
        return Ok(Value::Null);
    }
    let doubles = matches!(a, Value::Double(_)) || matches!(b, Value::Double(_));
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => {
            let ord = if doubles {
                to_double(a)?.partial_cmp(&to_double(b)?)
            } else if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
                Some(x.cmp(&y))
            } else {
                Some(to_int(a)?.cmp(&to_int(b)?))
            };
            let Some(ord) = ord else {
                return Ok(Value::Bool(op == Ne));
            };
            use std::cmp::Ordering::*;
            Ok(Value::Bool(match op {
                Eq => ord == Equal,
                Ne => ord != Equal,
                Lt => ord == Less,
                Le => ord != Greater,
                Gt => ord == Greater,
                _ => ord != Less,
            }))
        }
        BitOr | BitXor | BitAnd | Shl | Shr => {
            let (x, y) = (to_int(a)?, to_int(b)?);
            Ok(Value::Int(match op {
                BitOr => x | y,
                BitXor => x ^ y,
                BitAnd => x & y,
                // As C on a 64-bit int: shifts of 64 or more are pgbench's undefined
                // corner; here they give 0 (or -1 for >> of a negative).
                Shl => {
                    if (0..64).contains(&y) {
                        x << y
                    } else {
                        0
                    }
                }
                _ => {
                    if (0..64).contains(&y) {
                        x >> y
                    } else if x < 0 {
                        -1
                    } else {
                        0
                    }
                }
            }))
        }
        Add | Sub | Mul | Div | Mod if doubles => {
            let (x, y) = (to_double(a)?, to_double(b)?);
            Ok(Value::Double(match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div if y == 0.0 => return Err("division by zero".into()),
                Div => x / y,
                // pgbench's % is integers only.
                _ => return Err("cannot use % on a double".into()),
            }))
        }
        _ => {
            let (x, y) = (to_int(a)?, to_int(b)?);
            Ok(Value::Int(match op {
                Add => x.checked_add(y).ok_or(OVERFLOW)?,
                Sub => x.checked_sub(y).ok_or(OVERFLOW)?,
                Mul => x.checked_mul(y).ok_or(OVERFLOW)?,
                Div | Mod if y == 0 => return Err("division by zero".into()),
                Div => x.checked_div(y).ok_or(OVERFLOW)?,
                // i64::MIN % -1 is 0 in pgbench, not an overflow.
                _ if y == -1 => 0,
                _ => x % y,
            }))
        }
    }
}

fn call(f: Func, args: &[Expr], env: &mut dyn Env) -> Result<Value, String> {
    use Func::*;
    let mut vals = [Value::Null; 3];
    let fixed = !matches!(f, Greatest | Least);
    if fixed {
        for (i, a) in args.iter().enumerate() {
            vals[i] = eval(a, env)?;
        }
    }
    let v = vals;
    Ok(match f {
        Greatest | Least => {
            let mut best: Option<Value> = None;
            let mut doubles = false;
            for a in args {
                let x = eval(a, env)?;
                doubles |= matches!(x, Value::Double(_));
                best = Some(match best {
                    None => x,
                    Some(b) => {
                        let better =
                            binary(if f == Greatest { BinOp::Gt } else { BinOp::Lt }, x, b)?;
                        if better == Value::Bool(true) {
                            x
                        } else {
                            b
                        }
                    }
                });
            }
            let b = best.unwrap_or(Value::Null);
            if doubles {
                Value::Double(to_double(b)?)
            } else {
                b
            }
        }
        Abs => match v[0] {
            Value::Int(i) => Value::Int(i.checked_abs().ok_or(OVERFLOW)?),
            x => Value::Double(to_double(x)?.abs()),
        },
        Debug => {
            // pgbench's line names the script and command; the value's type and
            // value follow as it prints them.
            let ty = match v[0] {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Int(_) => "int",
                Value::Double(_) => "double",
            };
            eprintln!("debug: {ty} {}", v[0]);
            v[0]
        }
        Double => Value::Double(to_double(v[0])?),
        Int => Value::Int(to_int(v[0])?),
        Exp => Value::Double(to_double(v[0])?.exp()),
        Ln => Value::Double(to_double(v[0])?.ln()),
        Sqrt => Value::Double(to_double(v[0])?.sqrt()),
        Pi => Value::Double(std::f64::consts::PI),
        Pow => Value::Double(to_double(v[0])?.powf(to_double(v[1])?)),
        Mod => binary(BinOp::Mod, v[0], v[1])?,
        Hash | HashMurmur2 | HashFnv1a => {
            let seed = if args.len() == 2 {
                to_int(v[1])?
            } else {
                env.default_seed()
            };
            let x = to_int(v[0])?;
            Value::Int(if f == HashFnv1a {
                hash_fnv1a(x, seed as u64)
            } else {
                hash_murmur2(x, seed as u64)
            })
        }
        Permute => {
            let seed = if args.len() == 3 {
                to_int(v[2])?
            } else {
                env.default_seed()
            };
            let size = to_int(v[1])?;
            if size <= 0 {
                return Err("permute size parameter must be greater than zero".into());
            }
            Value::Int(super::rand::permute(to_int(v[0])?, size, seed as u64))
        }
        Random | RandomExponential | RandomGaussian | RandomZipfian => {
            let (lb, ub) = (to_int(v[0])?, to_int(v[1])?);
            if ub < lb {
                return Err(format!("empty range given to random: [{lb}, {ub}]"));
            }
            if ub.checked_sub(lb).and_then(|d| d.checked_add(1)).is_none() {
                return Err("random range is too large".into());
            }
            let r = env.rng();
            Value::Int(match f {
                Random => r.uniform(lb, ub),
                RandomExponential => {
                    let p = to_double(v[2])?;
                    if p <= 0.0 {
                        return Err(format!(
                            "exponential parameter must be greater than zero (got {p})"
                        ));
                    }
                    r.exponential(lb, ub, p)
                }
                RandomGaussian => {
                    let p = to_double(v[2])?;
                    if p < 2.0 {
                        return Err(format!("gaussian parameter must be at least 2.0 (got {p})"));
                    }
                    r.gaussian(lb, ub, p)
                }
                _ => {
                    let s = to_double(v[2])?;
                    if !(1.001..=1000.0).contains(&s) {
                        return Err(format!(
                            "zipfian parameter must be in range [1.001, 1000] (not {s})"
                        ));
                    }
                    r.zipfian(lb, ub, s)
                }
            })
        }
    })
}

/// pgbench's `hash_fnv1a`: FNV-1a over the value's 8 bytes, low first, the
/// offset basis XOR'd with the seed.
pub fn hash_fnv1a(val: i64, seed: u64) -> i64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    let mut v = val;
    for _ in 0..8 {
        h ^= (v & 0xff) as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        v >>= 8;
    }
    h as i64
}

/// pgbench's `hash_murmur2` (and `hash`): MurmurHash64A of one 8-byte value.
pub fn hash_murmur2(val: i64, seed: u64) -> i64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ M.wrapping_mul(8);
    let mut k = val as u64;
    k = k.wrapping_mul(M);
    k ^= k >> R;
    k = k.wrapping_mul(M);
    h ^= k;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h as i64
}
