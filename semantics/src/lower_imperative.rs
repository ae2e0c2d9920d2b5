//! Compiling records, references, arrays and loops into closures (see [`crate::lower`]).

use crate::catalogue::Counter;
use crate::heap::{Born, MAX_YOUNG_WOSIZE};
use crate::ir::*;
use crate::lower::{ev, Ev, Lower, Operand, FLOAT_BOX_WORDS};
use crate::machine::{Machine, R};
use crate::types::EXN_INVALID_ARGUMENT;
use crate::value::*;
use std::cell::RefCell;
use std::rc::Rc;

/// The block of a record, reference or array (the type checker guarantees it is one).
#[inline]
fn block(v: &Value) -> &MutBlock {
    match v {
        Value::Mut(b) => b,
        other => unreachable!("expected a record or an array, got {other:?}"),
    }
}

/// Whether elements `ofs .. ofs + len` lie in a block of `size` elements (bytes of a string,
/// fields of an array): the runtime's check before a copy, fill or blit.
pub(crate) fn in_range(ofs: i64, len: i64, size: usize) -> bool {
    ofs >= 0
        && len >= 0
        && ofs
            .checked_add(len)
            .is_some_and(|end| end as u64 <= size as u64)
}

/// Raises `Invalid_argument message` at `pos`, as the runtime's bounds checks and the Stdlib's
/// argument checks do.
#[cold]
pub(crate) fn invalid_argument(
    m: &mut Machine<'_>,
    message: &str,
    pos: crate::ast::Pos,
) -> crate::machine::Thrown {
    let msg = StrBlock::constant(message);
    m.raise(EXN_INVALID_ARGUMENT, vec![msg], pos)
}

/// The element index `i` of `b`, or the exception ocamlopt's bounds check raises.
#[inline]
fn index(m: &mut Machine<'_>, b: &MutBlock, i: i64, pos: crate::ast::Pos) -> R<usize> {
    let len = b.fields.borrow().len();
    if i < 0 || i as usize >= len {
        return Err(invalid_argument(m, "index out of bounds", pos));
    }
    Ok(i as usize)
}

impl Machine<'_> {
    /// Counts a call of `caml_modify` on a field of `block`: `CamlModifyYoung` with the
    /// probability that the block is still in the minor heap, where the call returns at once,
    /// and `CamlModify` otherwise. The expectation is summed over the run and rounded, as
    /// FarLoad's is, but one store at a time (a store counts young when the running sum passes
    /// the next half): the counts by function, the return ring and the loops' clocks then see
    /// one call per store, as before the split.
    pub(crate) fn caml_modify(&mut self, block: &MutBlock) {
        self.young_modify_excess += block.born.young_probability();
        if self.young_modify_excess >= 0.5 {
            self.young_modify_excess -= 1.0;
            self.count(Counter::CamlModifyYoung);
        } else {
            self.count(Counter::CamlModify);
        }
    }
}

/// Counts the store's write barrier, if it has one, into `block`.
fn barrier(m: &mut Machine<'_>, store: StoreKind, block: &MutBlock) {
    if store == StoreKind::Barrier {
        m.caml_modify(block);
    }
}

