//! Run-time values, shaped like OCaml's own representation so that the digest and the
//! polymorphic comparison walk them as the native runtime walks its heap: immediates (ints,
//! bools, chars, `()`, `[]`, constant constructors), blocks with a tag and fields, boxed
//! floats, strings, closures, and exception values.

use crate::heap::Born;
use crate::ir::FunId;
use ocaml_runtime::digest::{Digest, OBJECT_TAG};
use std::cmp::Ordering;
use std::rc::Rc;

/// `max_int` of 64-bit OCaml: 2^62 - 1.
pub(crate) const MAX_INT: i64 = (1 << 62) - 1;
pub(crate) const MIN_INT: i64 = -(1 << 62);

/// Wraps a result to OCaml's 63-bit integers (arithmetic is modulo 2^63).
#[inline]
pub(crate) fn wrap63(x: i64) -> i64 {
    (x << 1) >> 1
}

/// A run-time value. Every variant holds one word (floats as their bits, closures behind one
/// pointer), so that Rust passes a `Value`, and an [`R<Value>`](crate::machine::R), as a pair of
/// registers: with a float or a two-field variant it would go through memory, written in
/// pieces and read back whole, which stalls the processor on every value an evaluation step
/// returns (measured: a third of the interpreter's time on call-heavy code).
#[derive(Debug)]
pub(crate) enum Value {
    Int(i64),
    Float(F64),
    /// A string or a byte sequence (`bytes`): the same block (tag 252) in native code, and
    /// `Bytes.unsafe_to_string` shares it.
    Str(Rc<StrBlock>),
    /// A `::` cell (a block of tag 0 and two fields), the most common block by far.
    Cons(Rc<ConsCell>),
    /// Tuples (tag 0) and non-constant constructors (their tag).
    Block(Rc<Block>),
    /// A closure.
    Fun(Rc<FunValue>),
    /// A partial application: a function and the arguments it has received so far.
    Partial(Rc<Partial>),
    Exn(Rc<ExnValue>),
    /// A record, a reference or an array: a block whose fields can change.
    Mut(Rc<MutBlock>),
}

/// A record, reference or array. `flat`: a float record or float array, which ocamlopt stores
/// as a block of doubles (tag `Double_array_tag`); its fields are `Value::Float`s here.
#[derive(Debug)]
pub(crate) struct MutBlock {
    pub flat: bool,
    /// 0, but for a constructor's mutable inline record, whose block has the constructor's
    /// tag.
    pub tag: u32,
    pub fields: std::cell::RefCell<Box<[Value]>>,
    /// Dropping it records the block's age; reads record their cache distance (see `heap`).
    pub born: Born,
}

/// The bytes of a string or `bytes` value; only `bytes` code writes them.
#[derive(Debug)]
pub(crate) struct StrBlock {
    pub bytes: std::cell::RefCell<Box<[u8]>>,
    /// Never read: dropping it records the block's age (see `heap`).
    #[allow(dead_code)]
    pub born: Born,
}

impl StrBlock {
    /// A string that is static data (a literal, a message the runtime raises with).
    pub(crate) fn constant(s: &str) -> Value {
        Value::Str(Rc::new(StrBlock {
            bytes: std::cell::RefCell::new(s.as_bytes().into()),
            born: Born::untracked(),
        }))
    }

    /// The bytes copied out (for comparison, digests and messages).
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        self.bytes.borrow().to_vec()
    }
}

/// Words of the block of a string of `len` bytes: the header, then the bytes padded to a
/// whole word with at least one byte, the last, that holds the padding's length.
pub(crate) fn string_words(len: usize) -> u64 {
    1 + (len as u64 + 8) / 8
}

impl MutBlock {
    /// A read or write of a record's or reference's fields; an array's element is touched as
    /// its own word (the per-block stamp cannot tell one line of a long array from another,
    /// and walks over arrays are streamed by the prefetcher).
    pub(crate) fn touch_fields(&self) {
        let len = self.fields.borrow().len();
        // Beyond a cache line, a read touches the accessed element only.
        let words = if len < crate::cache::LINE_WORDS as usize {
            len + 1
        } else {
            1
        };
        self.born.touch(words as u32);
    }
}

