//! Property tests: no input makes the front end panic (a panic would surface as
//! `SemanticsError::Internal`), and random arithmetic programs compute what OCaml computes
//! (63-bit wrap-around, precedence, associativity) and count exactly their operations.

mod common;

use ocaml_runtime::digest::Digest;
use proptest::prelude::*;
use semantics::{Program, SemanticsError};

fn not_internal(result: Result<Program, SemanticsError>) -> Result<(), TestCaseError> {
    if let Err(SemanticsError::Internal { message, .. }) = &result {
        return Err(TestCaseError::fail(format!("internal error: {message}")));
    }
    if let Err(e) = &result {
        prop_assert!(!e.to_string().contains('\n'), "one line: {e}");
    }
    Ok(())
}

const TOKENS: &[&str] = &[
    "let",
    "rec",
    "in",
    "and",
    "fun",
    "function",
    "match",
    "with",
    "if",
    "then",
    "else",
    "try",
    "type",
    "of",
    "exception",
    "begin",
    "end",
    "when",
    "as",
    "mod",
    "land",
    "lsl",
    "(",
    ")",
    "[",
    "]",
    ",",
    ";",
    ";;",
    "|",
    "->",
    "=",
    "==",
    "<>",
    "<",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "+.",
    "-.",
    "::",
    "@",
    "&&",
    "||",
    "|>",
    "_",
    "x",
    "y",
    "f",
    "l",
    "input",
    "run",
    "Some",
    "None",
    "A",
    "B",
    "0",
    "1",
    "42",
    "1.5",
    "\"s\"",
    "'c'",
    "'a",
    "int",
    "list",
    "true",
    "not",
    "fst",
    "raise",
    "failwith",
    "Not_found",
    "(*",
    "*)",
    "[@inline]",
    "{",
    "}",
    "[|",
    "|]",
    "!",
    ":=",
    ".",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|t| t.join(" "))
}

