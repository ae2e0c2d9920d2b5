//! Tokens of the supported OCaml subset, with their source positions.
//!
//! Comments nest and may contain string literals, as in OCaml. Attributes (`[@inline never]`,
//! `[@@@warning "-8"]`) are dropped here, after tokenising, because they never change what the
//! code computes; an inline attribute, which changes what ocamlopt emits (see
//! [`crate::inline`]), is kept on the token it follows for the parser to read.

use crate::ast::{Inline, Pos};

mod number;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// Lower-case identifier or `_`-prefixed name (`x`, `fold_left`, `x'`).
    Ident(String),
    /// Capitalised identifier: a constructor or (unsupported) module name.
    Uident(String),
    Int(i64),
    Float(f64),
    Str(String),
    Char(u8),
    /// A type variable `'a`.
    TyVar(String),
    Kw(Kw),
    /// Any operator or punctuation, spelled as in the source (`+`, `::`, `->`, `(`, `;;`).
    Op(String),
    Eof,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kw {
    Let,
    Rec,
    In,
    And,
    Fun,
    Function,
    Match,
    With,
    If,
    Then,
    Else,
    Try,
    Type,
    Of,
    Exception,
    Begin,
    End,
    True,
    False,
    When,
    As,
    Mod,
    Land,
    Lor,
    Lxor,
    Lsl,
    Lsr,
    Asr,
    Or,
    For,
    To,
    Downto,
    Do,
    Done,
    While,
    Mutable,
    /// A keyword of full OCaml that the subset does not support (`for`, `module`, …).
    Unsupported(&'static str),
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: Pos,
    /// An `[@inline …]` (or, item-level, `[@@inline …]`) attribute that followed this token
    /// in the source: the only attribute that changes the code ocamlopt emits here.
    pub inline: Option<InlineAttribute>,
}

impl Token {
    pub(crate) fn new(tok: Tok, pos: Pos) -> Token {
        Token {
            tok,
            pos,
            inline: None,
        }
    }
}

/// An inline attribute as written: what it asks, and whether it is item-level (`[@@…]`,
/// after a whole top-level binding) rather than on the `let` or `and` it follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InlineAttribute {
    pub inline: Inline,
    pub item: bool,
}

#[derive(Debug)]
pub(crate) struct LexError {
    pub pos: Pos,
    pub message: String,
}

const UNSUPPORTED_KEYWORDS: &[&str] = &[
    "assert",
    "class",
    "constraint",
    "external",
    "functor",
    "include",
    "inherit",
    "initializer",
    "lazy",
    "method",
    "module",
    "new",
    "nonrec",
    "object",
    "open",
    "private",
    "sig",
    "struct",
    "val",
    "virtual",
];

fn keyword(word: &str) -> Option<Kw> {
    Some(match word {
        "let" => Kw::Let,
        "rec" => Kw::Rec,
        "in" => Kw::In,
        "and" => Kw::And,
        "fun" => Kw::Fun,
        "function" => Kw::Function,
        "match" => Kw::Match,
        "with" => Kw::With,
        "if" => Kw::If,
        "then" => Kw::Then,
        "else" => Kw::Else,
        "try" => Kw::Try,
        "type" => Kw::Type,
        "of" => Kw::Of,
        "exception" => Kw::Exception,
        "begin" => Kw::Begin,
        "end" => Kw::End,
        "true" => Kw::True,
        "false" => Kw::False,
        "when" => Kw::When,
        "as" => Kw::As,
        "mod" => Kw::Mod,
        "land" => Kw::Land,
        "lor" => Kw::Lor,
        "lxor" => Kw::Lxor,
        "lsl" => Kw::Lsl,
        "lsr" => Kw::Lsr,
        "asr" => Kw::Asr,
        "or" => Kw::Or,
        "for" => Kw::For,
        "to" => Kw::To,
        "downto" => Kw::Downto,
        "do" => Kw::Do,
        "done" => Kw::Done,
        "while" => Kw::While,
        "mutable" => Kw::Mutable,
        _ => {
            return UNSUPPORTED_KEYWORDS
                .iter()
                .find(|k| **k == word)
                .map(|k| Kw::Unsupported(k))
        }
    })
}

fn is_op_char(c: u8) -> bool {
    b"!$%&*+-./:<=>?@^|~".contains(&c)
}

