//! The float library's C calls: `floor`, `exp`, `sin`, `**`, `mod_float` and the rest of
//! stdlib.ml's and float.ml's `[@@unboxed] [@@noalloc]` externals.
//!
//! ocamlopt 4.13 (amd64) compiles each to a direct `call` of the C function (`floor@PLT`,
//! `pow@PLT`, or the runtime's own `caml_round`, `caml_hypot`, …) with its operands and result
//! in `%xmm` registers: no `caml_c_call`, no boxing, no allocation. The calling function gets a
//! stack frame, and the C convention destroys every float register, so a float the caller
//! needs after the call goes to its frame and back (`sin a +. cos a` keeps `cos a` there while
//! `sin` runs); that store and load are part of what the call's construct prices, not `Spill`
//! (whose rule is OCaml's calls).
//!
//! What the call costs is the C function's own code, from a `roundsd` (`floor`, 2.9 ns a call
//! with its loop) to argument reduction and polynomials (`sin`, 20 ns at arguments up to 14),
//! so the functions are grouped by that cost into five constructs ([`FloatCall::counter`]);
//! measured on this project's AMD host (`mlcost bench`, 1 run, 2 layouts, a loop summing
//! `f (float_of_int i *. 0.0137)`, its empty loop's 1.0 ns taken off): the roundings,
//! `copysign`, `sign_bit` 2.8–3.3 ns, `Float.trunc` 5.5 (the runtime's `caml_trunc`, then the C
//! library's), `next_after` 6.3; the table-driven `log` 4.2, `log2`, `exp2` 4.9–5.0, `exp` 5.2,
//! `hypot` 6.2, `log10` 8.3, `cosh` 8.8 (one `exp`); `mod_float` 8.5; `**` 13.8; and the long
//! polynomials and reductions: `acos` 8.0, `tan` 13.6, `expm1` 13.3, `cbrt` 17.3, `cos` 18.6,
//! `sin` 20.3, `sinh` 20.4, `asin` 20.9, `erfc` 21.4, `tanh` 21.6, `atan` 24.5, `atan2` 26.5,
//! `log1p` 26.6, `asinh` 32.7 (`erf` 10.6 where its argument is beyond 6 and it returns 1; it
//! joins `erfc`, as it runs the same rational approximations below that).
//!
//! The interpreter computes each with Rust's `f64` methods, which call the same C library
//! functions (or round exactly, as `floor` and `fmod` do), or, where Rust computes the
//! function itself (the inverse hyperbolics, `cbrt`) or has none (`erf`), with the C
//! library's own, so results agree with the native binary's to the bit.

use crate::catalogue::Counter;
use crate::prims::{Prim, PrimInfo};

/// One C function of the float library that the subset calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FloatCall {
    Floor,
    Ceil,
    Trunc,
    Round,
    Copysign,
    NextAfter,
    /// `Float.sign_bit`, behind `Float.min`, `Float.max` and their kin: a float in, a bool out.
    SignBit,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log10,
    Log1p,
    Log2,
    Cbrt,
    Erf,
    Erfc,
    Hypot,
    Pow,
    Fmod,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
}

/// The Stdlib names of the calls (stdlib.ml's, or float.ml's where stdlib.ml has none), with
/// their C primitives: [`crate::stdlib_link`] reads float.ml's externals of the same
/// primitive (`Float.floor`, `Float.rem`, `Float.pow`, …) as these.
pub(crate) const FLOAT_CALLS: [(&str, &str, FloatCall); 33] = [
    ("floor", "caml_floor_float", FloatCall::Floor),
    ("ceil", "caml_ceil_float", FloatCall::Ceil),
    ("Float.trunc", "caml_trunc_float", FloatCall::Trunc),
    ("Float.round", "caml_round_float", FloatCall::Round),
    ("copysign", "caml_copysign_float", FloatCall::Copysign),
    (
        "Float.next_after",
        "caml_nextafter_float",
        FloatCall::NextAfter,
    ),
    ("Float.sign_bit", "caml_signbit_float", FloatCall::SignBit),
    ("exp", "caml_exp_float", FloatCall::Exp),
    ("Float.exp2", "caml_exp2_float", FloatCall::Exp2),
    ("expm1", "caml_expm1_float", FloatCall::Expm1),
    ("log", "caml_log_float", FloatCall::Log),
    ("log10", "caml_log10_float", FloatCall::Log10),
    ("log1p", "caml_log1p_float", FloatCall::Log1p),
    ("Float.log2", "caml_log2_float", FloatCall::Log2),
    ("Float.cbrt", "caml_cbrt_float", FloatCall::Cbrt),
    ("Float.erf", "caml_erf_float", FloatCall::Erf),
    ("Float.erfc", "caml_erfc_float", FloatCall::Erfc),
    ("hypot", "caml_hypot_float", FloatCall::Hypot),
    ("( ** )", "caml_power_float", FloatCall::Pow),
    ("mod_float", "caml_fmod_float", FloatCall::Fmod),
    ("sin", "caml_sin_float", FloatCall::Sin),
    ("cos", "caml_cos_float", FloatCall::Cos),
    ("tan", "caml_tan_float", FloatCall::Tan),
    ("asin", "caml_asin_float", FloatCall::Asin),
    ("acos", "caml_acos_float", FloatCall::Acos),
    ("atan", "caml_atan_float", FloatCall::Atan),
    ("atan2", "caml_atan2_float", FloatCall::Atan2),
    ("sinh", "caml_sinh_float", FloatCall::Sinh),
    ("cosh", "caml_cosh_float", FloatCall::Cosh),
    ("tanh", "caml_tanh_float", FloatCall::Tanh),
    ("asinh", "caml_asinh_float", FloatCall::Asinh),
    ("acosh", "caml_acosh_float", FloatCall::Acosh),
    ("atanh", "caml_atanh_float", FloatCall::Atanh),
];