/// An integer expression, with its OCaml text (fully parenthesised) and the counts it implies.
#[derive(Debug, Clone)]
enum E {
    Lit(i64),
    Var,
    Bin(&'static str, Box<E>, Box<E>),
    Neg(Box<E>),
    If(Box<E>, Box<E>, Box<E>),
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        (-1000i64..1000).prop_map(E::Lit),
        Just(E::Var),
        any::<i64>().prop_map(|i| E::Lit(i >> 2))
    ];
    leaf.prop_recursive(6, 48, 3, |inner| {
        prop_oneof![
            (
                prop::sample::select(&["+", "-", "*", "land", "lor", "lxor"][..]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| E::Bin(op, Box::new(a), Box::new(b))),
            inner.clone().prop_map(|a| E::Neg(Box::new(a))),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| E::If(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
        ]
    })
}

fn wrap(x: i64) -> i64 {
    (x << 1) >> 1
}

fn text(e: &E) -> String {
    match e {
        E::Lit(i) if *i < 0 => format!("({i})"),
        E::Lit(i) => i.to_string(),
        E::Var => "n".into(),
        E::Bin(op, a, b) => format!("({} {op} {})", text(a), text(b)),
        E::Neg(a) => format!("(- {})", text(a)),
        E::If(c, a, b) => format!("(if {} > 0 then {} else {})", text(c), text(a), text(b)),
    }
}

/// Reference evaluation (OCaml's 63-bit ints), counting operations as the catalogue says.
/// The value of a literal, possibly under minus signs (folded by the parser).
fn constant(e: &E) -> Option<i64> {
    match e {
        E::Lit(i) => Some(wrap(*i)),
        E::Neg(a) => constant(a).map(|i| wrap(i.wrapping_neg())),
        _ => None,
    }
}

fn tick(ops: &mut std::collections::BTreeMap<String, u64>, name: &str) {
    *ops.entry(name.to_string()).or_insert(0) += 1;
}

fn eval(e: &E, n: i64, ops: &mut std::collections::BTreeMap<String, u64>) -> i64 {
    match e {
        E::Lit(i) => wrap(*i),
        E::Var => n,
        E::Neg(a) => match constant(a) {
            // OCaml's parser folds a minus applied to a constant: `- (-5)` is the constant 5.
            Some(i) => wrap(i.wrapping_neg()),
            None => {
                let v = eval(a, n, ops);
                tick(ops, "IntUMinus");
                wrap(v.wrapping_neg())
            }
        },
        E::Bin(op, a, b) => {
            let y = eval(b, n, ops); // right operand first, as in OCaml
            let x = eval(a, n, ops);
            let (name, v) = match *op {
                "+" => ("IntAdd", x.wrapping_add(y)),
                "-" => ("IntSub", x.wrapping_sub(y)),
                // A constant factor (either side) is folded into the instruction; `* 0` and
                // `* 1` leave nothing to count, `* (-1)` is a negation.
                "*" => match constant(b).or_else(|| constant(a)) {
                    Some(0 | 1) => return wrap(x.wrapping_mul(y)),
                    Some(-1) => ("IntUMinus", x.wrapping_mul(y)),
                    Some(_) => ("IntMultConst", x.wrapping_mul(y)),
                    None => ("IntMult", x.wrapping_mul(y)),
                },
                "land" => ("IntLand", x & y),
                "lor" => ("IntLor", x | y),
                _ => ("IntLxor", x ^ y),
            };
            tick(ops, name);
            wrap(v)
        }
        E::If(c, a, b) => {
            let cv = eval(c, n, ops);
            tick(ops, "IntCondGT");
            if cv > 0 {
                eval(a, n, ops)
            } else {
                eval(b, n, ops)
            }
        }
    }
}

fn int_digest(i: i64) -> String {
    let mut d = Digest::new();
    d.immediate(i);
    d.finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(source in "[ -~\n\t]{0,200}") {
        not_internal(Program::from_source("fuzz.ml", &source))?;
    }

    #[test]
    fn token_soup_never_panics(source in token_soup()) {
        not_internal(Program::from_source("fuzz.ml", &source))?;
        not_internal(Program::script_from_source("fuzz.ml", &source))?;
    }

    #[test]
    fn arithmetic_matches_a_reference_evaluator(e in expr(), n in -50i64..50) {
        let source = format!("let input n = n\nlet run n = {}", text(&e));
        let program = Program::from_source("arith.ml", &source).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let result = program.count(n).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut ops = std::collections::BTreeMap::new();
        let value = eval(&e, n, &mut ops);
        ops.insert("Base".into(), 1);
        prop_assert_eq!(result.digest, int_digest(value));
        // The reference evaluator knows the source's operations, not the branch predictor.
        prop_assert_eq!(common::source_level(result.counts), ops);
    }

    #[test]
    fn unparenthesised_chains_follow_precedence_and_associativity(
        first in 0i64..100,
        rest in prop::collection::vec((prop::sample::select(&["+", "-", "*"][..]), 0i64..100), 0..12),
    ) {
        let mut source = format!("let input n = n\nlet run n = {first}");
        for (op, v) in &rest {
            source.push_str(&format!(" {op} {v}"));
        }
        // Reference: products first, then sums and differences left to right.
        let mut terms = vec![(1i64, first)];
        for (op, v) in &rest {
            match *op {
                "*" => { let last = terms.last_mut().expect("one term"); last.1 = last.1.wrapping_mul(*v); }
                "+" => terms.push((1, *v)),
                _ => terms.push((-1, *v)),
            }
        }
        let value = terms.iter().fold(0i64, |acc, (sign, t)| acc.wrapping_add(sign * t));
        let program = Program::from_source("chain.ml", &source).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(program.count(0).map_err(|e| TestCaseError::fail(e.to_string()))?.digest, int_digest(wrap(value)));
    }
}
