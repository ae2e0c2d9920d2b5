//! The Stdlib values the subset knows without a definition: primitives that `ocamlopt`
//! compiles inline (`not`, `fst`, `raise`, `compare`, operator sections such as `( + )`), and
//! `failwith` and `invalid_arg`, counted as the raise they are (native code calls them: their
//! bodies exceed the Stdlib's inlining threshold; see [`crate::inline`]). `( @ )` is not here: it
//! is a real Stdlib function, defined in OCaml in [`crate::prelude`] and counted as such.
//!
//! A primitive applied to all its arguments is compiled inline and counts only its own
//! construct; used as a value it is eta-expanded into a closed function (a static closure in
//! native code, so creating it counts nothing).

use crate::ast::BinOp;
use crate::float_call::{FloatCall, FLOAT_CALLS};
use crate::ir::ArrOp;
use crate::prim_constants::CONSTANTS;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prim {
    Not,
    Fst,
    Snd,
    Raise,
    Failwith,
    InvalidArg,
    Ignore,
    Compare,
    FloatOfInt,
    IntOfFloat,
    Succ,
    Pred,
    Abs,
    Sqrt,
    AbsFloat,
    Lnot,
    /// `infinity`, `neg_infinity`, `nan`, `max_float`, `min_float`, `epsilon_float`: boxed
    /// float constants of `stdlib.ml`, read by native code from the Stdlib's module block.
    FloatConstant(FloatConstant),
    /// `max_int`, `min_int` and `Sys`'s sizes (`Sys.max_string_length`, …): integers ocamlopt
    /// knows at compile time (from the `.cmx` of the module that defines them) and folds in.
    IntConstant(i64),
    /// An infix operator used as a value: `( + )`, `( = )`, `( && )`.
    Section(BinOp),
    Ref,
    Deref,
    Assign,
    Incr,
    Decr,
    ArrayLength,
    ArrayGet,
    ArraySet,
    ArrayMake,
    ArrayUnsafeGet,
    ArrayUnsafeSet,
    /// array.ml's externals that copy or fill: `caml_array_sub`, `caml_array_append`,
    /// `caml_array_concat`, `caml_array_blit`, `caml_array_fill`.
    ArrayCopy(crate::ir::ArrOp),
    /// `String.length`, `Bytes.length`.
    StringLength,
    /// `s.[i]`, `String.get`, `Bytes.get`.
    StringGet,
    StringUnsafeGet,
    BytesSet,
    BytesUnsafeSet,
    /// `caml_create_bytes`.
    BytesCreate,
    /// stdlib.ml's `format_int`, as `string_of_int` calls it (`%d`).
    FormatInt,
    /// `caml_fill_bytes` (bytes.ml's `unsafe_fill`).
    BytesFill,
    /// `caml_blit_bytes` and `caml_blit_string` (the same memmove).
    BytesBlit,
    /// `%identity`-like externals (`Bytes.unsafe_to_string`, `Char.code`, …): no code at all.
    Identity,
    /// `floor`, `exp`, `sin`, `**`, …: a direct call of the C library ([`crate::float_call`]).
    FloatCall(FloatCall),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatConstant {
    Infinity,
    NegInfinity,
    Nan,
    MaxFloat,
    MinFloat,
    EpsilonFloat,
}

impl FloatConstant {
    pub(crate) fn value(self) -> f64 {
        match self {
            FloatConstant::Infinity => f64::INFINITY,
            FloatConstant::NegInfinity => f64::NEG_INFINITY,
            FloatConstant::Nan => f64::from_bits(0x7FF0_0000_0000_0001),
            FloatConstant::MaxFloat => f64::MAX,
            FloatConstant::MinFloat => f64::MIN_POSITIVE,
            FloatConstant::EpsilonFloat => f64::EPSILON,
        }
    }
}

impl Prim {
    /// What a string or `bytes` external compiles to; `None` for every other primitive.
    pub(crate) fn string_op(self) -> Option<crate::ir::StrOp> {
        use crate::ir::StrOp;
        Some(match self {
            Prim::StringLength => StrOp::Length,
            Prim::StringGet => StrOp::Get {
                checked: true,
                known: crate::ir::InRegister::Nothing,
            },
            Prim::StringUnsafeGet => StrOp::Get {
                checked: false,
                known: crate::ir::InRegister::Nothing,
            },
            Prim::BytesSet => StrOp::Set {
                checked: true,
                shared: false,
            },
            Prim::BytesUnsafeSet => StrOp::Set {
                checked: false,
                shared: false,
            },
            Prim::BytesCreate => StrOp::Create,
            Prim::FormatInt => StrOp::FormatInt,
            Prim::BytesFill => StrOp::Fill,
            Prim::BytesBlit => StrOp::Blit,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct PrimInfo {
    pub name: &'static str,
    pub prim: Prim,
    /// The type, in OCaml syntax (parsed by the type checker).
    pub signature: &'static str,
    /// Number of arguments; 0 for constants.
    pub arity: usize,
}

macro_rules! section {
    ($name:literal, $op:ident, $sig:literal) => {
        PrimInfo {
            name: $name,
            prim: Prim::Section(BinOp::$op),
            signature: $sig,
            arity: 2,
        }
    };
}

const LISTED: &[PrimInfo] = &[
    PrimInfo {
        name: "not",
        prim: Prim::Not,
        signature: "bool -> bool",
        arity: 1,
    },
    PrimInfo {
        name: "fst",
        prim: Prim::Fst,
        signature: "'a * 'b -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: "snd",
        prim: Prim::Snd,
        signature: "'a * 'b -> 'b",
        arity: 1,
    },
    PrimInfo {
        name: "raise",
        prim: Prim::Raise,
        signature: "exn -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: "failwith",
        prim: Prim::Failwith,
        signature: "string -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: "invalid_arg",
        prim: Prim::InvalidArg,
        signature: "string -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: "ignore",
        prim: Prim::Ignore,
        signature: "'a -> unit",
        arity: 1,
    },
    PrimInfo {
        name: "compare",
        prim: Prim::Compare,
        signature: "'a -> 'a -> int",
        arity: 2,
    },
    PrimInfo {
        name: "float_of_int",
        prim: Prim::FloatOfInt,
        signature: "int -> float",
        arity: 1,
    },
    PrimInfo {
        name: "float",
        prim: Prim::FloatOfInt,
        signature: "int -> float",
        arity: 1,
    },
    PrimInfo {
        name: "int_of_float",
        prim: Prim::IntOfFloat,
        signature: "float -> int",
        arity: 1,
    },
    PrimInfo {
        name: "truncate",
        prim: Prim::IntOfFloat,
        signature: "float -> int",
        arity: 1,
    },
    PrimInfo {
        name: "succ",
        prim: Prim::Succ,
        signature: "int -> int",
        arity: 1,
    },
    PrimInfo {
        name: "abs",
        prim: Prim::Abs,
        signature: "int -> int",
        arity: 1,
    },
    PrimInfo {
        name: "sqrt",
        prim: Prim::Sqrt,
        signature: "float -> float",
        arity: 1,
    },
    PrimInfo {
        name: "abs_float",
        prim: Prim::AbsFloat,
        signature: "float -> float",
        arity: 1,
    },
    PrimInfo {
        name: "lnot",
        prim: Prim::Lnot,
        signature: "int -> int",
        arity: 1,
    },
    PrimInfo {
        name: "pred",
        prim: Prim::Pred,
        signature: "int -> int",
        arity: 1,
    },
    PrimInfo {
        name: "ref",
        prim: Prim::Ref,
        signature: "'a -> 'a ref",
        arity: 1,
    },
    PrimInfo {
        name: "!",
        prim: Prim::Deref,
        signature: "'a ref -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: ":=",
        prim: Prim::Assign,
        signature: "'a ref -> 'a -> unit",
        arity: 2,
    },
    PrimInfo {
        name: "incr",
        prim: Prim::Incr,
        signature: "int ref -> unit",
        arity: 1,
    },
    PrimInfo {
        name: "decr",
        prim: Prim::Decr,
        signature: "int ref -> unit",
        arity: 1,
    },
    PrimInfo {
        name: "Array.length",
        prim: Prim::ArrayLength,
        signature: "'a array -> int",
        arity: 1,
    },
    PrimInfo {
        name: "Array.get",
        prim: Prim::ArrayGet,
        signature: "'a array -> int -> 'a",
        arity: 2,
    },
    PrimInfo {
        name: "Array.set",
        prim: Prim::ArraySet,
        signature: "'a array -> int -> 'a -> unit",
        arity: 3,
    },
    PrimInfo {
        name: "Array.unsafe_get",
        prim: Prim::ArrayUnsafeGet,
        signature: "'a array -> int -> 'a",
        arity: 2,
    },
    PrimInfo {
        name: "Array.unsafe_set",
        prim: Prim::ArrayUnsafeSet,
        signature: "'a array -> int -> 'a -> unit",
        arity: 3,
    },
    PrimInfo {
        name: "Array.make",
        prim: Prim::ArrayMake,
        signature: "int -> 'a -> 'a array",
        arity: 2,
    },
    // array.ml's `external create: int -> 'a -> 'a array = "caml_make_vect"`, which its
    // `init` and `map` call.
    PrimInfo {
        name: "Array.create",
        prim: Prim::ArrayMake,
        signature: "int -> 'a -> 'a array",
        arity: 2,
    },
    // array.ml's externals under `Array.copy`, `append`, `sub`, `blit`, `fill`, and
    // `Array.concat` itself.
    PrimInfo {
        name: "Array.unsafe_sub",
        prim: Prim::ArrayCopy(ArrOp::Sub),
        signature: "'a array -> int -> int -> 'a array",
        arity: 3,
    },
    PrimInfo {
        name: "Array.append_prim",
        prim: Prim::ArrayCopy(ArrOp::Append),
        signature: "'a array -> 'a array -> 'a array",
        arity: 2,
    },
    PrimInfo {
        name: "Array.concat",
        prim: Prim::ArrayCopy(ArrOp::Concat),
        signature: "'a array list -> 'a array",
        arity: 1,
    },
    PrimInfo {
        name: "Array.unsafe_blit",
        prim: Prim::ArrayCopy(ArrOp::Blit),
        signature: "'a array -> int -> 'a array -> int -> int -> unit",
        arity: 5,
    },
    PrimInfo {
        name: "Array.unsafe_fill",
        prim: Prim::ArrayCopy(ArrOp::Fill),
        signature: "'a array -> int -> int -> 'a -> unit",
        arity: 4,
    },
    // The externals of string.ml, bytes.ml, char.ml and stdlib.ml that the string functions
    // of the prelude (`crate::prelude`) and programs call.
    PrimInfo {
        name: "String.length",
        prim: Prim::StringLength,
        signature: "string -> int",
        arity: 1,
    },
    PrimInfo {
        name: "Bytes.length",
        prim: Prim::StringLength,
        signature: "bytes -> int",
        arity: 1,
    },
    PrimInfo {
        name: "String.get",
        prim: Prim::StringGet,
        signature: "string -> int -> char",
        arity: 2,
    },
    PrimInfo {
        name: "Bytes.get",
        prim: Prim::StringGet,
        signature: "bytes -> int -> char",
        arity: 2,
    },
    PrimInfo {
        name: "String.unsafe_get",
        prim: Prim::StringUnsafeGet,
        signature: "string -> int -> char",
        arity: 2,
    },
    PrimInfo {
        name: "Bytes.unsafe_get",
        prim: Prim::StringUnsafeGet,
        signature: "bytes -> int -> char",
        arity: 2,
    },
    PrimInfo {
        name: "Bytes.set",
        prim: Prim::BytesSet,
        signature: "bytes -> int -> char -> unit",
        arity: 3,
    },
    PrimInfo {
        name: "Bytes.unsafe_set",
        prim: Prim::BytesUnsafeSet,
        signature: "bytes -> int -> char -> unit",
        arity: 3,
    },
    PrimInfo {
        name: "Bytes.create",
        prim: Prim::BytesCreate,
        signature: "int -> bytes",
        arity: 1,
    },
    PrimInfo {
        name: "Bytes.unsafe_fill",
        prim: Prim::BytesFill,
        signature: "bytes -> int -> int -> char -> unit",
        arity: 4,
    },
    PrimInfo {
        name: "Bytes.unsafe_blit",
        prim: Prim::BytesBlit,
        signature: "bytes -> int -> bytes -> int -> int -> unit",
        arity: 5,
    },
    PrimInfo {
        name: "Bytes.unsafe_blit_string",
        prim: Prim::BytesBlit,
        signature: "string -> int -> bytes -> int -> int -> unit",
        arity: 5,
    },
    // stdlib.ml's `external format_int : string -> int -> string = "caml_format_int"`, which
    // its `string_of_int` (read from the sources) calls with `"%d"`.
    PrimInfo {
        name: "format_int",
        prim: Prim::FormatInt,
        signature: "string -> int -> string",
        arity: 2,
    },
    PrimInfo {
        name: "Fun.id",
        prim: Prim::Identity,
        signature: "'a -> 'a",
        arity: 1,
    },
    PrimInfo {
        name: "Bytes.unsafe_to_string",
        prim: Prim::Identity,
        signature: "bytes -> string",
        arity: 1,
    },
    PrimInfo {
        name: "Bytes.unsafe_of_string",
        prim: Prim::Identity,
        signature: "string -> bytes",
        arity: 1,
    },
    PrimInfo {
        name: "int_of_char",
        prim: Prim::Identity,
        signature: "char -> int",
        arity: 1,
    },
    // `stdlib.ml`'s `char_of_int` (read from the sources) checks the range, then this.
    PrimInfo {
        name: "unsafe_char_of_int",
        prim: Prim::Identity,
        signature: "int -> char",
        arity: 1,
    },
    PrimInfo {
        name: "Char.code",
        prim: Prim::Identity,
        signature: "char -> int",
        arity: 1,
    },
    PrimInfo {
        name: "Char.unsafe_chr",
        prim: Prim::Identity,
        signature: "int -> char",
        arity: 1,
    },
    section!("( + )", Add, "int -> int -> int"),
    section!("( - )", Sub, "int -> int -> int"),
    section!("( * )", Mul, "int -> int -> int"),
    section!("( / )", Div, "int -> int -> int"),
    section!("( mod )", Mod, "int -> int -> int"),
    section!("( land )", Land, "int -> int -> int"),
    section!("( lor )", Lor, "int -> int -> int"),
    section!("( lxor )", Lxor, "int -> int -> int"),
    section!("( lsl )", Lsl, "int -> int -> int"),
    section!("( lsr )", Lsr, "int -> int -> int"),
    section!("( asr )", Asr, "int -> int -> int"),
    section!("( +. )", FAdd, "float -> float -> float"),
    section!("( -. )", FSub, "float -> float -> float"),
    section!("( *. )", FMul, "float -> float -> float"),
    section!("( /. )", FDiv, "float -> float -> float"),
    section!("( = )", Eq, "'a -> 'a -> bool"),
    section!("( <> )", Ne, "'a -> 'a -> bool"),
    section!("( < )", Lt, "'a -> 'a -> bool"),
    section!("( <= )", Le, "'a -> 'a -> bool"),
    section!("( > )", Gt, "'a -> 'a -> bool"),
    section!("( >= )", Ge, "'a -> 'a -> bool"),
    // string.ml's `external equal : string -> string -> bool = "caml_string_equal"` (bytes.ml's
    // likewise): the C call ocamlopt makes for `=` on two strings, so `=` at that type.
    section!("String.equal", Eq, "string -> string -> bool"),
    section!("Bytes.equal", Eq, "bytes -> bytes -> bool"),
    section!("( == )", PhysEq, "'a -> 'a -> bool"),
    section!("( != )", PhysNe, "'a -> 'a -> bool"),
    section!("( && )", And, "bool -> bool -> bool"),
    section!("( || )", Or, "bool -> bool -> bool"),
];

const ALL: [PrimInfo; LISTED.len() + CONSTANTS.len() + FLOAT_CALLS.len()] = {
    let calls = crate::float_call::prim_infos(LISTED[0]);
    let mut out = [LISTED[0]; LISTED.len() + CONSTANTS.len() + FLOAT_CALLS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = if i < LISTED.len() {
            LISTED[i]
        } else if i < LISTED.len() + CONSTANTS.len() {
            CONSTANTS[i - LISTED.len()]
        } else {
            calls[i - LISTED.len() - CONSTANTS.len()]
        };
        i += 1;
    }
    out
};

/// Every primitive the subset knows, by name.
pub(crate) const PRIMS: &[PrimInfo] = &ALL;

pub(crate) fn lookup(name: &str) -> Option<&'static PrimInfo> {
    PRIMS.iter().find(|p| p.name == name)
}

impl Prim {
    /// Whether the primitive's cost depends on its operand type (recorded by the type checker).
    pub(crate) fn is_type_directed(self) -> bool {
        matches!(self, Prim::Compare)
            || matches!(self, Prim::Section(op) if op.is_structural_comparison())
    }
}
