//! Compiling array.ml's C externals that copy or fill (see [`crate::lower`]): what the 4.13
//! runtime's `runtime/array.c` does for `caml_array_sub`, `caml_array_append`,
//! `caml_array_concat` (all three through `caml_array_gather`), `caml_array_blit` and
//! `caml_array_fill`. The OCaml around them (`Array.copy`, `append`, `sub`, `blit`, `fill`
//! and their argument checks) is array.ml's own code, counted as such.
//!
//! What the C code does per element depends on the blocks, not on the static type:
//! - `caml_array_gather` allocates the result — nothing for an empty one (the atom), a flat
//!   block of doubles when any source is one, in the minor heap up to `Max_young_wosize`
//!   words, else directly in the major heap — and `memcpy`s the elements, except into a major
//!   block of values, which it fills element by element with `caml_initialize`;
//! - `caml_array_blit` `memmove`s into a float array or a young one, and calls `caml_modify`
//!   per element into a major one;
//! - `caml_array_fill` stores the value in a plain loop into a float array or a young one,
//!   and into a major one runs an inline copy of `caml_modify`'s test per element.
//!
//! A block is young when the run allocated it in the minor heap ([`Born::is_young_of_run`]):
//! `input`'s data is in the major heap by the time runs are timed, and a block of the run that
//! a minor collection promoted before the copy is taken as still young (when a collection
//! falls is a matter of phase; see [`crate::remembered`]).

use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::heap::{Born, MAX_YOUNG_WOSIZE};
use crate::ir::ArrOp;
use crate::lower::{ev, Ev, Lower, Operand};
use crate::lower_imperative::{in_range, invalid_argument};
use crate::machine::{Machine, R};
use crate::value::*;
use std::cell::RefCell;
use std::rc::Rc;

/// The array block of a value (the type checker guarantees it is one).
#[inline]
fn array(v: &Value) -> &Rc<MutBlock> {
    match v {
        Value::Mut(b) => b,
        other => unreachable!("expected an array, got {other:?}"),
    }
}

/// Whether stores into `b` need the collector's per-element care: a block of values that is
/// not young.
fn needs_barrier(b: &MutBlock) -> bool {
    !b.flat && !b.born.is_young_of_run()
}

/// `caml_array_gather`: the concatenation of `parts` (each an array, an offset and a length)
/// as a new array, counting `ArrayCopy` and the per-element work.
fn gather(m: &mut Machine<'_>, parts: &[(Rc<MutBlock>, usize, usize)]) -> Value {
    m.count(Counter::ArrayCopy);
    let size: usize = parts.iter().map(|(_, _, len)| len).sum();
    if size == 0 {
        return Value::Mut(Rc::new(MutBlock {
            tag: 0,
            flat: false,
            fields: RefCell::new(Box::new([])),
            born: Born::untracked(),
        }));
    }
    let flat = parts.iter().any(|(b, _, _)| b.flat);
    let mut elements = Vec::with_capacity(size);
    for (b, ofs, len) in parts {
        elements.extend_from_slice(&b.fields.borrow()[*ofs..ofs + len]);
    }
    let words = size as u64 + 1;
    if size <= MAX_YOUNG_WOSIZE as usize {
        m.count_n(Counter::BytesCopyWord, size);
        return Value::Mut(Rc::new(MutBlock {
            tag: 0,
            flat,
            fields: RefCell::new(elements.into_boxed_slice()),
            born: Born::new(words as u32),
        }));
    }
    // caml_alloc_shr; doubles are still memcpy'd, values go through caml_initialize, which
    // puts each young block it stores into the remembered set.
    let block = Rc::new(MutBlock {
        tag: 0,
        flat,
        fields: RefCell::new(vec![UNIT; size].into_boxed_slice()),
        born: Born::major(words),
    });
    if flat {
        m.count_n(Counter::BytesCopyWord, size);
        *block.fields.borrow_mut() = elements.into_boxed_slice();
    } else {
        m.count_n(Counter::ArrayInitWord, size);
        for (i, v) in elements.into_iter().enumerate() {
            crate::remembered::store(&block, i, v);
        }
    }
    Value::Mut(block)
}

/// All of array `b`, as a part of a gather.
fn whole(b: Rc<MutBlock>) -> (Rc<MutBlock>, usize, usize) {
    let len = b.fields.borrow().len();
    (b, 0, len)
}

/// The arrays of an `'a array list`, in order.
fn arrays_of_list(list: &Value) -> Vec<Rc<MutBlock>> {
    let mut out = Vec::new();
    let mut next = list;
    while let Value::Cons(cell) = next {
        out.push(Rc::clone(array(&cell.head)));
        next = &cell.tail;
    }
    out
}

