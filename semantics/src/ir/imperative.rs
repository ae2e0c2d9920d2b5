//! The imperative operations of the intermediate form: records, references, arrays and strings
//! (the nodes [`Code::Imp`](super::Code::Imp) holds), with how their stores are compiled.

use super::Code;
use crate::ast::Pos;

/// How a store into a mutable field or an array element is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StoreKind {
    /// An immediate or an unboxed double: one store instruction.
    Plain,
    /// A value that may point into the minor heap: `caml_modify`, the write barrier.
    Barrier,
}

/// An operation on records, references or arrays; its operands are evaluated right to left.
#[derive(Debug)]
pub(crate) struct ImpNode {
    pub op: ImpOp,
    pub args: Box<[Code]>,
    pub pos: Pos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImpOp {
    /// A record, a reference or an array literal from its fields: `TupleHead` + `TupleElem`
    /// per field; `flat`: a flat block of doubles (a float record or float array).
    Make {
        flat: bool,
        /// A constructor's mutable inline record: the constructor's tag.
        tag: Option<u32>,
    },
    /// Field `index` of a record or reference: `TupleMatch`; `flat`: an unboxed double.
    GetField {
        index: u32,
        flat: bool,
    },
    /// `r.f <- v`, `r := v` (operands: the block, the value).
    SetField {
        index: u32,
        store: StoreKind,
    },
    /// Adds `delta` to the int in field `index` in place: `incr r`, `r.f <- r.f + c`.
    AddToField {
        index: u32,
        delta: i64,
    },
    /// `a.(i)` (operands: the array, the index); `flat`: a float array; `checked: false` for
    /// `Array.unsafe_get`, a load alone; `generic`: an array whose element type is a type
    /// variable, whose tag ocamlopt tests at run time (a float read from a float array is then
    /// boxed); `known`: what of a checked read is already in a register (see
    /// [`crate::shared_checks`]).
    ArrayGet {
        flat: bool,
        checked: bool,
        generic: bool,
        known: InRegister,
    },
    /// `a.(i) <- v` (operands: the array, the index, the value); `checked: false` when the
    /// value has just read `a.(i)`, whose bounds check ocamlopt's CSE reuses; `generic` as
    /// for `ArrayGet` (an unboxed store into a float array, `caml_modify` into any other).
    ArraySet {
        store: StoreKind,
        checked: bool,
        generic: bool,
    },
    ArrayLength,
    /// `Array.make n x` (operands: n, x).
    ArrayMake,
    /// A string or `bytes` primitive (operands: the external's arguments, in order).
    Str(StrOp),
    /// One of array.ml's C externals that copy or fill (operands: its arguments, in order).
    Arr(ArrOp),
}

/// What ocamlopt's CSE already computed for a checked read of an array element or a byte
/// (see [`crate::shared_checks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InRegister {
    /// Nothing: the header load, the length, the check and the load.
    Nothing,
    /// The length, from a read of another element of the same array or string: the check
    /// and the load.
    Length,
    /// The element itself: no code at all.
    Element,
}

/// array.ml's externals behind `Array.copy`, `append`, `sub`, `concat`, `blit` and `fill`
/// (see `lower_array`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArrOp {
    /// `caml_array_sub a ofs len`.
    Sub,
    /// `caml_array_append a1 a2`.
    Append,
    /// `caml_array_concat arrays`.
    Concat,
    /// `caml_array_blit src srcofs dst dstofs len`.
    Blit,
    /// `caml_array_fill a ofs len v`.
    Fill,
}

/// The string and `bytes` primitives (see `lower_string`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrOp {
    /// `String.length` / `Bytes.length`.
    Length,
    /// `s.[i]`, `String.get`, `Bytes.get`; `checked: false` for `unsafe_get`; `known`: what
    /// of a checked read is already in a register (see [`crate::shared_checks`]).
    Get { checked: bool, known: InRegister },
    /// `Bytes.set`; `checked: false` for `unsafe_set`; `shared`: the check (and the untagged
    /// index) of a read just before is reused (see [`crate::shared_checks`]), the store alone.
    Set { checked: bool, shared: bool },
    /// `caml_create_bytes n`.
    Create,
    /// `caml_format_int fmt n` (`%d` only: `string_of_int`).
    FormatInt,
    /// `caml_fill_bytes s ofs len c`.
    Fill,
    /// `caml_blit_bytes` / `caml_blit_string src srcofs dst dstofs len`.
    Blit,
}
