//! The intermediate form of a program, produced by [`crate::compile`] and compiled to
//! closures by [`crate::lower`]: variables resolved to frame slots, closure environments or globals;
//! comparisons specialised by type; tail calls tagged; closures annotated with what they
//! capture; compile-time constants folded into static values. Nothing here holds an `Rc`, so
//! a compiled [`Program`](crate::Program) can be shared between threads.

use crate::ast::Pos;
use crate::catalogue::Counter;
pub(crate) use crate::latency_table::Chain;

mod children;
mod imperative;

pub(crate) use imperative::*;

pub(crate) type Slot = u32;
pub(crate) type FunId = u32;
pub(crate) type StaticId = u32;

/// A value known at compile time (`ocamlopt` emits it as static data: building it costs nothing).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StaticValue {
    Imm(i64),
    Float(f64),
    Str(Box<str>),
    Block {
        tag: u32,
        fields: Vec<StaticValue>,
    },
    /// A list, flat (so that long literals do not nest).
    List(Vec<StaticValue>),
    /// A constant exception such as `Not_found`.
    Exn(u32),
    /// A record without mutable fields built from constants, or the empty array (a block of
    /// no fields); `flat`: a record of floats.
    Record {
        flat: bool,
        fields: Vec<StaticValue>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op1 {
    Not,
    Neg,
    FNeg,
    Fst,
    Snd,
    FloatOfInt,
    IntOfFloat,
    Succ,
    Pred,
    /// `abs`, which ocamlopt inlines from `stdlib.ml`: a compare with 0 and a branch, and a
    /// negation when negative.
    Abs,
    /// `sqrt`: ocamlopt's amd64 back end emits `sqrtsd` inline for the C `sqrt`.
    FSqrt,
    /// `abs_float`: `andpd` with the sign mask, the shape of `-.`'s `xorpd`.
    FAbs,
    /// `lnot`, inlined from `stdlib.ml` (`x lxor (-1)`).
    Lnot,
    Ignore,
    /// `floor x`, `sin x`, …: a direct C call ([`crate::float_call`]).
    FloatCall(crate::float_call::FloatCall),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op2 {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `*` with a literal operand (either side): ocamlopt emits a shift, an `lea` or an
    /// `imul` by an immediate instead of untag-multiply-retag.
    MulConst,
    /// `/` by a literal divisor whose magnitude is a power of two (not 0, 1 or -1): shifts and
    /// an add, no zero check.
    DivPow2,
    /// `/` by any other literal divisor (not 0, 1 or -1): a multiply-high by the reciprocal,
    /// no zero check.
    DivConst,
    /// `mod` by a literal power of two (not ±1): shifts, `and`, a subtraction.
    ModPow2,
    /// `mod` by any other literal (not 0 or ±1): the reciprocal division, a multiply, a subtraction.
    ModConst,
    /// `/` by a literal whose quotient ocamlopt's CSE computed already, from the same
    /// dividend and divisor (see [`crate::shared_quotients`]): the retagging alone. `pow2`
    /// says which sequence computed it, and so how long the quotient takes from the dividend.
    DivReused {
        pow2: bool,
    },
    /// `mod` by a literal whose quotient was computed already: a multiply by the divisor (a
    /// mask for a power of two) and a subtraction.
    ModReused {
        pow2: bool,
    },
    Land,
    Lor,
    Lxor,
    Lsl,
    Lsr,
    Asr,
    FAdd,
    FSub,
    FMul,
    FDiv,
    IntEq,
    IntNe,
    IntLt,
    IntLe,
    IntGt,
    IntGe,
    FloatEq,
    FloatNe,
    FloatLt,
    FloatLe,
    FloatGt,
    FloatGe,
    PolyEq,
    PolyNe,
    PolyLt,
    PolyLe,
    PolyGt,
    PolyGe,
    PhysEq,
    PhysNe,
    IntCompare,
    FloatCompare,
    PolyCompare,
    /// `x ** y`, `mod_float x y`, `atan2 y x`, …: a direct C call ([`crate::float_call`]).
    FloatCall(crate::float_call::FloatCall),
}

impl Op1 {
    pub(crate) fn counter(self) -> Option<Counter> {
        Some(match self {
            Op1::Not => Counter::BoolNot,
            Op1::Neg => Counter::IntUMinus,
            Op1::FNeg => Counter::FloatUMinus,
            Op1::Fst | Op1::Snd => Counter::TupleMatch,
            Op1::FloatOfInt => Counter::FloatOfInt,
            Op1::IntOfFloat => Counter::IntOfFloat,
            Op1::Succ => Counter::IntAdd,
            Op1::Pred => Counter::IntSub,
            Op1::Abs => Counter::IntCondGE,
            Op1::FSqrt => Counter::FloatSqrt,
            Op1::FAbs => Counter::FloatUMinus,
            Op1::Lnot => Counter::IntLxor,
            Op1::FloatCall(call) => call.counter(),
            Op1::Ignore => return None,
        })
    }
}

impl Op2 {
    /// Whether ocamlopt compiles it to a C call or a branch: a division or remainder by a
    /// variable tests the divisor for zero; polymorphic comparison calls `caml_compare`
    /// (`caml_string_*` on strings); `compare` on floats branches on the unordered case.
    pub(crate) fn calls_or_branches(self) -> bool {
        use Op2::*;
        matches!(
            self,
            Div | Mod
                | PolyEq
                | PolyNe
                | PolyLt
                | PolyLe
                | PolyGt
                | PolyGe
                | PolyCompare
                | FloatCompare
                | FloatCall(_)
        )
    }

    /// A comparison that yields a boolean from immediates or floats: a compare and a jump in
    /// a condition, a materialised flag as a value (`CondValue`).
    pub(crate) fn is_flag_comparison(self) -> bool {
        use Op2::*;
        matches!(
            self,
            IntEq
                | IntNe
                | IntLt
                | IntLe
                | IntGt
                | IntGe
                | FloatEq
                | FloatNe
                | FloatLt
                | FloatLe
                | FloatGt
                | FloatGe
                | PhysEq
                | PhysNe
        )
    }

    pub(crate) fn counter(self) -> Counter {
        use Op2::*;
        match self {
            Add => Counter::IntAdd,
            Sub => Counter::IntSub,
            Mul => Counter::IntMult,
            Div => Counter::IntDiv,
            Mod => Counter::IntMod,
            MulConst => Counter::IntMultConst,
            DivPow2 => Counter::IntDivPow2,
            DivConst => Counter::IntDivConst,
            ModPow2 => Counter::IntModPow2,
            ModConst => Counter::IntModConst,
            DivReused { .. } => Counter::IntDivReused,
            ModReused { .. } => Counter::IntModReused,
            Land => Counter::IntLand,
            Lor => Counter::IntLor,
            Lxor => Counter::IntLxor,
            Lsl => Counter::IntLsl,
            Lsr => Counter::IntLsr,
            Asr => Counter::IntAsr,
            FAdd => Counter::FloatAdd,
            FSub => Counter::FloatSub,
            FMul => Counter::FloatMult,
            FDiv => Counter::FloatDiv,
            // `<>` is the same compare-and-branch as `=` with the opposite condition, and `==`
            // is a word compare at every type.
            IntEq | IntNe | PhysEq | PhysNe => Counter::IntCondEq,
            IntLt => Counter::IntCondLT,
            IntLe => Counter::IntCondLE,
            IntGt => Counter::IntCondGT,
            IntGe => Counter::IntCondGE,
            FloatEq | FloatNe => Counter::FloatCondEq,
            FloatLt => Counter::FloatCondLT,
            FloatLe => Counter::FloatCondLE,
            FloatGt => Counter::FloatCondGT,
            FloatGe => Counter::FloatCondGE,
            PolyEq | PolyNe | PolyLt | PolyLe | PolyGt | PolyGe | PolyCompare => {
                Counter::PolyCompare
            }
            IntCompare => Counter::IntCompare,
            FloatCompare => Counter::FloatCompare,
            FloatCall(call) => call.counter(),
        }
    }
}

#[derive(Debug)]
pub(crate) enum Code {
    Imm(i64),
    Static(StaticId),
    Local(Slot),
    /// The last read of a local: moves the value out of the frame (see [`crate::liveness`]).
    TakeLocal(Slot),
    /// A variable captured in the running closure's environment.
    Env(u32),
    /// A top-level binding: a slot of the top-level frame at the bottom of the stack.
    Global(Slot),
    /// A function of the running closure's recursive group: it shares the running environment.
    Sibling(FunId),
    /// A function without captured variables: a static closure in native code.
    ClosedFun(FunId),
    /// Allocates a closure: `FunDef` + `Closure` × captures.
    MakeClosure(Box<MakeClosure>),
    Let(Box<Let>),
    LetRec(Box<(RecGroup, Code)>),
    /// `if c then t else e`, and what its condition and arms carry (see [`IfChains`]).
    If(Box<(Code, Code, Code, IfChains)>),
    Seq(Box<(Code, Code)>),
    And(Box<(Code, Code)>),
    Or(Box<(Code, Code)>),
    App(Box<App>),
    Op1(Op1, Box<Code>),
    Op2(Box<Op2Node>),
    Tuple(Box<[Code]>),
    Cons(Box<(Code, Code)>),
    /// `[e1; …; en]` onto a (static) tail: `Cons` × n.
    List(Box<(Box<[Code]>, Code)>),
    /// A non-constant constructor: `VariantHead` + `VariantElem` × arity.
    Block(u32, Box<[Code]>),
    /// An exception with arguments (allocated like a variant).
    Exn(u32, Box<[Code]>),
    Match(Box<Match>),
    MatchTuple(Box<MatchTuple>),
    Try(Box<Try>),
    Raise(Box<Code>, Pos),
    /// Frees frame slots that are dead on entry to a branch, then runs it (see
    /// [`crate::liveness`]).
    Release(Box<(Box<[Slot]>, Code)>),
    /// A new float leaving its expression as a value: `FloatBox` (see [`crate::boxing`]).
    BoxFloat(Box<Code>),
    /// Records, references and arrays.
    Imp(Box<ImpNode>),
    /// Assigns a mutable variable (a reference ocamlopt turned into one, see
    /// [`crate::compile_imperative`]): a register move, free.
    Assign(Slot, Box<Code>),
    For(Box<ForLoop>),
    /// `while cond do body done`, the chain an iteration carries and what its test waits on
    /// (both set by [`crate::chain`]; a test has no way back).
    While(Box<(Code, Code, Chain, IfChains)>),
    /// An allocating node, `n` of whose blocks ocamlopt allocates together with blocks before
    /// them: `AllocMerged` × n (see [`crate::comballoc`]).
    Combined(u32, Box<Code>),
}

#[derive(Debug)]
pub(crate) struct ForLoop {
    pub slot: Slot,
    pub from: Code,
    pub until: Code,
    pub down: bool,
    pub body: Code,
    /// The cycles of the dependence chain an iteration carries (see [`crate::chain`]).
    pub chain: Chain,
}

#[derive(Debug)]
pub(crate) struct MakeClosure {
    pub fun: FunId,
    /// How to load each captured value, in the creating context.
    pub captures: Box<[Code]>,
}

#[derive(Debug)]
pub(crate) struct RecGroup {
    /// The slot each function is bound to, and its code.
    pub funs: Box<[(Slot, FunId)]>,
    /// Captured values shared by the group (empty: the group is closed, i.e. static).
    pub captures: Box<[Code]>,
}

#[derive(Debug)]
pub(crate) enum Binder {
    Slot(Slot),
    Pattern { pat: Pat, refutable: bool, pos: Pos },
}

#[derive(Debug)]
pub(crate) struct Let {
    pub binder: Binder,
    pub value: Code,
    /// `LetData` or `LetLambda`; `None` for tuple destructuring (counted as `TupleMatch`) and
    /// for function parameters.
    pub counter: Option<Counter>,
    pub body: Code,
    /// A mutable variable of type float (an eliminated `float ref`): Cmmgen keeps it unboxed.
    pub float_var: bool,
}

/// Latencies an `if` carries, set by [`crate::chain`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct IfChains {
    /// The cycles its condition takes to compute from what the iteration it runs in begins
    /// with: what a misprediction of it wastes (see [`crate::branch_trace`]).
    pub resolve: u32,
    /// Whether the condition waits on the chain that binds the loop it runs in: a source on
    /// the loop's slowest cycle (see [`crate::branch_trace`]: a mispredicted exit on such a test
    /// lets nothing after the loop overlap its chain).
    pub waits_on_chain: bool,
    /// In a linear recursion, an `if` whose value waits on the self call's result (`if e mod
    /// 2 = 0 then h else b * h mod m`): the cycles from that result through the `then` and
    /// the `else` arm, so that each level's way back carries the arm it ran rather than the
    /// mean of the two ([`FunCode::return_chain`]). `None` elsewhere.
    pub way_back: Option<[Chain; 2]>,
}

#[derive(Debug)]
pub(crate) struct App {
    pub func: Code,
    pub args: Box<[Code]>,
    pub tail: bool,
    /// The callee is a let-bound function whose arity the compiler knows: its partial
    /// applications are built inline, without a call.
    pub known: bool,
    /// Loads and stores after a non-tail call: each variable still needed and read before
    /// the next call is loaded back from the stack frame, each operand already evaluated is
    /// stored before it and loaded back (`Spill` × this; set by [`crate::liveness`]).
    pub kept_live: u32,
    /// The variables live across a non-tail call: each is stored in the frame at the first
    /// call it crosses after it was last written (`Spill`, counted as the program runs).
    pub kept_slots: Box<[Slot]>,
    /// For a call of the running function, the cycles of the dependence chain the loop it
    /// closes carries into the next iteration, counted as `ChainCycle` where it binds when the
    /// call enters the function again (set by [`crate::chain`]; see [`crate::issue`]).
    pub chain: Chain,
    /// A non-tail call of the running function in a linear recursion (one self call site):
    /// it goes one level down, and its return ends a level of the way back (see
    /// [`FunCode::return_chain`]).
    pub descends: bool,
    /// For a call of the running function, that function: the call ends one iteration of its
    /// loop, measured from the previous one or from the function's entry (see
    /// [`crate::issue`]), whichever of its self calls it goes through.
    pub closes_loop: Option<FunId>,
}

#[derive(Debug)]
pub(crate) struct Op2Node {
    pub op: Op2,
    pub lhs: Code,
    pub rhs: Code,
    pub pos: Pos,
}

#[derive(Debug)]
pub(crate) enum Pat {
    Any,
    Bind(Slot),
    Imm(i64),
    Float(f64),
    Str(Box<str>),
    Cons(Box<(Pat, Pat)>),
    /// Destructures a tuple: `TupleMatch` × arity.
    Tuple(Box<[Pat]>),
    Block(u32, Box<[Pat]>),
    Exn(u32, Box<[Pat]>),
    Or(Box<(Pat, Pat)>),
    As(Box<Pat>, Slot),
    /// The fields a record pattern names, by index: `TupleMatch` each.
    Record(Box<[(u32, Pat)]>),
}

#[derive(Debug)]
pub(crate) struct Arm {
    pub pat: Pat,
    pub guard: Option<Code>,
    pub body: Code,
}

#[derive(Debug)]
pub(crate) struct Match {
    pub scrutinee: Code,
    pub arms: Box<[Arm]>,
    /// `exception` cases (empty for an ordinary match): the scrutinee runs under a trap
    /// (`TryWith`) they handle, popped before `arms` run.
    pub handlers: Box<[Arm]>,
    pub pos: Pos,
    /// The match is exhaustive and its last arm has no guard: native code reaches that arm
    /// when the others' tests fail, without a test of its own (see `exhaustive.rs`).
    pub last_untested: bool,
    /// For a match through a jump table, the cycles until its target is known: its value's,
    /// and the load of the tag (set by [`crate::chain`]; see [`crate::branch_trace`]).
    pub resolve: u32,
}

/// `match (e1, …, en) with …`: the tuple is never built (as in native code) unless an arm
/// binds it whole.
#[derive(Debug)]
pub(crate) struct MatchTuple {
    pub components: Box<[Code]>,
    /// Slots receiving the evaluated components.
    pub slots: Box<[Slot]>,
    pub arms: Box<[TupleArm]>,
    pub pos: Pos,
    /// As [`Match::last_untested`].
    pub last_untested: bool,
}

#[derive(Debug)]
pub(crate) enum TupleArmPat {
    /// Alternatives, each one pattern per component.
    Components(Vec<Box<[Pat]>>),
    /// A pattern that needs the tuple itself (`| t -> …`, `| (a, b) as t -> …`).
    Whole(Pat),
}

#[derive(Debug)]
pub(crate) struct TupleArm {
    pub pat: TupleArmPat,
    pub guard: Option<Code>,
    pub body: Code,
}

#[derive(Debug)]
pub(crate) struct Try {
    pub body: Code,
    pub arms: Box<[Arm]>,
}

#[derive(Debug)]
pub(crate) struct FunCode {
    pub name: String,
    /// The name as native code's symbol says it, without its stamp: `name` inside the
    /// program and `stdlib.ml` (`camlBench_program__loop_81`), `List.rmap_f` for a function
    /// of `list.ml`, local ones included (`camlStdlib__list__rmap_f_220`). What counts per
    /// function are keyed by ([`crate::FunctionCounts`]).
    pub symbol: String,
    pub arity: u32,
    /// Slots of the frame: the parameters first, then every local the body binds.
    pub frame_size: u32,
    pub body: Code,
    pub pos: Pos,
    /// Native code gives the function a stack frame (see [`crate::frame::needs_frame`]).
    pub framed: bool,
    /// Words of that frame, return address included (0 without one): set by
    /// [`crate::liveness`] from the values its calls keep.
    pub native_frame_words: u32,
    /// The head of the loop its self tail calls close polls (see [`crate::poll`]).
    pub loop_polls: bool,
    /// It calls itself: entering it starts an iteration of its loop (set by [`crate::chain`]).
    pub is_loop: bool,
    /// A linear recursion's way back: the cycles from its self call's result to its return
    /// value, counted where each level returns (set by [`crate::chain`]).
    pub return_chain: Chain,
    /// Its one parameter is a tuple pattern, which ocamlopt flattens into `arity` parameters
    /// (see [`crate::compile::Compiler::tupled_arity`]).
    pub tupled: bool,
    /// Its binding's inline attribute (see [`crate::inline`]).
    pub inline: crate::ast::Inline,
    /// Compiled from the Stdlib's sources, with the Stdlib's own inlining threshold.
    pub library: bool,
}

#[derive(Debug)]
pub(crate) enum TopItem {
    Let(Binder, Code, Option<Counter>),
    LetRec(RecGroup),
    Expr(Code),
}

#[derive(Debug)]
pub(crate) struct Compiled {
    pub funs: Vec<FunCode>,
    pub statics: Vec<StaticValue>,
    pub items: Vec<TopItem>,
    /// Slots of the top-level frame (globals and the locals of top-level expressions).
    pub toplevel_frame: u32,
    /// Number of leading items that come from the prelude (never counted).
    pub prelude_items: usize,
    /// Global slot of the last top-level binding of each name, for `input` and `run`.
    pub globals_by_name: std::collections::HashMap<String, Slot>,
    /// Names of exception constructors by identity, for messages.
    pub exception_names: Vec<String>,
}
