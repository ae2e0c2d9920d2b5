//! Compiling the string and `bytes` primitives into closures (see [`crate::lower`]): what
//! ocamlopt 4.13 emits for each external of string.ml, bytes.ml and stdlib.ml. The Stdlib
//! functions written in OCaml around them (`^`, `Bytes.make`, `Bytes.copy`, `String.sub`, …)
//! are in [`crate::prelude`] and counted as code.

use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::heap::{Born, MAX_YOUNG_WOSIZE};
use crate::ir::{InRegister, StrOp};
use crate::lower::{ev, Ev, Lower, Operand};
use crate::lower_imperative::{in_range, invalid_argument};
use crate::value::*;
use std::cell::RefCell;
use std::rc::Rc;

/// Bytes per word: the unit `BytesCopyWord` counts (memmove and memset move words).
const WORD_BYTES: usize = 8;

/// The string block of a value (the type checker guarantees it is one).
#[inline]
fn string(v: &Value) -> &StrBlock {
    match v {
        Value::Str(s) => s,
        other => unreachable!("expected a string, got {other:?}"),
    }
}

/// Words moved by a memmove or memset of `len` bytes.
fn words_of(len: i64) -> usize {
    (len as usize).div_ceil(WORD_BYTES)
}

impl Lower {
    /// A string or `bytes` primitive; its operands are the external's arguments, evaluated
    /// right to left as ocamlopt does.
    pub(crate) fn string_op(&self, op: StrOp, args: Vec<Operand>, pos: Pos) -> Ev {
        let mut args = args.into_iter();
        let mut take = || args.next().expect("the primitive's arity");
        match op {
            StrOp::Length => {
                let s = take();
                ev(move |m| {
                    let s = s.get(m)?;
                    m.count(Counter::StringLength);
                    let n = string(&s).bytes.borrow().len();
                    Ok(Value::Int(n as i64))
                })
            }
            StrOp::Get { checked, known } => {
                let (s, i) = (take(), take());
                // An index out of bounds raises even for `unsafe_get`: native code would
                // read the heap beyond, and the run would not be the one timed.
                let counter = match known {
                    InRegister::Element => None,
                    InRegister::Length => Some(Counter::StringGetKnownLength),
                    InRegister::Nothing if checked => Some(Counter::StringGet),
                    InRegister::Nothing => Some(Counter::StringUnsafeGet),
                };
                ev(move |m| {
                    let i = i.int(m)?;
                    let s = s.get(m)?;
                    if let Some(counter) = counter {
                        m.count(counter);
                    }
                    let byte = string(&s).bytes.borrow().get(i as usize).copied();
                    match byte {
                        Some(b) if i >= 0 => Ok(Value::Int(i64::from(b))),
                        _ => Err(invalid_argument(m, "index out of bounds", pos)),
                    }
                })
            }
            StrOp::Set { checked, shared } => {
                let (s, i, c) = (take(), take(), take());
                let counter = match (checked, shared) {
                    (true, _) => Counter::StringSet,
                    // The read's check untagged the index already: the `movb` alone.
                    (false, true) => Counter::FieldSet,
                    (false, false) => Counter::BytesUnsafeSet,
                };
                ev(move |m| {
                    let c = c.int(m)?;
                    let i = i.int(m)?;
                    let s = s.get(m)?;
                    m.count(counter);
                    let mut bytes = string(&s).bytes.borrow_mut();
                    match bytes.get_mut(i as usize) {
                        Some(b) if i >= 0 => {
                            *b = c as u8;
                            Ok(UNIT)
                        }
                        _ => {
                            drop(bytes);
                            Err(invalid_argument(m, "index out of bounds", pos))
                        }
                    }
                })
            }
            StrOp::Create => {
                let n = take();
                ev(move |m| {
                    let n = n.int(m)?;
                    m.count(Counter::BytesCreate);
                    // Sys.max_string_length is far beyond any run; refuse what could not be
                    // allocated here either.
                    if !(0..1 << 40).contains(&n) {
                        return Err(invalid_argument(m, "Bytes.create", pos));
                    }
                    // caml_alloc_string: a block of 1 + (n + 8) / 8 words (the empty string
                    // too), in the minor heap up to Max_young_wosize words of body.
                    let words = string_words(n as usize);
                    let born = if words - 1 > u64::from(MAX_YOUNG_WOSIZE) {
                        Born::major(words)
                    } else {
                        let born = Born::new(words as u32);
                        // The header and the last word (the padding's count) are written.
                        crate::heap::left_unwritten(words.saturating_sub(2));
                        born
                    };
                    Ok(Value::Str(Rc::new(StrBlock {
                        bytes: RefCell::new(vec![0; n as usize].into_boxed_slice()),
                        born,
                    })))
                })
            }
            StrOp::FormatInt => {
                let (format, n) = (take(), take());
                ev(move |m| {
                    let n = n.int(m)?;
                    let format = format.get(m)?;
                    m.count(Counter::FormatInt);
                    // Only `string_of_int`'s `%d` reaches `format_int` (stdlib.ml does not
                    // export it); anything else would be the interpreter's own mistake.
                    if &**string(&format).bytes.borrow() != b"%d" {
                        return Err(m.fatal(pos, "format_int with a format other than %d".into()));
                    }
                    // caml_alloc_sprintf copies the text into caml_alloc_string's block.
                    let text = n.to_string().into_bytes();
                    m.count_n(Counter::FormatIntChar, text.len());
                    let born = Born::new(string_words(text.len()) as u32);
                    Ok(Value::Str(Rc::new(StrBlock {
                        bytes: RefCell::new(text.into_boxed_slice()),
                        born,
                    })))
                })
            }
            StrOp::Fill => {
                let (s, ofs, len, c) = (take(), take(), take(), take());
                ev(move |m| {
                    let c = c.int(m)?;
                    let len = len.int(m)?;
                    let ofs = ofs.int(m)?;
                    let s = s.get(m)?;
                    m.count(Counter::BytesCopy);
                    let mut bytes = string(&s).bytes.borrow_mut();
                    if !in_range(ofs, len, bytes.len()) {
                        drop(bytes);
                        return Err(invalid_argument(m, "Bytes.unsafe_fill", pos));
                    }
                    m.count_n(Counter::BytesCopyWord, words_of(len));
                    string(&s).born.written(words_of(len) as u64);
                    bytes[ofs as usize..(ofs + len) as usize].fill(c as u8);
                    Ok(UNIT)
                })
            }
            StrOp::Blit => {
                let (src, src_ofs, dst, dst_ofs, len) = (take(), take(), take(), take(), take());
                ev(move |m| {
                    let len = len.int(m)?;
                    let dst_ofs = dst_ofs.int(m)?;
                    let dst = dst.get(m)?;
                    let src_ofs = src_ofs.int(m)?;
                    let src = src.get(m)?;
                    m.count(Counter::BytesCopy);
                    let (from, to) = (string(&src), string(&dst));
                    let (src_len, dst_len) = (from.bytes.borrow().len(), to.bytes.borrow().len());
                    if !in_range(src_ofs, len, src_len) || !in_range(dst_ofs, len, dst_len) {
                        return Err(invalid_argument(m, "Bytes.unsafe_blit", pos));
                    }
                    m.count_n(Counter::BytesCopyWord, words_of(len));
                    to.born.written(words_of(len) as u64);
                    let (s, d, n) = (src_ofs as usize, dst_ofs as usize, len as usize);
                    // The bytes moved are copied out first: source and destination may be
                    // the same block (memmove).
                    let moved = from.bytes.borrow()[s..s + n].to_vec();
                    to.bytes.borrow_mut()[d..d + n].copy_from_slice(&moved);
                    Ok(UNIT)
                })
            }
        }
    }
}
