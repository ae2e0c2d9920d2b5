//! The remembered set: young blocks that a store put into a block of the major heap.
//!
//! `caml_modify` of a field of a major block with a young value adds the field to the minor
//! heap's remembered set (`ref_table`), and the next minor collection treats the field as a
//! root: the value, and every young block it reaches, is promoted whatever its own life. The
//! entry stays even when the major block dies before that collection (nothing clears it), so a
//! per-run array longer than `Max_young_wosize` filled with fresh records promotes them all.
//! Only an overwrite of the field before the collection lets the first value go: the
//! collection then sees the new one.
//!
//! The interpreter marks such a value, and the young blocks it reaches, remembered at the
//! store; a remembered block that dies is counted promoted whole (see
//! [`crate::heap::Allocation::remembered_words`]); the value a store overwrites loses its mark
//! and, if it dies there, dies by its own age. The major blocks followed are the arrays the run
//! allocates directly major ([`crate::heap::Born::is_major_of_run`]). Two kinds are not:
//! - data that outlives the run (`input`'s, which the driver compacts into the major heap, and
//!   top-level values): a value stored there stays in the field past the end of the run, until
//!   the next run overwrites it, a time this one run does not show;
//! - a block the run built and a minor collection has since promoted: when that happened is a
//!   matter of phase.

use crate::value::{MutBlock, Value};

/// Stores `new` in field `index` of `block`, as `caml_modify` (or a plain store) does, keeping
/// the remembered marks.
pub(crate) fn store(block: &MutBlock, index: usize, new: Value) {
    // A young block already remembered is traced by the collection from the remembered set,
    // so what goes into it now is promoted with it.
    if !(block.born.is_major_of_run() || block.born.is_remembered()) {
        let old = std::mem::replace(&mut block.fields.borrow_mut()[index], new);
        old.release();
        return;
    }
    {
        let fields = block.fields.borrow();
        let old = &fields[index];
        if !same_block(old, &new) {
            if let Some(born) = old.born() {
                born.forget();
            }
        }
    }
    // Marked before it goes in: the walk may borrow young blocks' fields, never this one's
    // (a major block stops it).
    remember(&new);
    let old = std::mem::replace(&mut block.fields.borrow_mut()[index], new);
    crate::heap::release_overwritten(old);
}

/// Marks `value` and the young blocks it reaches, stopping at old blocks and at blocks already
/// marked (what they reach was marked with them). Closures are not stamped (see `heap`), so
/// the walk does not enter them.
fn remember(value: &Value) {
    let mut next = value;
    loop {
        match next {
            Value::Cons(cell) => {
                if !cell.born.remember() {
                    return;
                }
                remember(&cell.head);
                // Along the tail by iteration: lists are long, trees are not deep.
                next = &cell.tail;
            }
            Value::Block(block) => {
                if block.born.remember() {
                    block.fields.iter().for_each(remember);
                }
                return;
            }
            Value::Mut(block) => {
                if block.born.remember() {
                    block.fields.borrow().iter().for_each(remember);
                }
                return;
            }
            Value::Partial(partial) => {
                if partial.born.remember() {
                    partial.args.iter().for_each(remember);
                }
                return;
            }
            Value::Exn(exn) => {
                if exn.born.remember() {
                    exn.args.iter().for_each(remember);
                }
                return;
            }
            Value::Str(s) => {
                s.born.remember();
                return;
            }
            Value::Int(_) | Value::Float(_) | Value::Fun(_) => return,
        }
    }
}

fn same_block(a: &Value, b: &Value) -> bool {
    match (a.born(), b.born()) {
        (Some(x), Some(y)) => std::ptr::eq(x, y),
        _ => false,
    }
}