impl Lower {
    /// One of array.ml's copying externals; its operands are the external's arguments,
    /// evaluated right to left as ocamlopt does.
    pub(crate) fn array_op(&self, op: ArrOp, args: Vec<Operand>, pos: Pos) -> Ev {
        let mut args = args.into_iter();
        let mut take = || args.next().expect("the primitive's arity");
        match op {
            ArrOp::Sub => {
                let (a, ofs, len) = (take(), take(), take());
                ev(move |m| {
                    let len = len.int(m)?;
                    let ofs = ofs.int(m)?;
                    let a = a.get(m)?;
                    let a = Rc::clone(array(&a));
                    if !in_range(ofs, len, a.fields.borrow().len()) {
                        return Err(invalid_argument(m, "Array.unsafe_sub", pos));
                    }
                    Ok(gather(m, &[(a, ofs as usize, len as usize)]))
                })
            }
            ArrOp::Append => {
                let (a1, a2) = (take(), take());
                ev(move |m| {
                    let a2 = a2.get(m)?;
                    let a1 = a1.get(m)?;
                    let parts: Vec<_> = [a1, a2]
                        .iter()
                        .map(|a| whole(Rc::clone(array(a))))
                        .collect();
                    Ok(gather(m, &parts))
                })
            }
            ArrOp::Concat => {
                let list = take();
                ev(move |m| {
                    let list = list.get(m)?;
                    let parts: Vec<_> = arrays_of_list(&list).into_iter().map(whole).collect();
                    Ok(gather(m, &parts))
                })
            }
            ArrOp::Blit => {
                let (src, src_ofs, dst, dst_ofs, len) = (take(), take(), take(), take(), take());
                ev(move |m| {
                    let len = len.int(m)?;
                    let dst_ofs = dst_ofs.int(m)?;
                    let dst = dst.get(m)?;
                    let src_ofs = src_ofs.int(m)?;
                    let src = src.get(m)?;
                    blit(m, array(&src), src_ofs, array(&dst), dst_ofs, len, pos)
                })
            }
            ArrOp::Fill => {
                let (a, ofs, len, v) = (take(), take(), take(), take());
                ev(move |m| {
                    let v = v.get(m)?;
                    let len = len.int(m)?;
                    let ofs = ofs.int(m)?;
                    let a = a.get(m)?;
                    let a = array(&a);
                    m.count(Counter::BytesCopy);
                    if !in_range(ofs, len, a.fields.borrow().len()) {
                        return Err(invalid_argument(m, "Array.unsafe_fill", pos));
                    }
                    let (ofs, len) = (ofs as usize, len as usize);
                    let per_element = if needs_barrier(a) {
                        Counter::ArrayBarrierWord
                    } else {
                        Counter::ArrayMakeWord
                    };
                    m.count_n(per_element, len);
                    for i in ofs..ofs + len {
                        crate::remembered::store(a, i, v.clone());
                    }
                    v.release();
                    Ok(UNIT)
                })
            }
        }
    }
}

/// `caml_array_blit`: a `memmove` into a float array or a young one, `caml_modify` per
/// element into a major one (in descending order when the block overlaps itself forwards,
/// which leaves the same elements).
fn blit(
    m: &mut Machine<'_>,
    src: &MutBlock,
    src_ofs: i64,
    dst: &MutBlock,
    dst_ofs: i64,
    len: i64,
    pos: Pos,
) -> R<Value> {
    m.count(Counter::BytesCopy);
    let (src_len, dst_len) = (src.fields.borrow().len(), dst.fields.borrow().len());
    if !in_range(src_ofs, len, src_len) || !in_range(dst_ofs, len, dst_len) {
        return Err(invalid_argument(m, "Array.unsafe_blit", pos));
    }
    let (s, d, n) = (src_ofs as usize, dst_ofs as usize, len as usize);
    // Copied out first: source and destination may be the same block.
    let moved = src.fields.borrow()[s..s + n].to_vec();
    // Only into an old array, so each call takes caml_modify's major path: CamlModify whole,
    // never CamlModifyYoung (a young array is `memmove`d).
    let per_element = if needs_barrier(dst) {
        Counter::CamlModify
    } else {
        Counter::BytesCopyWord
    };
    m.count_n(per_element, n);
    for (i, v) in moved.into_iter().enumerate() {
        crate::remembered::store(dst, d + i, v);
    }
    Ok(UNIT)
}
