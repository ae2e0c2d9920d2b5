//! Number literals: decimal, hexadecimal, octal and binary integers (63-bit), decimal and
//! hexadecimal floats.

use super::{LexError, Lexer, Tok};
use crate::ast::Pos;

impl Lexer<'_> {
    pub(super) fn number(&mut self, pos: Pos) -> Result<Tok, LexError> {
        let start = self.at;
        let radix = if self.peek(0) == b'0'
            && matches!(self.peek(1), b'x' | b'X' | b'o' | b'O' | b'b' | b'B')
        {
            let r = match self.peek(1) {
                b'x' | b'X' => 16,
                b'o' | b'O' => 8,
                _ => 2,
            };
            self.bump();
            self.bump();
            r
        } else {
            10
        };
        let mut is_float = false;
        while self.at < self.src.len() {
            let c = self.peek(0);
            let ok = match c {
                b'0'..=b'9' | b'_' => true,
                b'a'..=b'f' | b'A'..=b'F' if radix == 16 => true,
                b'.' if radix == 10 || radix == 16 => {
                    is_float = true;
                    true
                }
                // The exponent: `e` in decimal, `p` in a hexadecimal float
                // (`0x1.921fb54442d18p+1`, float.ml's `pi`).
                c if radix == 10 && matches!(c, b'e' | b'E')
                    || radix == 16 && matches!(c, b'p' | b'P') =>
                {
                    is_float = true;
                    if matches!(self.peek(1), b'+' | b'-') {
                        self.bump();
                    }
                    true
                }
                _ => false,
            };
            if !ok {
                break;
            }
            self.bump();
        }
        if self.peek(0).is_ascii_alphabetic() {
            let suffix = self.peek(0) as char;
            if self.library {
                self.bump();
                return Ok(Tok::Op(format!("<{suffix}-suffixed literal>")));
            }
            return self.error(
                pos,
                format!("unsupported: number literal with suffix '{suffix}' (only int and float)"),
            );
        }
        let text: String = std::str::from_utf8(&self.src[start..self.at])
            .unwrap_or("")
            .chars()
            .filter(|&c| c != '_')
            .collect();
        if is_float && radix == 16 {
            return hex_float(&text[2..])
                .map(Tok::Float)
                .ok_or(())
                .or_else(|_| self.error(pos, format!("bad float literal {text}")));
        }
        if is_float {
            return text
                .parse::<f64>()
                .map(Tok::Float)
                .or_else(|_| self.error(pos, format!("bad float literal {text}")));
        }
        let digits = if radix == 10 { &text[..] } else { &text[2..] };
        // OCaml ints are 63-bit; literals up to 2^62 - 1 (decimal) or 2^63 - 1 (hex, wrapping) are accepted.
        let value = u64::from_str_radix(digits, radix).ok().filter(|v| {
            if radix == 10 {
                *v <= (1u64 << 62) // 2^62 itself is allowed only as the operand of unary minus
            } else {
                *v < (1u64 << 63)
            }
        });
        match value {
            Some(v) => Ok(Tok::Int(crate::value::wrap63(v as i64))),
            None => self.error(
                pos,
                format!("integer literal {text} exceeds the range of OCaml's 63-bit int"),
            ),
        }
    }
}

/// The value of a hexadecimal float literal's digits after `0x` (`1.921fb54442d18p+1`): the
/// mantissa's digits as an integer, rounded once to a double, scaled by a power of two.
fn hex_float(digits: &str) -> Option<f64> {
    let (mantissa, exponent) = match digits.find(['p', 'P']) {
        Some(at) => (&digits[..at], digits[at + 1..].parse::<i32>().ok()?),
        None => (digits, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    if all.is_empty() || all.len() > 16 {
        return None;
    }
    let value = u64::from_str_radix(&all, 16).ok()? as f64;
    let scale = exponent.checked_sub(4 * fraction.len() as i32)?;
    Some(value * 2f64.powi(scale))
}
