//! The lexer's unit tests.

use super::*;

fn toks(s: &str) -> Vec<Tok> {
    tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
}

#[test]
fn comments_nest_and_may_contain_strings() {
    assert_eq!(
        toks("a (* b (* c *) \"*)\" d *) e"),
        vec![Tok::Ident("a".into()), Tok::Ident("e".into()), Tok::Eof]
    );
}

#[test]
fn attributes_are_dropped() {
    let t = toks("let[@inline never] f x = x [@@inline] [@@@warning \"-8\"]");
    assert_eq!(t[0], Tok::Kw(Kw::Let));
    assert_eq!(t[1], Tok::Ident("f".into()));
    assert_eq!(t.len(), 6);
}

#[test]
fn inline_attributes_stay_on_the_token_they_follow() {
    let inline = |s: &str| -> Vec<Option<InlineAttribute>> {
        tokenize(s).unwrap().into_iter().map(|t| t.inline).collect()
    };
    let on = |inline, item| Some(InlineAttribute { inline, item });
    // `let[@inline never] f x = x [@@inline] [@@@warning "-8"]`: on `let`, and item-level on
    // the last `x`; the warning attribute is no inline attribute.
    let t = inline("let[@inline never] f x = x [@@inline] [@@@warning \"-8\"]");
    assert_eq!(t[0], on(Inline::Never, false));
    assert_eq!(t[4], on(Inline::Always, true));
    assert_eq!(t.iter().filter(|a| a.is_some()).count(), 2);
    assert_eq!(
        inline("let[@ocaml.inline always] g = 1")[0],
        on(Inline::Always, false)
    );
    // Another attribute, or an inline attribute with a payload this subset does not read.
    assert_eq!(inline("let[@warning \"-8\"] h = 1")[0], None);
    assert_eq!(inline("let[@inline maybe] h = 1")[0], None);
}

#[test]
fn character_literals_and_type_variables() {
    assert_eq!(
        toks("'a' 'a '\\n'"),
        vec![
            Tok::Char(b'a'),
            Tok::TyVar("a".into()),
            Tok::Char(b'\n'),
            Tok::Eof
        ]
    );
}

#[test]
fn numbers() {
    assert_eq!(
        toks("0x1F 1_000 1.5e3 2."),
        vec![
            Tok::Int(31),
            Tok::Int(1000),
            Tok::Float(1500.0),
            Tok::Float(2.0),
            Tok::Eof
        ]
    );
    assert!(tokenize("12L").is_err());
}

#[test]
fn hexadecimal_floats() {
    // float.ml's `pi`, and 1.5 × 2, 16 × 2⁻⁴, 10: the mantissa's hex digits over 4 bits each
    // of fraction, scaled by the binary exponent.
    assert_eq!(
        toks("0x1.921fb54442d18p+1 0x1.8p1 0x10p-4 0xAp0 0x.8p0"),
        vec![
            Tok::Float(std::f64::consts::PI),
            Tok::Float(3.0),
            Tok::Float(1.0),
            Tok::Float(10.0),
            Tok::Float(0.5),
            Tok::Eof
        ]
    );
    assert!(tokenize("0x1.p").is_err());
}

#[test]
fn operators_are_maximal_munch() {
    assert_eq!(
        toks("a::b|>c"),
        vec![
            Tok::Ident("a".into()),
            Tok::Op("::".into()),
            Tok::Ident("b".into()),
            Tok::Op("|>".into()),
            Tok::Ident("c".into()),
            Tok::Eof
        ]
    );
}

#[test]
fn positions_are_one_based_lines_and_columns() {
    let t = tokenize("let\n  x").unwrap();
    assert_eq!((t[1].pos.line, t[1].pos.col), (2, 3));
}