struct Lexer<'a> {
    src: &'a [u8],
    at: usize,
    line: u32,
    line_start: usize,
    /// Lenient about literals, see [`tokenize_library`].
    library: bool,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: (self.at - self.line_start) as u32 + 1,
            file: 0,
        }
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.at + ahead).copied().unwrap_or(0)
    }

    fn bump(&mut self) -> u8 {
        let c = self.peek(0);
        self.at += 1;
        if c == b'\n' {
            self.line += 1;
            self.line_start = self.at;
        }
        c
    }

    fn error<T>(&self, pos: Pos, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            pos,
            message: message.into(),
        })
    }

    fn skip_comment(&mut self, start: Pos) -> Result<(), LexError> {
        // Positioned just after "(*".
        let mut depth = 1;
        while depth > 0 {
            if self.at >= self.src.len() {
                return self.error(start, "unterminated comment");
            }
            match (self.peek(0), self.peek(1)) {
                (b'(', b'*') => {
                    self.bump();
                    self.bump();
                    depth += 1;
                }
                (b'*', b')') => {
                    self.bump();
                    self.bump();
                    depth -= 1;
                }
                (b'"', _) => {
                    let p = self.pos();
                    self.bump();
                    self.string_body(p)?;
                }
                _ => {
                    self.bump();
                }
            }
        }
        Ok(())
    }

    fn escape(&mut self, pos: Pos) -> Result<u8, LexError> {
        // Positioned just after the backslash.
        let c = self.bump();
        Ok(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 8,
            b' ' => b' ',
            b'\\' | b'"' | b'\'' => c,
            b'0'..=b'9' => {
                let (d1, d2) = (self.bump(), self.bump());
                if !d1.is_ascii_digit() || !d2.is_ascii_digit() {
                    return self.error(pos, "bad decimal escape in literal");
                }
                let v =
                    u32::from(c - b'0') * 100 + u32::from(d1 - b'0') * 10 + u32::from(d2 - b'0');
                u8::try_from(v).or_else(|_| self.error(pos, "escape out of range"))?
            }
            b'x' => {
                let hex = [self.bump(), self.bump()];
                let text = std::str::from_utf8(&hex).unwrap_or("");
                u8::from_str_radix(text, 16).or_else(|_| self.error(pos, "bad hex escape"))?
            }
            _ => return self.error(pos, "unknown escape sequence in literal"),
        })
    }

    fn string_body(&mut self, start: Pos) -> Result<String, LexError> {
        let mut bytes = Vec::new();
        loop {
            if self.at >= self.src.len() {
                return self.error(start, "unterminated string literal");
            }
            match self.bump() {
                b'"' => break,
                b'\\' => {
                    if self.peek(0) == b'\n' {
                        // Line continuation: skip the newline and the next line's indentation.
                        self.bump();
                        while matches!(self.peek(0), b' ' | b'\t') {
                            self.bump();
                        }
                    } else {
                        let p = self.pos();
                        bytes.push(self.escape(p)?);
                    }
                }
                c => bytes.push(c),
            }
        }
        String::from_utf8(bytes).or_else(|_| self.error(start, "string literal is not valid UTF-8"))
    }

    fn next_token(&mut self) -> Result<Option<Token>, LexError> {
        loop {
            match self.peek(0) {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0c => {
                    self.bump();
                }
                b'(' if self.peek(1) == b'*' && self.peek(2) != b')' => {
                    let p = self.pos();
                    self.bump();
                    self.bump();
                    self.skip_comment(p)?;
                }
                _ => break,
            }
        }
        if self.at >= self.src.len() {
            return Ok(None);
        }
        let pos = self.pos();
        let c = self.peek(0);
        let tok = match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = self.at;
                while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'\'')
                {
                    self.bump();
                }
                let word = std::str::from_utf8(&self.src[start..self.at])
                    .unwrap_or("")
                    .to_string();
                if let Some(kw) = keyword(&word) {
                    Tok::Kw(kw)
                } else if c.is_ascii_uppercase() {
                    Tok::Uident(word)
                } else {
                    Tok::Ident(word)
                }
            }
            b'0'..=b'9' => self.number(pos)?,
            b'"' => {
                self.bump();
                Tok::Str(self.string_body(pos)?)
            }
            b'\'' => {
                // Either a character literal ('a', '\n') or a type variable ('a).
                if self.peek(1) == b'\\' {
                    self.bump();
                    self.bump();
                    let ch = self.escape(pos)?;
                    if self.bump() != b'\'' {
                        return self.error(pos, "unterminated character literal");
                    }
                    Tok::Char(ch)
                } else if self.peek(2) == b'\'' && self.peek(1) != 0 {
                    self.bump();
                    let ch = self.bump();
                    self.bump();
                    Tok::Char(ch)
                } else {
                    self.bump();
                    let start = self.at;
                    while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'\'')
                    {
                        self.bump();
                    }
                    if start == self.at {
                        return self.error(pos, "expected a type variable name after '");
                    }
                    Tok::TyVar(
                        std::str::from_utf8(&self.src[start..self.at])
                            .unwrap_or("")
                            .to_string(),
                    )
                }
            }
            b'(' | b')' | b'[' | b']' | b',' | b'{' | b'}' | b'`' => {
                self.bump();
                // "[@", "[@@", "[@@@" open attributes; "[|" is an array (unsupported, but one token).
                if c == b'[' && self.peek(0) == b'@' {
                    let mut s = String::from("[");
                    while self.peek(0) == b'@' {
                        s.push(self.bump() as char);
                    }
                    Tok::Op(s)
                } else if c == b'[' && self.peek(0) == b'|' {
                    self.bump();
                    Tok::Op("[|".into())
                } else {
                    Tok::Op((c as char).to_string())
                }
            }
            b';' => {
                self.bump();
                if self.peek(0) == b';' {
                    self.bump();
                    Tok::Op(";;".into())
                } else {
                    Tok::Op(";".into())
                }
            }
            b'#' => return self.error(pos, "unsupported: '#' (directives, method calls)"),
            _ if is_op_char(c) => {
                let start = self.at;
                while is_op_char(self.peek(0)) {
                    // "|]" closes an array literal; don't glue it onto an operator.
                    self.bump();
                }
                Tok::Op(
                    std::str::from_utf8(&self.src[start..self.at])
                        .unwrap_or("")
                        .to_string(),
                )
            }
            _ => {
                let shown = if c.is_ascii_graphic() {
                    format!("'{}'", c as char)
                } else {
                    format!("byte 0x{c:02x}")
                };
                return self.error(pos, format!("unexpected character {shown}"));
            }
        };
        Ok(Some(Token::new(tok, pos)))
    }
}

