//! Compiles the typed syntax tree into the executable IR ([`crate::ir`]), making statically
//! every decision that `ocamlopt` makes statically:
//!
//! - variables become frame slots, closure-environment indices or global slots, so that the
//!   interpreter never looks a name up;
//! - a function is *closed* when all its free variables are top-level values, compile-time
//!   constants or other closed functions; `ocamlopt` emits closed functions as static data,
//!   so creating one counts nothing, while a function that captures variables allocates a
//!   closure (`FunDef` + `Closure` × captured variables);
//! - constant data (literals, and tuples, lists and constructors of constants, including
//!   through `let`-bound constants) are static values: building them counts nothing;
//! - comparisons are specialised by their operand type, primitives applied to all their
//!   arguments are inlined, and applications carry their tail tag.
//!
//! Operators, primitives and applications are in [`crate::compile_app`]; function expressions
//! in [`crate::compile_fun`]; patterns, `let` bindings and whole programs in
//! [`crate::compile_pat`].

use crate::ast::*;

use crate::infer::Typing;
use crate::ir::*;
use crate::prims::{self, Prim};
use crate::types::CmpClass;
use std::collections::HashMap;

#[derive(Debug)]
pub(crate) struct CompileError {
    pub pos: Pos,
    pub message: String,
}

pub(crate) type CResult<T> = Result<T, CompileError>;

/// What a name denotes while compiling.
#[derive(Debug, Clone)]
pub(crate) enum Bound {
    /// A slot of the frame of the function at nesting `depth`; `id` identifies the binding
    /// for capture bookkeeping.
    Local {
        slot: Slot,
        depth: usize,
        id: u32,
    },
    Global(Slot),
    Const(StaticValue),
    ClosedFun(FunId),
    /// A member of an open recursive group, seen from inside the group's functions.
    Sibling {
        fid: FunId,
        depth: usize,
        id: u32,
    },
    /// A member of a closed recursive group, seen from inside the group's functions (at
    /// `depth`): a static function, except to a closure nested in it that is allocated anyway,
    /// which captures it (in ocamlopt's Lambda it is a variable there, the function's own
    /// closure; `trie_int_lists`'s `upd`, which names `insert`, has a field more for it).
    OwnClosed {
        fid: FunId,
        depth: usize,
        id: u32,
    },
    Prim(Prim),
}

#[derive(Debug, Clone)]
pub(crate) struct ScopeEntry {
    pub name: String,
    pub bound: Bound,
    /// The arity, when the name is bound to a function the compiler knows.
    pub arity: Option<u32>,
}

/// The result of compiling an expression: code, or a value known at compile time.
pub(crate) enum Out {
    Code(Code),
    Const(StaticValue),
}

pub(crate) struct FunCtx {
    pub next_slot: u32,
    /// Index of the capture table (shared by the functions of a recursive group).
    pub table: usize,
}

#[derive(Default)]
pub(crate) struct CaptureTable {
    pub loads: Vec<Code>,
    pub ids: Vec<u32>,
    /// Whether the closure (or recursive group) it belongs to is allocated, because it
    /// captures a variable: it then captures the enclosing recursive functions it names too
    /// ([`Bound::OwnClosed`]).
    pub allocated: bool,
}

pub(crate) struct Compiler<'a> {
    pub typing: &'a Typing,
    pub funs: Vec<Option<FunCode>>,
    pub statics: Vec<StaticValue>,
    pub scope: Vec<ScopeEntry>,
    pub ctxs: Vec<FunCtx>,
    pub tables: Vec<CaptureTable>,
    pub(crate) prim_funs: HashMap<(String, Option<CmpClass>), FunId>,
    /// Functions ocamlopt compiles as tupled (see [`Compiler::tupled_arity`]): a known call
    /// of one with a tuple written out passes the components.
    pub(crate) tupled: std::collections::HashSet<FunId>,
    next_binding: u32,
    /// Bindings of references compiled as mutable variables (see
    /// [`crate::compile_imperative`]).
    pub(crate) mut_vars: std::collections::HashSet<u32>,
    /// Compiling the Stdlib's code (the prelude and the modules a program uses).
    pub(crate) library: bool,
    /// The Stdlib module whose code is being compiled (`None`: the program's own).
    pub(crate) module: Option<String>,
    /// Element reads and checks that ocamlopt's CSE shares (see [`crate::shared_checks`]).
    pub(crate) shared: HashMap<NodeId, crate::shared_checks::Shared>,
    /// Divisions and remainders whose quotient ocamlopt's CSE computed already (see
    /// [`crate::shared_quotients`]).
    pub(crate) reused_quotients: std::collections::HashSet<NodeId>,
}