impl Lower {
    /// `Imp`, `Assign`, `For` and `While` nodes.
    pub(crate) fn imperative(&self, code: Code) -> Ev {
        match code {
            Code::Imp(node) => self.imp(*node),
            Code::Assign(slot, value) => {
                let value = self.operand(*value);
                ev(move |m| {
                    let v = value.get(m)?;
                    m.set_local(slot, v);
                    Ok(UNIT)
                })
            }
            Code::For(f) => {
                let ForLoop {
                    slot,
                    from,
                    until,
                    down,
                    body,
                    chain,
                } = *f;
                let polls = crate::poll::loop_polls(&[&body]);
                let (from, until, body) = (
                    self.operand(from),
                    self.operand(until),
                    self.code(body, false),
                );
                let entry = if down {
                    Counter::IntCondLT
                } else {
                    Counter::IntCondGT
                };
                let step: i64 = if down { -1 } else { 1 };
                ev(move |m| {
                    let lo = from.int(m)?;
                    let hi = until.int(m)?;
                    m.count(entry);
                    if (!down && lo > hi) || (down && lo < hi) {
                        return Ok(UNIT);
                    }
                    let mut i = lo;
                    let mut mark = m.iteration_mark();
                    loop {
                        m.count(Counter::ForIter);
                        m.set_local(slot, Value::Int(i));
                        body(m)?.release();
                        m.iteration_ended(chain, &mut mark);
                        if i == hi {
                            return Ok(UNIT);
                        }
                        if polls {
                            m.count(Counter::BackEdgePoll);
                        }
                        i += step;
                    }
                })
            }
            Code::While(w) => {
                let (cond, body, chain, resolve) = *w;
                let polls = crate::poll::loop_polls(&[&cond, &body]);
                let (cond, body) = (self.cond(cond), self.code(body, false));
                let site = self.resolving_site(resolve.resolve, resolve.waits_on_chain);
                ev(move |m| {
                    let mut mark = m.iteration_mark();
                    loop {
                        let go_on = cond(m)?;
                        if !m.branch(site, go_on) {
                            m.loop_instance_exited(&mark);
                            break;
                        }
                        m.count(Counter::WhileIter);
                        body(m)?.release();
                        if polls {
                            m.count(Counter::BackEdgePoll);
                        }
                        m.iteration_ended(chain, &mut mark);
                    }
                    Ok(UNIT)
                })
            }
            other => unreachable!("not an imperative node: {other:?}"),
        }
    }