/// Tag of a flat block of doubles.
pub(crate) const DOUBLE_ARRAY_TAG: u32 = 254;

/// A float, stored as its bits (see [`Value`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct F64(u64);

impl F64 {
    #[inline(always)]
    pub(crate) fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

/// A closure: its code and its environment (shared by the members of a recursive group).
#[derive(Debug)]
pub(crate) struct FunValue {
    pub fun: FunId,
    pub env: Rc<Vec<Value>>,
}

#[derive(Debug)]
pub(crate) struct ConsCell {
    pub head: Value,
    pub tail: Value,
    /// Dropping it records the block's age; reads record their cache distance (see `heap`).
    pub born: Born,
}

#[derive(Debug)]
pub(crate) struct Block {
    pub tag: u32,
    pub fields: Box<[Value]>,
    /// Dropping it records the block's age; reads record their cache distance (see `heap`).
    pub born: Born,
}

impl Block {
    /// A read of the block (its header and fields): returns its tag.
    #[inline]
    pub(crate) fn touch(&self) -> u32 {
        self.born.touch(1 + self.fields.len() as u32);
        self.tag
    }
}

#[derive(Debug)]
pub(crate) struct Partial {
    pub env: Rc<Vec<Value>>,
    pub fun: FunId,
    pub args: Vec<Value>,
    /// Built by `caml_curryN` (the function was unknown where it was partially applied): its
    /// code is a stub that forwards through a code pointer (`IndirectJump`), where a known
    /// function's partial application is a closure of ocamlopt's own that jumps directly.
    pub curried: bool,
    /// Never read: dropping it records the block's age (see `heap`).
    #[allow(dead_code)]
    pub born: Born,
}

#[derive(Debug)]
pub(crate) struct ExnValue {
    /// Index of the exception constructor.
    pub id: u32,
    pub args: Box<[Value]>,
    /// Never read: dropping it records the block's age (see `heap`).
    #[allow(dead_code)]
    pub born: Born,
}

pub(crate) const UNIT: Value = Value::Int(0);

impl Clone for Value {
    // Written out (rather than derived) so that it is always inlined: cloning an immediate,
    // the commonest case, is then a copy and a tag test.
    #[inline(always)]
    fn clone(&self) -> Self {
        match self {
            Value::Int(i) => Value::Int(*i),
            Value::Float(f) => Value::Float(*f),
            Value::Str(s) => Value::Str(Rc::clone(s)),
            Value::Cons(c) => Value::Cons(Rc::clone(c)),
            Value::Block(b) => Value::Block(Rc::clone(b)),
            Value::Fun(f) => Value::Fun(Rc::clone(f)),
            Value::Partial(p) => Value::Partial(Rc::clone(p)),
            Value::Exn(e) => Value::Exn(Rc::clone(e)),
            Value::Mut(b) => Value::Mut(Rc::clone(b)),
        }
    }
}

impl Value {
    #[inline(always)]
    pub(crate) fn of_float(f: f64) -> Value {
        Value::Float(F64(f.to_bits()))
    }

    /// A closure value.
    pub(crate) fn fun(fun: FunId, env: Rc<Vec<Value>>) -> Value {
        Value::Fun(Rc::new(FunValue { fun, env }))
    }

    #[inline]
    pub(crate) fn int(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            // The type checker guarantees it; a wrong value here is an interpreter bug.
            other => unreachable!("expected an immediate, got {other:?}"),
        }
    }

    /// The immediate, consuming the value: no drop of it is left on the way.
    #[inline(always)]
    pub(crate) fn into_int(self) -> i64 {
        match self {
            Value::Int(i) => i,
            other => unreachable!("expected an immediate, got {other:?}"),
        }
    }