pub(crate) fn err<T>(pos: Pos, message: impl Into<String>) -> CResult<T> {
    Err(CompileError {
        pos,
        message: message.into(),
    })
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(typing: &'a Typing) -> Self {
        let mut c = Compiler {
            typing,
            funs: Vec::new(),
            statics: Vec::new(),
            scope: Vec::new(),
            ctxs: vec![FunCtx {
                next_slot: 0,
                table: 0,
            }],
            tables: vec![CaptureTable::default()],
            prim_funs: HashMap::new(),
            tupled: std::collections::HashSet::new(),
            next_binding: 0,
            mut_vars: Default::default(),
            library: false,
            module: None,
            shared: HashMap::new(),
            reused_quotients: Default::default(),
        };
        for p in prims::PRIMS {
            c.scope.push(ScopeEntry {
                name: p.name.into(),
                bound: Bound::Prim(p.prim),
                arity: Some(p.arity as u32),
            });
        }
        c
    }

    pub(crate) fn depth(&self) -> usize {
        self.ctxs.len() - 1
    }

    pub(crate) fn new_slot(&mut self) -> Slot {
        let ctx = self.ctxs.last_mut().expect("a frame");
        ctx.next_slot += 1;
        ctx.next_slot - 1
    }

    pub(crate) fn new_binding_id(&mut self) -> u32 {
        self.next_binding += 1;
        self.next_binding
    }

    pub(crate) fn bind_local(&mut self, name: &str, slot: Slot, arity: Option<u32>) {
        let id = self.new_binding_id();
        let bound = Bound::Local {
            slot,
            depth: self.depth(),
            id,
        };
        self.scope.push(ScopeEntry {
            name: name.into(),
            bound,
            arity,
        });
    }

    pub(crate) fn reserve_fun(&mut self) -> FunId {
        self.funs.push(None);
        (self.funs.len() - 1) as FunId
    }

    pub(crate) fn lower(&mut self, out: Out) -> Code {
        match out {
            Out::Code(c) => c,
            Out::Const(StaticValue::Imm(i)) => Code::Imm(i),
            Out::Const(v) => {
                self.statics.push(v);
                Code::Static((self.statics.len() - 1) as StaticId)
            }
        }
    }

    pub(crate) fn code(&mut self, e: &Expr) -> CResult<Code> {
        let out = self.expr(e)?;
        Ok(self.lower(out))
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<&ScopeEntry> {
        let module = self.module.as_deref();
        self.scope
            .iter()
            .rev()
            .find(|e| crate::ast::binds(&e.name, name, module))
    }

    /// Whether referring to `name` from a new function would need no capture.
    pub(crate) fn is_static_name(&self, name: &str) -> bool {
        match self.lookup(name).map(|e| &e.bound) {
            Some(Bound::Local { .. } | Bound::Sibling { .. }) => false,
            Some(_) | None => true,
        }
    }

    /// The load of a variable bound at `depth` (by `origin` there) from the current function,
    /// capturing it into each enclosing closure on the way.
    fn capture(&mut self, depth: usize, id: u32, origin: Code) -> Code {
        let mut load = origin;
        for d in depth + 1..=self.depth() {
            let table = &mut self.tables[self.ctxs[d].table];
            let index = match table.ids.iter().position(|&k| k == id) {
                Some(i) => i,
                None => {
                    table.ids.push(id);
                    table.loads.push(load);
                    table.ids.len() - 1
                }
            };
            load = Code::Env(index as u32);
        }
        load
    }

    fn var(&mut self, name: &str, e: &Expr) -> CResult<Out> {
        let Some(entry) = self.lookup(name).cloned() else {
            return err(e.pos, format!("unbound value {name}"));
        };
        let here = self.depth();
        Ok(Out::Code(match entry.bound {
            Bound::Local { slot, depth, .. } if depth == here => Code::Local(slot),
            Bound::Local { slot, depth, id } => self.capture(depth, id, Code::Local(slot)),
            Bound::Sibling { fid, depth, .. } if depth == here => Code::Sibling(fid),
            Bound::Sibling { fid, depth, id } => self.capture(depth, id, Code::Sibling(fid)),
            Bound::Global(slot) => Code::Global(slot),
            Bound::Const(v) => return Ok(Out::Const(v)),
            Bound::ClosedFun(fid) => Code::ClosedFun(fid),
            Bound::OwnClosed { fid, depth, id }
                if depth < here && self.tables[self.ctxs[here].table].allocated =>
            {
                self.capture(depth, id, Code::ClosedFun(fid))
            }
            Bound::OwnClosed { fid, .. } => Code::ClosedFun(fid),
            Bound::Prim(Prim::IntConstant(n)) => return Ok(Out::Const(StaticValue::Imm(n))),
            // A field of the Stdlib's module block, read at run time (`stdlib.ml` computes it
            // with `float_of_bits`): not a constant ocamlopt can build a block of, so
            // `(0.0, neg_infinity)` is allocated where it is evaluated (3 words).
            Bound::Prim(Prim::FloatConstant(c)) => {
                let value = self.lower(Out::Const(StaticValue::Float(c.value())));
                return Ok(Out::Code(value));
            }
            Bound::Prim(p) => Code::ClosedFun(self.prim_function(name, p, e)?),
        }))
    }

    pub(crate) fn comparison_class(&self, node: NodeId) -> CmpClass {
        self.typing
            .comparisons
            .get(&node)
            .copied()
            .unwrap_or(CmpClass::Poly)
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> CResult<Out> {
        Ok(match &e.kind {
            ExprKind::Int(i) => Out::Const(StaticValue::Imm(*i)),
            ExprKind::Bool(b) => Out::Const(StaticValue::Imm(i64::from(*b))),
            ExprKind::Unit => Out::Const(StaticValue::Imm(0)),
            ExprKind::Char(c) => Out::Const(StaticValue::Imm(i64::from(*c))),
            ExprKind::Float(f) => Out::Const(StaticValue::Float(*f)),
            ExprKind::Str(s) => Out::Const(StaticValue::Str(s.as_str().into())),
            ExprKind::Var(name) => self.var(name, e)?,
            ExprKind::Constr(name, arg) => self.constr(e, name, arg.as_deref())?,
            ExprKind::Tuple(items) => {
                let outs = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<CResult<Vec<_>>>()?;
                match all_const(&outs) {
                    Some(fields) => Out::Const(StaticValue::Block { tag: 0, fields }),
                    None => Out::Code(Code::Tuple(
                        outs.into_iter().map(|o| self.lower(o)).collect(),
                    )),
                }
            }
            ExprKind::List(items) => {
                let outs = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<CResult<Vec<_>>>()?;
                self.list(outs, StaticValue::Imm(0))
            }
            ExprKind::Cons(h, t) => {
                let h = self.expr(h)?;
                match self.expr(t)? {
                    Out::Const(tail @ (StaticValue::List(_) | StaticValue::Imm(0))) => {
                        self.list(vec![h], tail)
                    }
                    t => {
                        let h = self.lower(h);
                        let t = self.lower(t);
                        Out::Code(Code::Cons(Box::new((h, t))))
                    }
                }
            }
            ExprKind::App { func, args, tail } => self.app(e, func, args, *tail)?,
            ExprKind::BinOp(op, a, b) => {
                let (a, b) = (self.code(a)?, self.code(b)?);
                let reused = self.reused_quotients.contains(&e.id);
                let class = self.comparison_class(e.id);
                Out::Code(self.binop(*op, class, a, b, e.pos, reused))
            }
            ExprKind::UnOp(op, a) => {
                let a = self.code(a)?;
                let op = if *op == UnOp::Neg {
                    Op1::Neg
                } else {
                    Op1::FNeg
                };
                Out::Code(Code::Op1(op, Box::new(a)))
            }
            ExprKind::If(c, t, el) => {
                let c = self.code(c)?;
                let t = self.code(t)?;
                let el = match el {
                    Some(el) => self.code(el)?,
                    None => Code::Imm(0),
                };
                Out::Code(Code::If(Box::new((c, t, el, IfChains::default()))))
            }
            ExprKind::Seq(a, b) => {
                let a = self.code(a)?;
                let b = self.code(b)?;
                Out::Code(Code::Seq(Box::new((a, b))))
            }
            ExprKind::Let {
                rec_: true,
                bindings,
                body,
            } => {
                let mark = self.scope.len();
                let group = self.rec_group(bindings, false)?;
                let body = self.code(body)?;
                self.scope.truncate(mark);
                Out::Code(Code::LetRec(Box::new((group, body))))
            }
            ExprKind::Let {
                rec_: false,
                bindings,
                body,
            } => self.let_in(bindings, body)?,
            ExprKind::Fun { .. } | ExprKind::Function(_) => {
                self.lambda(e, "fun", Inline::Default)?.0
            }
            ExprKind::Match(scrutinee, arms) => self.match_expr(e, scrutinee, arms)?,
            ExprKind::MatchExn(scrutinee, arms, handlers) => {
                self.match_exn(e, scrutinee, arms, handlers)?
            }
            ExprKind::Try(body, arms) => {
                let body = self.code(body)?;
                let arms = self.arms(arms)?;
                Out::Code(Code::Try(Box::new(Try { body, arms })))
            }
            ExprKind::Annot(inner, _) => self.expr(inner)?,
            ExprKind::Record(..)
            | ExprKind::Field(..)
            | ExprKind::SetField(..)
            | ExprKind::Array(_)
            | ExprKind::ArrayGet(..)
            | ExprKind::ArraySet(..)
            | ExprKind::For { .. }
            | ExprKind::While(..) => self.imperative(e)?,
        })
    }

    /// `match e with … | exception …`: the scrutinee runs under a trap, the value's cases
    /// after it is popped (Translcore's static catch around a `try`). The parser refuses a
    /// tuple scrutinee here, whose components ocamlopt would bind without building it.
    pub(crate) fn match_exn(
        &mut self,
        e: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
        handlers: &[crate::ast::Arm],
    ) -> CResult<Out> {
        let scrutinee = self.code(scrutinee)?;
        let last_untested = self.last_untested(arms);
        let arms = self.arms(arms)?;
        let handlers = self.arms(handlers)?;
        Ok(Out::Code(Code::Match(Box::new(Match {
            scrutinee,
            arms,
            handlers,
            pos: e.pos,
            last_untested,
            resolve: 0,
        }))))
    }

    /// A list of `items` ending in the static list `tail`: the longest constant suffix is static.
    fn list(&mut self, mut items: Vec<Out>, tail: StaticValue) -> Out {
        let mut static_tail = match tail {
            StaticValue::List(v) => v,
            _ => Vec::new(),
        };
        let mut suffix = Vec::new();
        while let Some(Out::Const(_)) = items.last() {
            if let Some(Out::Const(v)) = items.pop() {
                suffix.push(v);
            }
        }
        suffix.reverse();
        suffix.append(&mut static_tail);
        let tail = if suffix.is_empty() {
            StaticValue::Imm(0)
        } else {
            StaticValue::List(suffix)
        };
        if items.is_empty() {
            return Out::Const(tail);
        }
        let tail = self.lower(Out::Const(tail));
        let codes: Box<[Code]> = items.into_iter().map(|o| self.lower(o)).collect();
        Out::Code(Code::List(Box::new((codes, tail))))
    }

    fn constr(&mut self, e: &Expr, name: &str, arg: Option<&Expr>) -> CResult<Out> {
        let Some(&id) = self.typing.ctor_of.get(&e.id) else {
            return err(e.pos, format!("unbound constructor {name}"));
        };
        let info = &self.typing.types.ctors[id as usize];
        let (tag, exception, arity) = (info.tag, info.exception, info.args.len());
        if info.constant {
            return Ok(Out::Const(if exception {
                StaticValue::Exn(tag)
            } else {
                StaticValue::Imm(i64::from(tag))
            }));
        }
        let inline_record = info.inline_record;
        let parts: Vec<&Expr> = match (arity, arg) {
            _ if let Some(record) = inline_record => self.inline_record_fields(record, arg),
            (1, Some(a)) => vec![a],
            (
                _,
                Some(Expr {
                    kind: ExprKind::Tuple(items),
                    ..
                }),
            ) => items.iter().collect(),
            _ => {
                return err(
                    e.pos,
                    format!("constructor {name} applied to the wrong number of arguments"),
                )
            }
        };
        let outs = parts
            .into_iter()
            .map(|p| self.expr(p))
            .collect::<CResult<Vec<_>>>()?;
        // A mutable inline record is a fresh block each time, never a shared constant.
        let mutable = inline_record.is_some_and(|r| {
            self.typing.types.records[&r]
                .fields
                .iter()
                .any(|f| f.mutable)
        });
        if !exception && !mutable {
            if let Some(fields) = all_const(&outs) {
                return Ok(Out::Const(StaticValue::Block { tag, fields }));
            }
        }
        let codes: Vec<Code> = outs.into_iter().map(|o| self.lower(o)).collect();
        Ok(Out::Code(if exception {
            Code::Exn(tag, codes.into())
        } else if mutable {
            let make = ImpOp::Make {
                flat: false,
                tag: Some(tag),
            };
            self.imp(make, codes, e.pos)
        } else {
            Code::Block(tag, codes.into())
        }))
    }

    /// How native code names a function called `name` here (see [`FunCode::symbol`]).
    pub(crate) fn symbol(&self, name: &str) -> String {
        match self.module.as_deref() {
            Some(module) if !name.contains('.') && !crate::stdlib_source::unqualified(module) => {
                format!("{module}.{name}")
            }
            _ => name.to_string(),
        }
    }

    pub(crate) fn reserve(&mut self) -> FunId {
        self.reserve_fun()
    }

    pub(crate) fn finish_funs(&mut self) -> Vec<FunCode> {
        std::mem::take(&mut self.funs)
            .into_iter()
            .map(|f| f.expect("every reserved function is compiled"))
            .collect()
    }
}

pub(crate) fn all_const(outs: &[Out]) -> Option<Vec<StaticValue>> {
    outs.iter()
        .map(|o| match o {
            Out::Const(v) => Some(v.clone()),
            Out::Code(_) => None,
        })
        .collect()
}