/// Tokenises `source`, dropping comments and attributes; the last token is always `Eof`.
pub(crate) fn tokenize(source: &str) -> Result<Vec<Token>, LexError> {
    tokenize_with(source, false)
}

/// Tokenises a Stdlib source, of which only some phrases are ever parsed: a literal the subset
/// does not have (`0x7FF0_0000_0000_0000L`) becomes a token no rule accepts, so that only a
/// phrase that uses one fails, and where it is parsed.
pub(crate) fn tokenize_library(source: &str) -> Result<Vec<Token>, LexError> {
    tokenize_with(source, true)
}

fn tokenize_with(source: &str, library: bool) -> Result<Vec<Token>, LexError> {
    let mut lexer = Lexer {
        src: source.as_bytes(),
        at: 0,
        line: 1,
        line_start: 0,
        library,
    };
    let mut tokens = Vec::new();
    while let Some(t) = lexer.next_token()? {
        tokens.push(t);
    }
    let eof = Token::new(Tok::Eof, lexer.pos());
    drop_attributes(tokens, eof)
}

fn drop_attributes(tokens: Vec<Token>, eof: Token) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::with_capacity(tokens.len() + 1);
    let mut iter = tokens.into_iter();
    while let Some(t) = iter.next() {
        let opens_attribute = matches!(&t.tok, Tok::Op(s) if s.starts_with("[@"));
        if !opens_attribute {
            out.push(t);
            continue;
        }
        let mut depth = 1usize;
        let mut words = Vec::new();
        for inner in iter.by_ref() {
            match &inner.tok {
                Tok::Op(s) if s.starts_with('[') => depth += 1,
                Tok::Op(s) if s == "]" || s == "|]" => depth -= 1,
                Tok::Ident(word) => words.push(word.clone()),
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
        if depth != 0 {
            return Err(LexError {
                pos: t.pos,
                message: "unterminated attribute".into(),
            });
        }
        let item = matches!(&t.tok, Tok::Op(s) if s == "[@@");
        if let (Some(inline), Some(before)) = (inline_attribute(&words), out.last_mut()) {
            before.inline = Some(InlineAttribute { inline, item });
        }
    }
    out.push(eof);
    Ok(out)
}

/// What an attribute whose identifiers are `words` asks of inlining: `[@inline]` and
/// `[@inline always]` (4.13's `Always_inline`), `[@inline never]`, also as `ocaml.inline`.
fn inline_attribute(words: &[String]) -> Option<Inline> {
    let name_end = match words {
        [first, second, ..] if first == "ocaml" && second == "inline" => 2,
        [first, ..] if first == "inline" => 1,
        _ => return None,
    };
    match words.get(name_end).map(String::as_str) {
        None | Some("always") => Some(Inline::Always),
        Some("never") => Some(Inline::Never),
        Some(_) => None,
    }
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
