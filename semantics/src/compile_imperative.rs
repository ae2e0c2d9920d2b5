//! Compiling records, references, arrays and loops to the IR, with the decisions ocamlopt
//! 4.13 makes statically:
//!
//! - **A reference that does not escape is a variable.** Simplif's `eliminate_ref` turns
//!   `let x = ref e in body` into a mutable variable when `body` uses `x` only through `!x`,
//!   `x := v`, `incr x`, `decr x` (and `x.contents`) and no function mentions it: `!x` is then
//!   a register read (free), `x := v` a move (free), `incr x` an addition (`IntAdd`). A float
//!   variable stays unboxed (Cmmgen unboxes mutable float variables unconditionally). Any
//!   other reference is a 2-word block: `TupleMatch` to read it, `FieldSet` or `CamlModify` to
//!   write it, `AddToField` for `incr`.
//! - **Representation by type** (`Typeopt.classify`): a record whose fields are all floats and
//!   a `float array` are flat blocks of doubles, read and written unboxed; a store of a value
//!   that may be a pointer goes through `caml_modify`. An array whose element type is a type
//!   variable (`Pgenarray`: ocamlopt tests the tag at run time) is refused.
//! - **Constants.** A record without mutable fields built from constants is static data, as
//!   is `[||]`; a constant array literal of more than four elements is copied by
//!   `caml_obj_dup` at run time, which is not modelled and is refused.

use crate::ast::*;
use crate::catalogue::Counter;
use crate::compile::{all_const, err, Bound, CResult, Compiler, Out};
use crate::expr_shapes::{in_place_offset, only_ref_uses, rereads_element, REF_OPS};
use crate::ir::*;
use crate::prims::Prim;
use crate::shared_checks::Shared;
use crate::types::ValueKind;