    fn imp(&self, node: ImpNode) -> Ev {
        let ImpNode { op, args, pos } = node;
        if let ImpOp::Make { flat, tag } = op {
            return self.make(flat, tag, args);
        }
        let mut args: Vec<Operand> = args
            .into_vec()
            .into_iter()
            .map(|a| self.operand(a))
            .collect();
        if let ImpOp::Str(op) = op {
            return self.string_op(op, args, pos);
        }
        if let ImpOp::Arr(op) = op {
            return self.array_op(op, args, pos);
        }
        let mut take = || args.remove(0);
        match op {
            ImpOp::Make { .. } | ImpOp::Str(_) | ImpOp::Arr(_) => unreachable!("built above"),
            ImpOp::GetField { index, .. } => {
                let r = take();
                ev(move |m| {
                    let r = r.get(m)?;
                    m.count(Counter::TupleMatch);
                    // An immutable inline record is its constructor's (immutable) block.
                    let v = match &r {
                        Value::Block(b) => b.fields[index as usize].clone(),
                        r => block(r).fields.borrow()[index as usize].clone(),
                    };
                    Ok(v)
                })
            }
            ImpOp::SetField { index, store } => {
                let (r, v) = (take(), take());
                ev(move |m| {
                    let v = v.get(m)?;
                    let r = r.get(m)?;
                    match store {
                        StoreKind::Plain => m.count(Counter::FieldSet),
                        StoreKind::Barrier => m.caml_modify(block(&r)),
                    }
                    crate::remembered::store(block(&r), index as usize, v);
                    Ok(UNIT)
                })
            }
            ImpOp::AddToField { index, delta } => {
                let r = take();
                ev(move |m| {
                    let r = r.get(m)?;
                    m.count(Counter::AddToField);
                    let mut fields = block(&r).fields.borrow_mut();
                    let i = index as usize;
                    fields[i] = Value::Int(wrap63(fields[i].int().wrapping_add(delta)));
                    Ok(UNIT)
                })
            }
            ImpOp::ArrayGet {
                checked,
                generic,
                known,
                ..
            } => {
                let (a, i) = (take(), take());
                // `Array.unsafe_get` is the element load alone, as a field read. A generic
                // access tests the tag first: a header load, a compare and a branch, the
                // shape of the bounds check, so it counts as one.
                let counter = match known {
                    InRegister::Element => None,
                    InRegister::Length => Some(Counter::ArrayGetKnownLength),
                    InRegister::Nothing if checked || generic => Some(Counter::ArrayGet),
                    InRegister::Nothing => Some(Counter::TupleMatch),
                };
                ev(move |m| {
                    let i = i.int(m)?;
                    let a = a.get(m)?;
                    if let Some(counter) = counter {
                        m.count(counter);
                    }
                    let b = block(&a);
                    if generic {
                        if checked {
                            m.count(Counter::ArrayLength);
                        }
                        // A double read from a float array leaves boxed: the type says 'a.
                        if b.flat {
                            m.count(Counter::FloatBox);
                            crate::heap::allocate_short_lived(crate::lower::FLOAT_BOX_WORDS);
                        }
                    }
                    let i = index(m, b, i, pos)?;
                    let v = b.fields.borrow()[i].clone();
                    Ok(v)
                })
            }
            ImpOp::ArraySet {
                store,
                checked,
                generic,
            } => {
                let (a, i, v) = (take(), take(), take());
                ev(move |m| {
                    let v = v.get(m)?;
                    let i = i.int(m)?;
                    let a = a.get(m)?;
                    if generic {
                        // The tag test (as a bounds check), then an unboxed store into a float
                        // array or `caml_modify` into any other: the type cannot tell an int
                        // from a pointer.
                        m.count(Counter::ArraySet);
                        if checked {
                            m.count(Counter::ArrayLength);
                        }
                        if !block(&a).flat {
                            m.caml_modify(block(&a));
                        }
                    } else if checked {
                        m.count(Counter::ArraySet);
                        barrier(m, store, block(&a));
                    } else {
                        // No bounds check (the value's own `a.(i)` made it, or `unsafe_set`):
                        // only the store is left.
                        match store {
                            StoreKind::Plain => m.count(Counter::FieldSet),
                            StoreKind::Barrier => m.caml_modify(block(&a)),
                        }
                    }
                    let b = block(&a);
                    let i = index(m, b, i, pos)?;
                    crate::remembered::store(b, i, v);
                    Ok(UNIT)
                })
            }
            ImpOp::ArrayLength => {
                let a = take();
                ev(move |m| {
                    let a = a.get(m)?;
                    m.count(Counter::ArrayLength);
                    let n = block(&a).fields.borrow().len();
                    Ok(Value::Int(n as i64))
                })
            }
            ImpOp::ArrayMake => {
                let (n, x) = (take(), take());
                ev(move |m| {
                    let x = x.get(m)?;
                    let n = n.int(m)?;
                    m.count(Counter::ArrayMake);
                    if n < 0 {
                        return Err(invalid_argument(m, "Array.make", pos));
                    }
                    m.count_n(Counter::ArrayMakeWord, n as usize);
                    // caml_make_vect: the atom for n = 0; flat doubles when the initial value is
                    // a boxed float, whatever the static type; beyond Max_young_wosize words,
                    // straight into the major heap.
                    let words = n as u64 + 1;
                    let born = if n == 0 {
                        Born::untracked()
                    } else if n as u64 > u64::from(MAX_YOUNG_WOSIZE) {
                        Born::major(words)
                    } else {
                        Born::new(words as u32)
                    };
                    let flat = n > 0 && matches!(x, Value::Float(_));
                    let fields = vec![x; n as usize].into_boxed_slice();
                    Ok(Value::Mut(Rc::new(MutBlock {
                        tag: 0,
                        flat,
                        fields: RefCell::new(fields),
                        born,
                    })))
                })
            }
        }
    }

    /// A record, reference or array literal: `TupleHead` + `TupleElem` per field, as
    /// `Pmakeblock` and `Pmakearray` allocate inline; a constructor's mutable inline record
    /// (`tag` given) is its constructor's block: `VariantHead` + `VariantElem` per field.
    fn make(&self, flat: bool, tag: Option<u32>, args: Box<[Code]>) -> Ev {
        let (items, boxed) = self.fields(args);
        let words = 1 + items.len() as u32 + FLOAT_BOX_WORDS * boxed;
        let (head, elem) = match tag {
            None => (Counter::TupleHead, Counter::TupleElem),
            Some(_) => (Counter::VariantHead, Counter::VariantElem),
        };
        let tag = tag.unwrap_or(0);
        ev(move |m| {
            m.count(head);
            m.count_n(elem, items.len());
            m.count_n(Counter::FloatBox, boxed as usize);
            let mut values = vec![UNIT; items.len()];
            for (i, c) in items.iter().enumerate().rev() {
                values[i] = c.get(m)?;
            }
            Ok(Value::Mut(Rc::new(MutBlock {
                tag,
                flat,
                fields: RefCell::new(values.into_boxed_slice()),
                born: Born::new(words),
            })))
        })
    }
}
