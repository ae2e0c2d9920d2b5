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
//! [`crate::allocation::Allocation::remembered_words`]); the value a store overwrites loses its
//! mark and, if it dies there, dies by its own age. The major blocks followed are the arrays
//! the run allocates directly major ([`crate::heap::Born::is_major_of_run`]). Not followed:
//! data that outlives the run (`input`'s, which the driver compacts into the major heap, and
//! top-level values): a value stored there stays in the field past the end of the run, until
//! the next run overwrites it, a time this one run does not show.
//!
//! A block the run built in the minor heap is major from the first collection that finds it
//! alive, a matter of phase; a value stored into it after that goes through the remembered set
//! too. So a young value stored into an older young block is promoted if a collection falls
//! anywhere between the container's birth and the value's death: the store opens the value's
//! promotion window at the container's own window ([`crate::heap::Born::anchor`]), and what the
//! value reaches with it. This is why a `Queue` promotes the cells pushed after a collection
//! (each hangs from the previous one, which the collection promoted), popped or not, and a
//! `Stack` the cells still pushed when its run ends. Overwriting that field before the value
//! dies takes it out again: it then dies by its own age.

use crate::value::{MutBlock, Value};

/// Stores `new` in field `index` of `block`, as `caml_modify` (or a plain store) does, keeping
/// the remembered marks.
pub(crate) fn store(block: &MutBlock, index: usize, new: Value) {
    // A young block already remembered is traced by the collection from the remembered set,
    // so what goes into it now is promoted with it.
    let field = block.fields.borrow().as_ptr().wrapping_add(index) as u64;
    if !(block.born.is_major_of_run() || block.born.is_remembered()) {
        if new.born().is_some() {
            if let Some(start) = block.born.window_start() {
                anchor(&new, start, field);
            }
        }
        let old = std::mem::replace(&mut block.fields.borrow_mut()[index], new);
        crate::heap::release_overwritten(old, field, false);
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
    crate::heap::release_overwritten(old, field, true);
}

/// Marks `value` and the young blocks it reaches, stopping at old blocks and at blocks already
/// marked (what they reach was marked with them).
fn remember(value: &Value) {
    walk_reached(value, &|born| born.remember());
}

/// Opens the promotion window of `value`, and of the young blocks it reaches, at `start`
/// through `field` ([`crate::heap::Born::anchor`]), stopping at blocks whose window opens no
/// later (what they reach was anchored with them, or is theirs to keep alive).
fn anchor(value: &Value, start: u64, field: u64) {
    walk_reached(value, &|born| born.anchor(start, field));
}

/// Applies `mark` to `value`'s block and goes on into what the block holds while `mark` says
/// it changed something. Closures are not stamped (see `heap`), so the walk does not enter
/// them.
fn walk_reached(value: &Value, mark: &dyn Fn(&crate::heap::Born) -> bool) {
    let mut next = value;
    loop {
        match next {
            Value::Cons(cell) => {
                if !mark(&cell.born) {
                    return;
                }
                walk_reached(&cell.head, mark);
                // Along the tail by iteration: lists are long, trees are not deep.
                next = &cell.tail;
            }
            Value::Block(block) => {
                if mark(&block.born) {
                    block.fields.iter().for_each(|v| walk_reached(v, mark));
                }
                return;
            }
            Value::Mut(block) => {
                if mark(&block.born) {
                    block
                        .fields
                        .borrow()
                        .iter()
                        .for_each(|v| walk_reached(v, mark));
                }
                return;
            }
            Value::Partial(partial) => {
                if mark(&partial.born) {
                    partial.args.iter().for_each(|v| walk_reached(v, mark));
                }
                return;
            }
            Value::Exn(exn) => {
                if mark(&exn.born) {
                    exn.args.iter().for_each(|v| walk_reached(v, mark));
                }
                return;
            }
            Value::Str(s) => {
                mark(&s.born);
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