impl Compiler<'_> {
    fn kind(&self, node: NodeId) -> ValueKind {
        self.typing
            .kinds
            .get(&node)
            .copied()
            .unwrap_or(ValueKind::Any)
    }

    /// How an array element of `node`'s kind is stored: a float array is flat, so a double
    /// is one store.
    fn store_kind(&self, node: NodeId) -> StoreKind {
        match self.kind(node) {
            ValueKind::Immediate | ValueKind::Float => StoreKind::Plain,
            ValueKind::Addr | ValueKind::Any => StoreKind::Barrier,
        }
    }

    /// How a field of a block that is not flat — a reference cell, a record with a field that
    /// is not a float — is stored: a float there is a pointer to a boxed double, so ocamlopt
    /// boxes it and stores it with `caml_modify` (`Psetfield (_, Pointer, _)`: typeopt's
    /// `maybe_pointer_type` gives Pointer for every type that is not immediate).
    fn field_store_kind(&self, node: NodeId) -> StoreKind {
        match self.kind(node) {
            ValueKind::Immediate => StoreKind::Plain,
            ValueKind::Float | ValueKind::Addr | ValueKind::Any => StoreKind::Barrier,
        }
    }

    /// Whether an array access at `node` is generic: its element type is a type variable,
    /// so ocamlopt tests the array's tag at run time (`Array.iter` and the rest of array.ml).
    fn array_generic(&self, node: NodeId) -> bool {
        self.kind(node) == ValueKind::Any
    }

    /// The flatness of an array of `node`'s element kind; the generic case is refused.
    fn array_flat(&self, node: NodeId, pos: Pos) -> CResult<bool> {
        match self.kind(node) {
            ValueKind::Float => Ok(true),
            ValueKind::Immediate | ValueKind::Addr => Ok(false),
            ValueKind::Any => err(
                pos,
                "unsupported: an array whose element type is a type variable here (ocamlopt then tests at run time whether it holds floats); annotate its type",
            ),
        }
    }

    pub(crate) fn imp(&self, op: ImpOp, args: Vec<Code>, pos: Pos) -> Code {
        Code::Imp(Box::new(ImpNode {
            op,
            args: args.into(),
            pos,
        }))
    }

    /// The slot of `e` when it names a reference compiled as a mutable variable.
    fn ref_var(&self, e: &Expr) -> Option<Slot> {
        let ExprKind::Var(name) = &e.kind else {
            return None;
        };
        match self.lookup(name)?.bound {
            Bound::Local { slot, id, .. } if self.mut_vars.contains(&id) => Some(slot),
            _ => None,
        }
    }

    /// `!x`, `x := v`, `incr x`, `decr x` on a reference compiled as a variable.
    pub(crate) fn ref_var_op(&mut self, func: &Expr, args: &[Expr]) -> CResult<Option<Code>> {
        let ExprKind::Var(op) = &func.kind else {
            return Ok(None);
        };
        if !REF_OPS.contains(&op.as_str())
            || !matches!(self.lookup(op).map(|e| &e.bound), Some(Bound::Prim(_)))
        {
            return Ok(None);
        }
        let Some(slot) = args.first().and_then(|a| self.ref_var(a)) else {
            // `r := !r + c` on a block: one add to memory.
            if let (
                ":=",
                [r @ Expr {
                    kind: ExprKind::Var(x),
                    ..
                }, v],
            ) = (op.as_str(), args)
            {
                if self.kind(func.id) == ValueKind::Immediate {
                    if let Some(delta) = in_place_offset(x, "contents", v) {
                        let r = self.code(r)?;
                        let op = ImpOp::AddToField { index: 0, delta };
                        return Ok(Some(self.imp(op, vec![r], func.pos)));
                    }
                }
            }
            return Ok(None);
        };
        let step = |op| {
            Code::Op2(Box::new(Op2Node {
                op,
                lhs: Code::Local(slot),
                rhs: Code::Imm(1),
                pos: func.pos,
            }))
        };
        Ok(Some(match (op.as_str(), args.len()) {
            ("!", 1) => Code::Local(slot),
            (":=", 2) => Code::Assign(slot, Box::new(self.code(&args[1])?)),
            ("incr", 1) => Code::Assign(slot, Box::new(step(Op2::Add))),
            ("decr", 1) => Code::Assign(slot, Box::new(step(Op2::Sub))),
            _ => return Ok(None),
        }))
    }

    /// `let x = ref e in body` when Simplif makes `x` a mutable variable; `None` otherwise.
    pub(crate) fn eliminated_ref(
        &mut self,
        bindings: &[Binding],
        body: &Expr,
    ) -> CResult<Option<Out>> {
        let [Binding { pat, expr, .. }] = bindings else {
            return Ok(None);
        };
        let PatKind::Var(name) = &pat.kind else {
            return Ok(None);
        };
        let ExprKind::App { func, args, .. } = &expr.kind else {
            return Ok(None);
        };
        let is_ref = matches!(&func.kind, ExprKind::Var(f) if f == "ref")
            && matches!(
                self.lookup("ref").map(|e| &e.bound),
                Some(Bound::Prim(Prim::Ref))
            );
        if !is_ref || args.len() != 1 || !only_ref_uses(name, body) {
            return Ok(None);
        }
        let float_var = self.kind(func.id) == ValueKind::Float;
        let value = self.code(&args[0])?;
        let mark = self.scope.len();
        let slot = self.new_slot();
        self.bind_local(name, slot, None);
        if let Some(Bound::Local { id, .. }) = self.scope.last().map(|e| e.bound.clone()) {
            self.mut_vars.insert(id);
        }
        let body = self.code(body)?;
        self.scope.truncate(mark);
        Ok(Some(Out::Code(Code::Let(Box::new(Let {
            binder: Binder::Slot(slot),
            value,
            counter: Some(Counter::LetData),
            body,
            float_var,
        })))))
    }

    /// The code of an imperative primitive applied to all its arguments.
    pub(crate) fn imp_prim(
        &mut self,
        p: Prim,
        node: NodeId,
        mut args: Vec<Code>,
        pos: Pos,
    ) -> CResult<Code> {
        let mut arg = |i: usize| std::mem::replace(&mut args[i], Code::Imm(0));
        Ok(match p {
            Prim::Ref => self.imp(
                ImpOp::Make {
                    flat: false,
                    tag: None,
                },
                vec![arg(0)],
                pos,
            ),
            Prim::Deref => self.imp(
                ImpOp::GetField {
                    index: 0,
                    flat: false,
                },
                vec![arg(0)],
                pos,
            ),
            Prim::Assign => {
                let store = self.field_store_kind(node);
                self.imp(
                    ImpOp::SetField { index: 0, store },
                    vec![arg(0), arg(1)],
                    pos,
                )
            }
            Prim::Incr => self.imp(ImpOp::AddToField { index: 0, delta: 1 }, vec![arg(0)], pos),
            Prim::Decr => self.imp(
                ImpOp::AddToField {
                    index: 0,
                    delta: -1,
                },
                vec![arg(0)],
                pos,
            ),
            Prim::ArrayLength => self.imp(ImpOp::ArrayLength, vec![arg(0)], pos),
            // `unsafe_get`/`unsafe_set`: no bounds check, the load or the store alone.
            Prim::ArrayGet | Prim::ArrayUnsafeGet => {
                let generic = self.array_generic(node);
                let flat = !generic && self.array_flat(node, pos)?;
                let checked = p == Prim::ArrayGet;
                let op = ImpOp::ArrayGet {
                    flat,
                    checked,
                    generic,
                    known: InRegister::Nothing,
                };
                self.imp(op, vec![arg(0), arg(1)], pos)
            }
            Prim::ArraySet | Prim::ArrayUnsafeSet => {
                let generic = self.array_generic(node);
                let store = self.store_kind(node);
                let checked = p == Prim::ArraySet;
                let op = ImpOp::ArraySet {
                    store,
                    checked,
                    generic,
                };
                self.imp(op, vec![arg(0), arg(1), arg(2)], pos)
            }
            Prim::ArrayMake => self.imp(ImpOp::ArrayMake, vec![arg(0), arg(1)], pos),
            Prim::ArrayCopy(op) => self.imp(ImpOp::Arr(op), args, pos),
            other => match other.string_op() {
                // A string external's operands are its arguments, all of them, in order.
                Some(op) => {
                    let op = match (op, self.shared.get(&node)) {
                        (StrOp::Get { checked: true, .. }, Some(Shared::Reused)) => StrOp::Get {
                            checked: true,
                            known: InRegister::Element,
                        },
                        (StrOp::Get { checked: true, .. }, Some(Shared::Length)) => StrOp::Get {
                            checked: true,
                            known: InRegister::Length,
                        },
                        (StrOp::Set { checked: true, .. }, Some(Shared::Checked)) => StrOp::Set {
                            checked: false,
                            shared: true,
                        },
                        (op, _) => op,
                    };
                    self.imp(ImpOp::Str(op), args, pos)
                }
                None => unreachable!("{other:?} is not an imperative primitive"),
            },
        })
    }

    /// Records, field accesses, arrays and loops.
    pub(crate) fn imperative(&mut self, e: &Expr) -> CResult<Out> {
        let record = |c: &Self| {
            let tycon = c.typing.record_of[&e.id];
            c.typing.types.records[&tycon].clone()
        };
        Ok(Out::Code(match &e.kind {
            ExprKind::Record(fields, base) => {
                let info = record(self);
                let mut outs: Vec<Option<Out>> = info.fields.iter().map(|_| None).collect();
                for (name, value) in fields {
                    let i = info.field_index(name);
                    outs[i] = Some(self.expr(value)?);
                }
                let flat = info.flat_float;
                let Some(base) = base else {
                    let outs: Vec<Out> =
                        outs.into_iter().map(|o| o.expect("every field")).collect();
                    let mutable = info.fields.iter().any(|f| f.mutable);
                    if let (false, Some(fields)) = (mutable, all_const(&outs)) {
                        return Ok(Out::Const(StaticValue::Record { flat, fields }));
                    }
                    let args = outs.into_iter().map(|o| self.lower(o)).collect();
                    return Ok(Out::Code(self.imp(
                        ImpOp::Make { flat, tag: None },
                        args,
                        e.pos,
                    )));
                };
                // `{ r with … }`: the kept fields are read from `r`, evaluated once.
                let base = self.code(base)?;
                let slot = self.new_slot();
                let args = outs
                    .into_iter()
                    .enumerate()
                    .map(|(i, o)| match o {
                        Some(o) => self.lower(o),
                        None => {
                            let op = ImpOp::GetField {
                                index: i as u32,
                                flat,
                            };
                            self.imp(op, vec![Code::Local(slot)], e.pos)
                        }
                    })
                    .collect();
                Code::Let(Box::new(Let {
                    binder: Binder::Slot(slot),
                    value: base,
                    counter: None,
                    body: self.imp(ImpOp::Make { flat, tag: None }, args, e.pos),
                    float_var: false,
                }))
            }
            ExprKind::Field(r, name) => {
                if let (Some(slot), "contents") = (self.ref_var(r), name.as_str()) {
                    return Ok(Out::Code(Code::Local(slot)));
                }
                let info = record(self);
                let index = info.field_index(name) as u32;
                let r = self.code(r)?;
                self.imp(
                    ImpOp::GetField {
                        index,
                        flat: info.flat_float,
                    },
                    vec![r],
                    e.pos,
                )
            }
            ExprKind::SetField(r, name, v) => {
                if let (Some(slot), "contents") = (self.ref_var(r), name.as_str()) {
                    return Ok(Out::Code(Code::Assign(slot, Box::new(self.code(v)?))));
                }
                let info = record(self);
                let index = info.field_index(name) as u32;
                let store = if info.flat_float {
                    StoreKind::Plain
                } else {
                    self.field_store_kind(e.id)
                };
                if let ExprKind::Var(x) = &r.kind {
                    let immediate = !info.flat_float && self.kind(e.id) == ValueKind::Immediate;
                    if let (true, Some(delta)) = (immediate, in_place_offset(x, name, v)) {
                        let r = self.code(r)?;
                        let op = ImpOp::AddToField { index, delta };
                        return Ok(Out::Code(self.imp(op, vec![r], e.pos)));
                    }
                }
                let (r, v) = (self.code(r)?, self.code(v)?);
                self.imp(ImpOp::SetField { index, store }, vec![r, v], e.pos)
            }
            ExprKind::Array(items) => {
                if items.is_empty() {
                    // `[||]` is the runtime's atom, whatever the element type.
                    return Ok(Out::Const(StaticValue::Record {
                        flat: false,
                        fields: Vec::new(),
                    }));
                }
                let flat = self.array_flat(e.id, e.pos)?;
                let outs = items
                    .iter()
                    .map(|i| self.expr(i))
                    .collect::<CResult<Vec<_>>>()?;
                if outs.len() > 4 && all_const(&outs).is_some() {
                    return err(e.pos, "unsupported: a constant array literal of more than 4 elements (ocamlopt copies a static array with caml_obj_dup at run time)");
                }
                let args = outs.into_iter().map(|o| self.lower(o)).collect();
                self.imp(ImpOp::Make { flat, tag: None }, args, e.pos)
            }
            ExprKind::ArrayGet(a, i) => {
                let generic = self.array_generic(e.id);
                let flat = !generic && self.array_flat(e.id, e.pos)?;
                let (a, i) = (self.code(a)?, self.code(i)?);
                let op = ImpOp::ArrayGet {
                    flat,
                    checked: true,
                    generic,
                    known: match self.shared.get(&e.id) {
                        _ if generic => InRegister::Nothing,
                        Some(Shared::Reused) => InRegister::Element,
                        Some(Shared::Length) => InRegister::Length,
                        _ => InRegister::Nothing,
                    },
                };
                self.imp(op, vec![a, i], e.pos)
            }
            ExprKind::ArraySet(a, i, v) => {
                let generic = self.array_generic(e.id);
                let store = self.store_kind(e.id);
                let checked = !rereads_element(a, i, v)
                    && (generic || self.shared.get(&e.id) != Some(&Shared::Checked));
                let (a, i, v) = (self.code(a)?, self.code(i)?, self.code(v)?);
                let op = ImpOp::ArraySet {
                    store,
                    checked,
                    generic,
                };
                self.imp(op, vec![a, i, v], e.pos)
            }
            ExprKind::For {
                var,
                from,
                until,
                down,
                body,
            } => {
                let (from, until) = (self.code(from)?, self.code(until)?);
                let mark = self.scope.len();
                let slot = self.new_slot();
                self.bind_local(var, slot, None);
                let body = self.code(body)?;
                self.scope.truncate(mark);
                Code::For(Box::new(ForLoop {
                    slot,
                    from,
                    until,
                    down: *down,
                    body,
                    chain: Chain::default(),
                }))
            }
            ExprKind::While(cond, body) => {
                let (cond, body) = (self.code(cond)?, self.code(body)?);
                Code::While(Box::new((
                    cond,
                    body,
                    Chain::default(),
                    IfChains::default(),
                )))
            }
            _ => unreachable!("only imperative expressions come here"),
        }))
    }
}