    /// The birth stamp of the block the value points to (closures have none, see `heap`).
    pub(crate) fn born(&self) -> Option<&Born> {
        match self {
            Value::Str(s) => Some(&s.born),
            Value::Cons(c) => Some(&c.born),
            Value::Block(b) => Some(&b.born),
            Value::Partial(p) => Some(&p.born),
            Value::Exn(e) => Some(&e.born),
            Value::Mut(b) => Some(&b.born),
            Value::Int(_) | Value::Float(_) | Value::Fun(_) => None,
        }
    }

    /// Drops the value, calling the drop glue only for a value that owns memory.
    #[inline(always)]
    pub(crate) fn release(self) {
        if matches!(self, Value::Int(_) | Value::Float(_)) {
            std::mem::forget(self);
        } else {
            drop(self);
        }
    }

    #[inline]
    pub(crate) fn float(&self) -> f64 {
        match self {
            Value::Float(f) => f.get(),
            other => unreachable!("expected a float, got {other:?}"),
        }
    }

    pub(crate) fn tuple_field(&self, i: usize) -> Value {
        match self {
            Value::Block(b) => {
                b.touch();
                b.fields[i].clone()
            }
            Value::Cons(c) => {
                c.born.touch(crate::heap::CONS_WORDS);
                if i == 0 {
                    c.head.clone()
                } else {
                    c.tail.clone()
                }
            }
            other => unreachable!("expected a tuple, got {other:?}"),
        }
    }
}

