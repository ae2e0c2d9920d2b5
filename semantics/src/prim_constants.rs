//! The Stdlib's named constants: `infinity`, `nan`, `max_float`, … (boxed floats native code
//! reads from the Stdlib's module block), and the integers ocamlopt folds in — `max_int`,
//! `min_int`, and `Sys`'s sizes.

use crate::prims::{FloatConstant, Prim, PrimInfo};

pub(crate) const CONSTANTS: &[PrimInfo] = &[
    PrimInfo {
        name: "infinity",
        prim: Prim::FloatConstant(FloatConstant::Infinity),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "neg_infinity",
        prim: Prim::FloatConstant(FloatConstant::NegInfinity),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "nan",
        prim: Prim::FloatConstant(FloatConstant::Nan),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "max_float",
        prim: Prim::FloatConstant(FloatConstant::MaxFloat),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "min_float",
        prim: Prim::FloatConstant(FloatConstant::MinFloat),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "epsilon_float",
        prim: Prim::FloatConstant(FloatConstant::EpsilonFloat),
        signature: "float",
        arity: 0,
    },
    PrimInfo {
        name: "max_int",
        prim: Prim::IntConstant(crate::value::MAX_INT),
        signature: "int",
        arity: 0,
    },
    PrimInfo {
        name: "min_int",
        prim: Prim::IntConstant(crate::value::MIN_INT),
        signature: "int",
        arity: 0,
    },
    // sys.ml's sizes for 64-bit native code: `%word_size`, `%int_size` and `%max_wosize`
    // (2^54 - 1 words), which buffer.ml's `create` and `resize` compare against.
    PrimInfo {
        name: "Sys.word_size",
        prim: Prim::IntConstant(64),
        signature: "int",
        arity: 0,
    },
    PrimInfo {
        name: "Sys.int_size",
        prim: Prim::IntConstant(63),
        signature: "int",
        arity: 0,
    },
    PrimInfo {
        name: "Sys.max_array_length",
        prim: Prim::IntConstant((1 << 54) - 1),
        signature: "int",
        arity: 0,
    },
    PrimInfo {
        name: "Sys.max_string_length",
        prim: Prim::IntConstant(((1 << 54) - 1) * 8 - 1),
        signature: "int",
        arity: 0,
    },
];