impl FloatCall {
    /// How many floats it takes.
    pub(crate) const fn arity(self) -> usize {
        use FloatCall::*;
        match self {
            Copysign | NextAfter | Hypot | Pow | Fmod | Atan2 => 2,
            _ => 1,
        }
    }

    /// The construct a call counts: the family of C code it runs.
    pub(crate) fn counter(self) -> Counter {
        use FloatCall::*;
        match self {
            Floor | Ceil | Trunc | Round | Copysign | NextAfter | SignBit => {
                Counter::FloatRoundCall
            }
            Exp | Exp2 | Log | Log2 | Log10 | Hypot | Cosh => Counter::FloatExpLogCall,
            Pow => Counter::FloatPowCall,
            Fmod => Counter::FloatFmodCall,
            Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Tanh | Asinh | Acosh | Atanh
            | Expm1 | Log1p | Cbrt | Erf | Erfc => Counter::FloatTrigCall,
        }
    }

    /// What a call adds to a chain a loop carries through it ([`crate::chain`]), in cycles:
    /// its latency less what its construct's price gives it beyond its instructions.
    /// ([`crate::issue`] counts a chain's cycles beyond the iteration's instructions, so the
    /// call's instructions are in both and cancel; the rest of its price would be counted
    /// twice.) Each function's latency is its own, measured on this project's Intel host
    /// (Golden Cove; loops of 4 million iterations, cycles read from a chain of `xor`s in the
    /// same process, two runs averaged) as a loop whose `float_of_int` waits on the call's
    /// result (`s := !s +. f x`, `x = float_of_int (i land 1023) *. 0.0137 +. 0.25`), its
    /// conversion, multiply and add taken off: `floor` 10, `Float.round` 13, `exp` 36, `log`
    /// 45, `**` 95, `sin` 70, `tan` 91,
    /// `tanh` 126. What the family's price gives beyond the instructions is from one default
    /// run's NNLS constants, in cycles of 0.32 ns: the roundings 1, `exp`/`log` 8, `**` 16,
    /// the rest 13. Per family until session 45 (rounding 20, `exp`/`log` 45,
    /// `**` 85, `mod_float` 36, the rest 70): calibrated where loops summing calls were taken
    /// for independent ones, while on this core their `float_of_int` waits on the last call.
    pub(crate) fn latency_cycles(self) -> u32 {
        use FloatCall::*;
        match self {
            SignBit => 0,
            // Its steps are one dependent loop whose time `FloatFmodBit` prices: chained, a
            // call takes 1 to 10 cycles more than independent (quotients 1 to 2^30).
            Fmod => 4,
            Copysign => 5,
            Floor | Ceil => 9,
            Round => 12,
            NextAfter | Trunc => 14,
            Exp2 => 23,
            Exp => 28,
            Log => 37,
            Log2 => 39,
            Cosh => 47,
            Hypot => 55,
            Cos => 56,
            Asin | Sin => 57,
            Acos | Log10 => 59,
            Log1p => 65,
            Atan => 74,
            Erf | Erfc => 77,
            Tan => 78,
            Acosh | Pow => 79,
            Atan2 => 82,
            Asinh => 83,
            Cbrt => 85,
            Expm1 => 88,
            Atanh => 105,
            Tanh => 113,
            Sinh => 114,
        }
    }

