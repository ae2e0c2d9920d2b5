//! Compiling operators, primitives and applications: comparisons specialised by type,
//! primitives inlined when saturated (eta-expanded into closed functions otherwise), and
//! applications tagged with their tail position and whether the callee is a known function.

use crate::ast::*;
use crate::compile::{Bound, CResult, Compiler, Out, ScopeEntry};
use crate::ir::*;
use crate::prims::{self, Prim};
use crate::types::{CmpClass, EXN_FAILURE, EXN_INVALID_ARGUMENT};

impl Compiler<'_> {
    /// `reused`: a division or remainder by a constant whose quotient was computed already
    /// (see [`crate::shared_quotients`]).
    pub(crate) fn binop(
        &mut self,
        op: BinOp,
        class: CmpClass,
        a: Code,
        b: Code,
        pos: Pos,
        reused: bool,
    ) -> Code {
        use BinOp as B;
        use CmpClass as C;
        let op2 = match (op, class) {
            (B::And, _) => return Code::And(Box::new((a, b))),
            (B::Or, _) => return Code::Or(Box::new((a, b))),
            (B::Add, _) => Op2::Add,
            (B::Sub, _) => Op2::Sub,
            (B::Mul | B::Div | B::Mod, _) => return arithmetic_by_constant(op, a, b, pos, reused),
            (B::Land, _) => Op2::Land,
            (B::Lor, _) => Op2::Lor,
            (B::Lxor, _) => Op2::Lxor,
            (B::Lsl, _) => Op2::Lsl,
            (B::Lsr, _) => Op2::Lsr,
            (B::Asr, _) => Op2::Asr,
            (B::FAdd, _) => Op2::FAdd,
            (B::FSub, _) => Op2::FSub,
            (B::FMul, _) => Op2::FMul,
            (B::FDiv, _) => Op2::FDiv,
            (B::PhysEq, _) => Op2::PhysEq,
            (B::PhysNe, _) => Op2::PhysNe,
            (B::Eq, C::Immediate) => Op2::IntEq,
            (B::Ne, C::Immediate) => Op2::IntNe,
            (B::Lt, C::Immediate) => Op2::IntLt,
            (B::Le, C::Immediate) => Op2::IntLe,
            (B::Gt, C::Immediate) => Op2::IntGt,
            (B::Ge, C::Immediate) => Op2::IntGe,
            (B::Eq, C::Float) => Op2::FloatEq,
            (B::Ne, C::Float) => Op2::FloatNe,
            (B::Lt, C::Float) => Op2::FloatLt,
            (B::Le, C::Float) => Op2::FloatLe,
            (B::Gt, C::Float) => Op2::FloatGt,
            (B::Ge, C::Float) => Op2::FloatGe,
            (B::Eq, C::Word) => Op2::PhysEq,
            (B::Ne, C::Word) => Op2::PhysNe,
            (B::Eq, C::Poly) => Op2::PolyEq,
            (B::Ne, C::Poly) => Op2::PolyNe,
            // Only `=` and `<>` are ever `Word`.
            (B::Lt, C::Poly | C::Word) => Op2::PolyLt,
            (B::Le, C::Poly | C::Word) => Op2::PolyLe,
            (B::Gt, C::Poly | C::Word) => Op2::PolyGt,
            (B::Ge, C::Poly | C::Word) => Op2::PolyGe,
        };
        Code::Op2(Box::new(Op2Node {
            op: op2,
            lhs: a,
            rhs: b,
            pos,
        }))
    }

    /// The inline code of primitive `p` applied to all its arguments.
    pub(crate) fn prim_body(
        &mut self,
        p: Prim,
        node: NodeId,
        mut args: Vec<Code>,
        pos: Pos,
    ) -> CResult<Code> {
        let class = self.comparison_class(node);
        let mut arg = |i: usize| std::mem::replace(&mut args[i], Code::Imm(0));
        Ok(match p {
            Prim::Not => Code::Op1(Op1::Not, Box::new(arg(0))),
            Prim::Fst => Code::Op1(Op1::Fst, Box::new(arg(0))),
            Prim::Snd => Code::Op1(Op1::Snd, Box::new(arg(0))),
            Prim::Ignore => Code::Op1(Op1::Ignore, Box::new(arg(0))),
            Prim::FloatOfInt => Code::Op1(Op1::FloatOfInt, Box::new(arg(0))),
            Prim::IntOfFloat => Code::Op1(Op1::IntOfFloat, Box::new(arg(0))),
            Prim::Succ => Code::Op1(Op1::Succ, Box::new(arg(0))),
            Prim::Pred => Code::Op1(Op1::Pred, Box::new(arg(0))),
            Prim::Abs => Code::Op1(Op1::Abs, Box::new(arg(0))),
            Prim::Sqrt => Code::Op1(Op1::FSqrt, Box::new(arg(0))),
            Prim::AbsFloat => Code::Op1(Op1::FAbs, Box::new(arg(0))),
            Prim::Lnot => Code::Op1(Op1::Lnot, Box::new(arg(0))),
            Prim::FloatCall(call) if call.arity() == 1 => {
                Code::Op1(Op1::FloatCall(call), Box::new(arg(0)))
            }
            Prim::FloatCall(call) => Code::Op2(Box::new(Op2Node {
                op: Op2::FloatCall(call),
                lhs: arg(0),
                rhs: arg(1),
                pos,
            })),
            Prim::Raise => Code::Raise(Box::new(arg(0)), pos),
            // Stdlib's `failwith s = raise (Failure s)`, counted as its raise (native code calls it).
            Prim::Failwith => {
                Code::Raise(Box::new(Code::Exn(EXN_FAILURE, Box::new([arg(0)]))), pos)
            }
            Prim::InvalidArg => Code::Raise(
                Box::new(Code::Exn(EXN_INVALID_ARGUMENT, Box::new([arg(0)]))),
                pos,
            ),
            Prim::Compare => {
                let op = match class {
                    CmpClass::Immediate => Op2::IntCompare,
                    CmpClass::Float => Op2::FloatCompare,
                    CmpClass::Poly | CmpClass::Word => Op2::PolyCompare,
                };
                Code::Op2(Box::new(Op2Node {
                    op,
                    lhs: arg(0),
                    rhs: arg(1),
                    pos,
                }))
            }
            Prim::Section(op) => {
                let (a, b) = (arg(0), arg(1));
                self.binop(op, class, a, b, pos, false)
            }
            Prim::IntConstant(_) | Prim::FloatConstant(_) => {
                unreachable!("constants are not applied")
            }
            Prim::Ref
            | Prim::Deref
            | Prim::Assign
            | Prim::Incr
            | Prim::Decr
            | Prim::ArrayLength
            | Prim::ArrayGet
            | Prim::ArraySet
            | Prim::ArrayMake
            | Prim::ArrayUnsafeGet
            | Prim::ArrayUnsafeSet
            | Prim::ArrayCopy(_)
            | Prim::StringLength
            | Prim::StringGet
            | Prim::StringUnsafeGet
            | Prim::BytesSet
            | Prim::BytesUnsafeSet
            | Prim::BytesCreate
            | Prim::FormatInt
            | Prim::BytesFill
            | Prim::BytesBlit => return self.imp_prim(p, node, args, pos),
            Prim::Identity => arg(0),
        })
    }

    /// The eta-expansion of a primitive used as a value: a closed function.
    pub(crate) fn prim_function(&mut self, name: &str, p: Prim, e: &Expr) -> CResult<FunId> {
        let class = p.is_type_directed().then(|| self.comparison_class(e.id));
        // An array or reference primitive's code depends on what it holds.
        let key = match self.typing.kinds.get(&e.id) {
            Some(kind) => format!("{name}:{kind:?}"),
            None => name.to_string(),
        };
        if let Some(&fid) = self.prim_funs.get(&(key.clone(), class)) {
            return Ok(fid);
        }
        let arity = prims::lookup(name).map(|i| i.arity).unwrap_or(1);
        let args = (0..arity as u32).map(Code::Local).collect();
        let body = self.prim_body(p, e.id, args, e.pos)?;
        let fid = self.reserve_fun();
        self.funs[fid as usize] = Some(FunCode {
            name: name.into(),
            // ocamlopt eta-expands a primitive used as a value into an anonymous function.
            symbol: self.symbol("fun"),
            arity: arity as u32,
            frame_size: arity as u32,
            body,
            pos: e.pos,
            framed: false,
            native_frame_words: 0,
            loop_polls: false,
            is_loop: false,
            return_chain: Chain::default(),
            tupled: false,
            inline: Inline::Default,
            library: true,
        });
        self.prim_funs.insert((key, class), fid);
        Ok(fid)
    }

    pub(crate) fn app(&mut self, e: &Expr, func: &Expr, args: &[Expr], tail: bool) -> CResult<Out> {
        if let Some(code) = self.ref_var_op(func, args)? {
            return Ok(Out::Code(code));
        }
        let entry = match &func.kind {
            ExprKind::Var(name) => self.lookup(name).cloned(),
            _ => None,
        };
        if let Some(ScopeEntry {
            bound: Bound::Prim(p),
            arity: Some(k),
            name,
        }) = &entry
        {
            let k = *k as usize;
            if args.len() >= k && k > 0 {
                let mut codes = args
                    .iter()
                    .map(|a| self.code(a))
                    .collect::<CResult<Vec<_>>>()?;
                let rest = codes.split_off(k);
                let body = self.prim_body(*p, func.id, codes, e.pos)?;
                if rest.is_empty() {
                    return Ok(Out::Code(body));
                }
                return Ok(Out::Code(Code::App(Box::new(App {
                    func: body,
                    args: rest.into(),
                    tail,
                    known: false,
                    kept_live: 0,
                    kept_slots: Box::new([]),
                    chain: Chain::default(),
                    descends: false,
                    closes_loop: None,
                }))));
            }
            let _ = name;
        }
        let mut known = entry.as_ref().is_some_and(|en| en.arity.is_some());
        let tupled = match entry.as_ref().map(|en| &en.bound) {
            Some(
                Bound::ClosedFun(fid) | Bound::Sibling { fid, .. } | Bound::OwnClosed { fid, .. },
            ) => self.tupled.contains(fid).then_some(*fid),
            _ => None,
        };
        // A tupled function (see `Compiler::tupled_arity`) called with its tuple written out
        // takes the components; with any other argument, the call goes through its closure's
        // tuplifying entry, as a call of an unknown function does.
        let components = match (tupled, args) {
            (Some(_), [arg]) => match &arg.kind {
                ExprKind::Tuple(items) => Some(items.as_slice()),
                _ => None,
            },
            _ => None,
        };
        let args = match components {
            Some(items) => items,
            None => {
                known &= tupled.is_none();
                args
            }
        };
        let func = self.code(func)?;
        let args = args
            .iter()
            .map(|a| self.code(a))
            .collect::<CResult<Box<[Code]>>>()?;
        Ok(Out::Code(Code::App(Box::new(App {
            func,
            args,
            tail,
            known,
            kept_live: 0,
            kept_slots: Box::new([]),
            chain: Chain::default(),
            descends: false,
            closes_loop: None,
        }))))
    }
}

