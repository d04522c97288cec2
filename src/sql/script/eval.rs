//! `\set`'s expressions evaluated as pgbench evaluates them (parsed by
//! [`super::expr`]): integer arithmetic that overflows is an error, an int and a
//! double make a double, and pgbench's functions with its semantics and hashes.

use super::expr::{BinOp, Expr, Func, UnOp, Value};

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
                // pgbench rounds (C's rint: halves to even), it does not truncate.
                Ok(d.round_ties_even() as i64)
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
            // pgbench reads `-x` as `0 - x`: `-0.0` is 0, not -0.
            v => Value::Double(0.0 - to_double(v)?),
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