    /// Its type, in OCaml syntax.
    pub(crate) const fn signature(self) -> &'static str {
        match (self.arity(), self) {
            (_, FloatCall::SignBit) => "float -> bool",
            (1, _) => "float -> float",
            _ => "float -> float -> float",
        }
    }

    /// Whether its result is a float (all but `Float.sign_bit`'s).
    pub(crate) fn returns_float(self) -> bool {
        self != FloatCall::SignBit
    }

    /// The result, as the C function computes it; `Float.sign_bit`'s as 0.0 or 1.0.
    pub(crate) fn eval(self, x: f64, y: f64) -> f64 {
        use FloatCall::*;
        match self {
            SignBit => f64::from(u8::from(x.is_sign_negative())),
            Floor => x.floor(),
            Ceil => x.ceil(),
            Trunc => x.trunc(),
            // The runtime's `caml_round` is C99 `round`: halves away from zero, as Rust's.
            Round => x.round(),
            Copysign => x.copysign(y),
            Exp => x.exp(),
            Exp2 => x.exp2(),
            Log2 => x.log2(),
            Expm1 => x.exp_m1(),
            Log => x.ln(),
            Log10 => x.log10(),
            Log1p => x.ln_1p(),
            Hypot => x.hypot(y),
            Pow => x.powf(y),
            // C's `fmod`: the remainder with the dividend's sign, exact.
            Fmod => x % y,
            Sin => x.sin(),
            Cos => x.cos(),
            Tan => x.tan(),
            Asin => x.asin(),
            Acos => x.acos(),
            Atan => x.atan(),
            Atan2 => x.atan2(y),
            Sinh => x.sinh(),
            Cosh => x.cosh(),
            Tanh => x.tanh(),
            Asinh | Acosh | Atanh | Cbrt | Erf | Erfc | NextAfter => c_library(self, x, y),
        }
    }
}

/// The calls as the primitives of their names and types (`filler` fills the array first).
pub(crate) const fn prim_infos(filler: PrimInfo) -> [PrimInfo; FLOAT_CALLS.len()] {
    let mut out = [filler; FLOAT_CALLS.len()];
    let mut i = 0;
    while i < FLOAT_CALLS.len() {
        let (name, _, call) = FLOAT_CALLS[i];
        out[i] = PrimInfo {
            name,
            prim: Prim::FloatCall(call),
            signature: call.signature(),
            arity: call.arity(),
        };
        i += 1;
    }
    out
}

/// The C library's `asinh`, `acosh`, `atanh`, `cbrt`, `erf`, `erfc` and `nextafter`, as the
/// native binary calls them: Rust computes the first four its own way (`cbrt`'s result at
/// 1/3 differed from the native binary's in the last bit), and has none of the others.
fn c_library(call: FloatCall, x: f64, y: f64) -> f64 {
    extern "C" {
        fn asinh(x: f64) -> f64;
        fn acosh(x: f64) -> f64;
        fn atanh(x: f64) -> f64;
        fn cbrt(x: f64) -> f64;
        fn erf(x: f64) -> f64;
        fn erfc(x: f64) -> f64;
        fn nextafter(x: f64, y: f64) -> f64;
    }
    // SAFETY: pure functions of doubles, from the C library's libm, which every Rust program
    // on this target links (std's other float functions call it).
    unsafe {
        match call {
            FloatCall::Asinh => asinh(x),
            FloatCall::Acosh => acosh(x),
            FloatCall::Atanh => atanh(x),
            FloatCall::Cbrt => cbrt(x),
            FloatCall::Erf => erf(x),
            FloatCall::Erfc => erfc(x),
            _ => nextafter(x, y),
        }
    }
}

/// The call of primitive `prim` (an external's C name), if it is one of [`FLOAT_CALLS`].
pub(crate) fn by_primitive(prim: &str) -> Option<&'static &'static str> {
    FLOAT_CALLS
        .iter()
        .find(|(_, p, _)| *p == prim)
        .map(|(name, _, _)| name)
}