// Long lists and deep trees must not be freed recursively: the interpreter's thread has a big
// stack, but a program may build a list of ten million cells with a tail-recursive loop.
impl Drop for ConsCell {
    fn drop(&mut self) {
        let mut tail = std::mem::replace(&mut self.tail, UNIT);
        while let Value::Cons(rc) = tail {
            match Rc::try_unwrap(rc) {
                Ok(mut cell) => tail = std::mem::replace(&mut cell.tail, UNIT),
                Err(_) => break,
            }
        }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        let owns_structure = self.fields.iter().any(|f| match f {
            Value::Block(b) => Rc::strong_count(b) == 1,
            Value::Cons(c) => Rc::strong_count(c) == 1,
            _ => false,
        });
        if !owns_structure {
            return;
        }
        let mut work: Vec<Value> = std::mem::take(&mut self.fields).into_vec();
        while let Some(v) = work.pop() {
            match v {
                Value::Block(rc) => {
                    if let Ok(mut b) = Rc::try_unwrap(rc) {
                        work.extend(std::mem::take(&mut b.fields).into_vec());
                    }
                }
                Value::Cons(rc) => {
                    if let Ok(mut c) = Rc::try_unwrap(rc) {
                        work.push(std::mem::replace(&mut c.head, UNIT));
                        work.push(std::mem::replace(&mut c.tail, UNIT));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The digest of a value, exactly as the native driver computes it from the heap
/// (`ocaml_runtime::digest` is the specification).
pub(crate) fn digest(root: &Value) -> String {
    let mut d = Digest::new();
    // Owned values (reference-count clones): a mutable block's fields cannot be borrowed
    // beyond the step that reads them.
    let mut stack = vec![root.clone()];
    while let Some(v) = stack.pop() {
        match &v {
            Value::Int(i) => d.immediate(*i),
            Value::Float(f) => d.float(f.get()),
            Value::Str(s) => d.string(&s.bytes.borrow()),
            Value::Cons(c) => {
                d.block(0, 2);
                stack.push(c.tail.clone());
                stack.push(c.head.clone());
            }
            Value::Block(b) => {
                d.block(b.tag as u8, b.fields.len() as u64);
                stack.extend(b.fields.iter().rev().cloned());
            }
            Value::Fun(..) | Value::Partial(_) => d.closure(),
            Value::Mut(b) => {
                let fields = b.fields.borrow();
                // An empty array is the runtime's atom: a block of tag 0, floats or not.
                if b.flat && !fields.is_empty() {
                    let xs: Vec<f64> = fields.iter().map(Value::float).collect();
                    d.float_array(&xs);
                } else {
                    d.block(b.tag as u8, fields.len() as u64);
                    stack.extend(fields.iter().rev().cloned());
                }
            }
            Value::Exn(e) => {
                // A constant exception is the exception's own identity block (Object_tag); one
                // with arguments is a block of tag 0 whose first field is that identity.
                if e.args.is_empty() {
                    d.opaque(OBJECT_TAG);
                } else {
                    d.block(0, 1 + e.args.len() as u64);
                    d.opaque(OBJECT_TAG);
                    stack.extend(e.args.iter().rev().cloned());
                }
            }
        }
    }
    d.finish()
}

/// Outcome of the polymorphic comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Less,
    Equal,
    Greater,
    /// A NaN was compared by `=`/`<`/… (not by `compare`, which orders NaN first).
    Unordered,
}

/// The comparison raised `Invalid_argument "compare: functional value"`.
pub(crate) struct FunctionalValue;

fn ord(o: Ordering) -> Cmp {
    match o {
        Ordering::Less => Cmp::Less,
        Ordering::Equal => Cmp::Equal,
        Ordering::Greater => Cmp::Greater,
    }
}

/// Float comparison; `total` is `compare`'s order (NaN equal to itself, below everything).
pub(crate) fn compare_floats(a: f64, b: f64, total: bool) -> Cmp {
    match a.partial_cmp(&b) {
        Some(o) => ord(o),
        None if !total => Cmp::Unordered,
        None => match (a.is_nan(), b.is_nan()) {
            (true, true) => Cmp::Equal,
            (true, false) => Cmp::Less,
            _ => Cmp::Greater,
        },
    }
}

/// Tag and size a value has in the native heap (for ordering values of different shapes).
fn shape(v: &Value) -> Option<(u32, usize)> {
    match v {
        Value::Int(_) => None,
        Value::Float(_) => Some((253, 1)),
        Value::Str(_) => Some((252, 0)),
        Value::Cons(_) => Some((0, 2)),
        Value::Block(b) => Some((b.tag, b.fields.len())),
        Value::Fun(..) | Value::Partial(_) => Some((247, 0)),
        Value::Exn(e) if e.args.is_empty() => Some((u32::from(OBJECT_TAG), 0)),
        Value::Exn(e) => Some((0, 1 + e.args.len())),
        Value::Mut(b) => {
            let n = b.fields.borrow().len();
            Some((
                if b.flat && n > 0 {
                    DOUBLE_ARRAY_TAG
                } else {
                    b.tag
                },
                n,
            ))
        }
    }
}

/// Pairs of values the runtime's comparison examined.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CompareSteps {
    /// Every pair — one iteration of `do_compare_val`'s loop, the root pair included
    /// (`PolyCompareStep`).
    pub pairs: u64,
    /// Pairs of two blocks, whose tags and sizes the loop reads before it goes on to their
    /// fields or compares their contents (`PolyCompareBlock`); a pair with an immediate in it,
    /// or one `compare` skips as physically equal, leaves by the loop's first tests.
    pub blocks: u64,
}

/// The runtime's `compare_val` (runtime/compare.c): structural, left to right, iterative
/// (lists of millions of elements compare without recursion). `steps` counts the pairs of
/// values examined, and the pairs of blocks among them. As in the runtime, `compare`
/// (`total`) skips physically equal values whole, while `=`, `<`, … walk them (only a string
/// is skipped by both).
pub(crate) fn compare_values(
    a: &Value,
    b: &Value,
    total: bool,
    steps: &mut CompareSteps,
) -> Result<Cmp, FunctionalValue> {
    let mut work = vec![(a.clone(), b.clone())];
    while let Some((a, b)) = work.pop() {
        steps.pairs += 1;
        if total && physically_equal(&a, &b) {
            continue;
        }
        if !matches!(a, Value::Int(_)) && !matches!(b, Value::Int(_)) {
            steps.blocks += 1;
        }
        let step = match (&a, &b) {
            (Value::Int(x), Value::Int(y)) => ord(x.cmp(y)),
            (Value::Int(_), _) => Cmp::Less,
            (_, Value::Int(_)) => Cmp::Greater,
            (Value::Fun(..) | Value::Partial(_), _) | (_, Value::Fun(..) | Value::Partial(_)) => {
                return Err(FunctionalValue)
            }
            (Value::Float(x), Value::Float(y)) => compare_floats(x.get(), y.get(), total),
            (Value::Str(x), Value::Str(y)) => ord(x.bytes.borrow().cmp(&y.bytes.borrow())),
            (Value::Cons(x), Value::Cons(y)) => {
                work.push((x.tail.clone(), y.tail.clone()));
                work.push((x.head.clone(), y.head.clone()));
                Cmp::Equal
            }
            (Value::Block(x), Value::Block(y))
                if x.tag == y.tag && x.fields.len() == y.fields.len() =>
            {
                work.extend(x.fields.iter().cloned().zip(y.fields.iter().cloned()).rev());
                Cmp::Equal
            }
            (Value::Mut(x), Value::Mut(y)) if shape(&a) == shape(&b) => {
                let (xs, ys) = (x.fields.borrow(), y.fields.borrow());
                if x.flat && !xs.is_empty() {
                    // compare.c walks a float array's doubles inside one step.
                    xs.iter()
                        .zip(ys.iter())
                        .map(|(p, q)| compare_floats(p.float(), q.float(), total))
                        .find(|c| *c != Cmp::Equal)
                        .unwrap_or(Cmp::Equal)
                } else {
                    work.extend(xs.iter().cloned().zip(ys.iter().cloned()).rev());
                    Cmp::Equal
                }
            }
            (Value::Exn(x), Value::Exn(y)) if x.args.len() == y.args.len() => {
                // An exception with arguments is a block whose field 0 is the constructor's
                // identity block: one more pair examined before the arguments.
                if !x.args.is_empty() {
                    steps.pairs += 1;
                    steps.blocks += 1;
                }
                if x.id != y.id {
                    ord(x.id.cmp(&y.id))
                } else {
                    work.extend(x.args.iter().cloned().zip(y.args.iter().cloned()).rev());
                    Cmp::Equal
                }
            }
            _ => {
                let (ta, sa) = shape(&a).expect("blocks");
                let (tb, sb) = shape(&b).expect("blocks");
                ord(ta.cmp(&tb).then(sa.cmp(&sb)))
            }
        };
        if step != Cmp::Equal {
            return Ok(step);
        }
    }
    Ok(Cmp::Equal)
}

/// Physical equality `==`: the same immediate or the same block.
pub(crate) fn physically_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        // Floats are boxed: two computed floats are distinct blocks; treat equal bits as the
        // same block (constants are shared in native code).
        (Value::Float(x), Value::Float(y)) => x.0 == y.0,
        (Value::Str(x), Value::Str(y)) => Rc::ptr_eq(x, y),
        (Value::Cons(x), Value::Cons(y)) => Rc::ptr_eq(x, y),
        (Value::Block(x), Value::Block(y)) => Rc::ptr_eq(x, y),
        (Value::Fun(x), Value::Fun(y)) => x.fun == y.fun && Rc::ptr_eq(&x.env, &y.env),
        (Value::Partial(x), Value::Partial(y)) => Rc::ptr_eq(x, y),
        (Value::Mut(x), Value::Mut(y)) => Rc::ptr_eq(x, y),
        (Value::Exn(x), Value::Exn(y)) => {
            Rc::ptr_eq(x, y) || (x.args.is_empty() && y.args.is_empty() && x.id == y.id)
        }
        _ => false,
    }
}

/// An exception as `Printexc.to_string` shows it: `Failure("hd")`, `Not_found`, `E(1, _)`.
pub(crate) fn show_exception(e: &ExnValue, names: &[String]) -> String {
    let name = names
        .get(e.id as usize)
        .map(String::as_str)
        .unwrap_or("<exception>");
    if e.args.is_empty() {
        return name.to_string();
    }
    let args: Vec<String> = e
        .args
        .iter()
        .map(|a| match a {
            Value::Int(i) => i.to_string(),
            Value::Str(s) => format!("{:?}", String::from_utf8_lossy(&s.to_vec())),
            _ => "_".to_string(),
        })
        .collect();
    format!("{name}({})", args.join(", "))
}