/// `*`, `/` and `mod` as ocamlopt 4.13 selects them (`mul_int`, `div_int`, `mod_int` in
/// asmcomp/cmm_helpers.ml): an integer constant operand — the divisor of `/` and `mod`, either
/// side of `*` — is folded into the instruction sequence, with no zero check; only a divisor
/// known at run time (or the constant 0, which raises) is an `idiv` behind a test.
fn arithmetic_by_constant(op: BinOp, a: Code, b: Code, pos: Pos, reused: bool) -> Code {
    let node = |op, lhs, rhs| Code::Op2(Box::new(Op2Node { op, lhs, rhs, pos }));
    // What ocamlopt keeps of `e op k` when nothing but `e` needs computing: `e` itself, its
    // negation, or the constant after `e` (still evaluated, for its effects).
    let negation = |e: Code| Code::Op1(Op1::Neg, Box::new(e));
    let constant = |e: Code, k: i64| Code::Seq(Box::new((e, Code::Imm(k))));
    let pow2 = |k: i64| k.unsigned_abs().is_power_of_two();
    match (op, a, b) {
        (BinOp::Mul, a, Code::Imm(k)) | (BinOp::Mul, Code::Imm(k), a) => match k {
            0 => constant(a, 0),
            1 => a,
            -1 => negation(a),
            _ => node(Op2::MulConst, a, Code::Imm(k)),
        },
        (BinOp::Mul, a, b) => node(Op2::Mul, a, b),
        (BinOp::Div, a, Code::Imm(k)) => match k {
            0 => node(Op2::Div, a, Code::Imm(0)),
            1 => a,
            -1 => negation(a),
            _ if reused => node(Op2::DivReused { pow2: pow2(k) }, a, Code::Imm(k)),
            _ if pow2(k) => node(Op2::DivPow2, a, Code::Imm(k)),
            _ => node(Op2::DivConst, a, Code::Imm(k)),
        },
        (BinOp::Div, a, b) => node(Op2::Div, a, b),
        (BinOp::Mod, a, Code::Imm(k)) => match k {
            0 => node(Op2::Mod, a, Code::Imm(0)),
            1 | -1 => constant(a, 0),
            _ if reused => node(Op2::ModReused { pow2: pow2(k) }, a, Code::Imm(k)),
            _ if pow2(k) => node(Op2::ModPow2, a, Code::Imm(k)),
            _ => node(Op2::ModConst, a, Code::Imm(k)),
        },
        (BinOp::Mod, a, b) => node(Op2::Mod, a, b),
        (op, ..) => unreachable!("{op:?} is not *, / or mod"),
    }
}