/// What glibc's `fmod` does for `x` and `y` in the fixed-point loop of `__ieee754_fmod`
/// (sysdeps/ieee754/dbl-64/e_fmod.c, glibc 2.36, Debian 12's): one iteration per bit of
/// exponent between the operands (`ilogb |x| - ilogb |y|`), each a subtraction, a shift and a
/// branch on the difference's sign, which `step` is told (true: negative); the loop ends
/// early where the remainder reaches exactly 0. `None` where the C function returns before
/// the loop (`|x| <= |y|`, an operand not finite, `y` 0); else the steps taken, and whether
/// the loop's test ran a last time to let it out (not after an exact 0).
pub(crate) fn fmod_loop(x: f64, y: f64, mut step: impl FnMut(bool)) -> Option<(u64, bool)> {
    const MAGNITUDE: u64 = !(1 << 63);
    const INFINITY: u64 = 0x7ff0_0000_0000_0000;
    let (hx, hy) = (x.to_bits() & MAGNITUDE, y.to_bits() & MAGNITUDE);
    if hy == 0 || hx >= INFINITY || hy > INFINITY || hx <= hy {
        return None;
    }
    let ilogb = |h: u64| -> i64 {
        if h < 1 << 52 {
            -1022 - i64::from((h << 11).leading_zeros())
        } else {
            (h >> 52) as i64 - 1023
        }
    };
    let mantissa = |h: u64, e: i64| -> i64 {
        if e >= -1022 {
            ((1 << 52) | (h & ((1 << 52) - 1))) as i64
        } else {
            (h << (-1022 - e)) as i64
        }
    };
    let (ix, iy) = (ilogb(hx), ilogb(hy));
    let (mut mx, my) = (mantissa(hx, ix), mantissa(hy, iy));
    let steps = (ix - iy) as u64;
    for taken in 1..=steps {
        let difference = mx - my;
        step(difference < 0);
        if difference < 0 {
            mx += mx;
        } else if difference == 0 {
            return Some((taken, false));
        } else {
            mx = difference + difference;
        }
    }
    Some((steps, true))
}

#[cfg(test)]
mod tests {
    use super::fmod_loop;

    /// The steps of [`fmod_loop`]: 0 where it returns before the loop.
    fn fmod_steps(x: f64, y: f64) -> u64 {
        fmod_loop(x, y, |_| {}).map_or(0, |(steps, _)| steps)
    }

    #[test]
    fn fmod_takes_a_step_per_bit_of_exponent_between_its_operands() {
        // 1000.5 = 1.95 * 2^9 over 1 = 2^0: nine steps.
        assert_eq!(fmod_steps(1000.5, 1.0), 9);
        assert_eq!(fmod_steps(-1000.5, -1.0), 9);
        // 1000 is a multiple of 1: the remainder is exactly 0 at the seventh step.
        assert_eq!(fmod_steps(1000.0, 1.0), 7);
        // 7.5 = 1.875 * 2^2 over 2.0 = 2^1: one step (7.5 mod 2 = 1.5).
        assert_eq!(fmod_steps(7.5, 2.0), 1);
        // |x| < |y| or |x| = |y|: the C function returns before the loop.
        assert_eq!(fmod_steps(0.5, 1.0), 0);
        assert_eq!(fmod_steps(3.0, 3.0), 0);
        // 6 = 1.5 * 2^2 over 1.5 * 2^0: 1.5 - 1.5 is exactly 0 at the first step.
        assert_eq!(fmod_steps(6.0, 1.5), 1);
        // Not finite, or a zero divisor: no loop.
        assert_eq!(fmod_steps(f64::INFINITY, 1.0), 0);
        assert_eq!(fmod_steps(1.0, 0.0), 0);
        assert_eq!(fmod_steps(f64::NAN, 1.0), 0);
        // A subnormal divisor, 2^-1074 (ilogb -1074): both are powers of two, so 1.0 is
        // exactly divisible at the first step and 1.5 at the second.
        assert_eq!(fmod_steps(1.0, f64::from_bits(1)), 1);
        assert_eq!(fmod_steps(1.5, f64::from_bits(1)), 2);
        // 1.25 over 0.3 = 1.2 * 2^-2: two steps, neither exact.
        assert_eq!(fmod_steps(1.25, 0.3), 2);
        // Exponents 2^996 and 2^-997 apart: 1993 steps.
        assert_eq!(fmod_steps(1e300, 1e-300), 1993);
    }

    #[test]
    fn fmod_tells_each_steps_sign_and_whether_its_loop_ran_out() {
        let signs = |x: f64, y: f64| {
            let mut signs = Vec::new();
            let end = fmod_loop(x, y, |negative| signs.push(negative));
            (signs, end)
        };
        // 1.25 over 1.2 * 2^-2: 1.25 - 1.2 = 0.05 (not negative), then 0.1 - 1.2 (negative).
        assert_eq!(signs(1.25, 0.3), (vec![false, true], Some((2, true))));
        // 6 over 1.5: exactly 0 at the first step, and the loop's test does not run again.
        assert_eq!(signs(6.0, 1.5), (vec![false], Some((1, false))));
        // Same exponent: no step, and the test runs once.
        assert_eq!(signs(1.75, 1.5), (vec![], Some((0, true))));
        assert_eq!(signs(0.5, 1.0), (vec![], None));
    }
}
