//! Compiling function expressions: the parameters and body of `fun` and `function` (merged as
//! ocamlopt merges them), tupled functions, and a function compiled into a static closed
//! function or a closure allocation.

use crate::ast::*;
use crate::compile::{CResult, CaptureTable, Compiler, FunCtx, Out};
use crate::fv;
use crate::ir::*;

#[derive(Clone, Copy)]
pub(crate) enum FunBody<'e> {
    Expr(&'e Expr),
    /// The arms of a trailing `function`, matched on an extra last parameter.
    Arms(&'e [crate::ast::Arm]),
}

impl Compiler<'_> {
    /// The parameters and body of a function expression, with `fun x -> function …` merged
    /// into one function of arity n + 1, as `ocamlopt` does.
    pub(crate) fn function_parts(e: &Expr) -> Option<(&[Pattern], FunBody<'_>)> {
        match &e.kind {
            ExprKind::Fun { params, body } => match &body.kind {
                ExprKind::Function(arms) => Some((params, FunBody::Arms(arms))),
                _ => Some((params, FunBody::Expr(body))),
            },
            ExprKind::Function(arms) => Some((&[], FunBody::Arms(arms))),
            ExprKind::Annot(inner, _) => Self::function_parts(inner),
            _ => None,
        }
    }

    /// The components of a function whose one parameter is a tuple pattern (`let f (a, b) =
    /// …`): ocamlopt compiles it as a *tupled* function of that many parameters
    /// (translcore.ml's `Tupled` kind), which a known call with the tuple written out
    /// (`f (x, y + 1)`) passes in registers — no tuple is built, none is read. Called any
    /// other way (a tuple value, through a function value), its closure's entry
    /// (`caml_tuplifyN`) loads the fields and jumps to the code. `function` with several
    /// tuple cases is tupled by ocamlopt too; here it stays a function of one tuple.
    pub(crate) fn tupled_arity(e: &Expr) -> Option<u32> {
        let (params, body) = Self::function_parts(e)?;
        Self::tuple_components(params, body).map(|items| items.len() as u32)
    }

    /// The components a tupled function takes as its parameters (see [`Self::tupled_arity`]).
    fn tuple_components<'p>(params: &'p [Pattern], body: FunBody) -> Option<&'p [Pattern]> {
        match (params, body) {
            ([param], FunBody::Expr(_)) => match &Self::unannotated(param).kind {
                PatKind::Tuple(items) if items.len() >= 2 => Some(items.as_slice()),
                _ => None,
            },
            _ => None,
        }
    }

    fn unannotated(p: &Pattern) -> &Pattern {
        match &p.kind {
            PatKind::Annot(inner, _) => Self::unannotated(inner),
            _ => p,
        }
    }

    pub(crate) fn function_arity(e: &Expr) -> Option<u32> {
        Self::function_parts(e)
            .map(|(params, body)| params.len() as u32 + u32::from(matches!(body, FunBody::Arms(_))))
    }

    /// Compiles a function expression, with its binding's inline attribute, into a closed
    /// function or a closure allocation; also returns whether it is closed.
    pub(crate) fn lambda(
        &mut self,
        e: &Expr,
        name: &str,
        inline: Inline,
    ) -> CResult<(Out, Option<FunId>)> {
        let (params, body) = Self::function_parts(e).expect("a function expression");
        let free = match body {
            FunBody::Expr(b) => fv::of_function(params, b),
            FunBody::Arms(_) => fv::of_function(params, e),
        };
        let closed = free.iter().all(|n| self.is_static_name(n));
        let fid = self.reserve_fun();
        self.tables.push(CaptureTable {
            allocated: !closed,
            ..CaptureTable::default()
        });
        let table = self.tables.len() - 1;
        self.function(fid, name, params, body, e.pos, table)?;
        self.set_inline(fid, inline);
        let captures: Box<[Code]> = std::mem::take(&mut self.tables[table].loads).into();
        debug_assert_eq!(
            closed,
            captures.is_empty(),
            "closedness predicted from free variables"
        );
        if captures.is_empty() {
            return Ok((Out::Code(Code::ClosedFun(fid)), Some(fid)));
        }
        Ok((
            Out::Code(Code::MakeClosure(Box::new(MakeClosure {
                fun: fid,
                captures,
            }))),
            None,
        ))
    }

    /// Records the inline attribute of function `fid`'s binding (see [`crate::inline`]).
    pub(crate) fn set_inline(&mut self, fid: FunId, inline: Inline) {
        if let Some(fun) = self.funs[fid as usize].as_mut() {
            fun.inline = inline;
        }
    }

    /// Compiles the function `fid` in a new frame whose captures go to `table`.
    pub(crate) fn function(
        &mut self,
        fid: FunId,
        name: &str,
        params: &[Pattern],
        body: FunBody,
        pos: Pos,
        table: usize,
    ) -> CResult<()> {
        let extra = u32::from(matches!(body, FunBody::Arms(_)));
        // A tupled function's parameters are its tuple's components.
        let components = Self::tuple_components(params, body);
        let tupled = components.is_some();
        let params = components.unwrap_or(params);
        if tupled {
            self.tupled.insert(fid);
        }
        let arity = params.len() as u32 + extra;
        self.ctxs.push(FunCtx {
            next_slot: arity,
            table,
        });
        let mark = self.scope.len();
        let mut destructure = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if let Some(binder) = self.param(i as Slot, p)? {
                destructure.push((i as Slot, binder));
            }
        }
        let mut code = match body {
            FunBody::Expr(b) => self.code(b)?,
            FunBody::Arms(arms) => {
                let last_untested = self.last_untested(arms);
                let arms = self.arms(arms)?;
                Code::Match(Box::new(Match {
                    scrutinee: Code::Local(arity - 1),
                    arms,
                    handlers: Box::new([]),
                    pos,
                    last_untested,
                    resolve: 0,
                }))
            }
        };
        for (slot, binder) in destructure.into_iter().rev() {
            code = Code::Let(Box::new(Let {
                binder,
                value: Code::Local(slot),
                counter: None,
                body: code,
                float_var: false,
            }));
        }
        self.scope.truncate(mark);
        let ctx = self.ctxs.pop().expect("pushed above");
        self.funs[fid as usize] = Some(FunCode {
            name: name.into(),
            symbol: self.symbol(name),
            arity,
            frame_size: ctx.next_slot,
            body: code,
            pos,
            framed: false,
            native_frame_words: 0,
            loop_polls: false,
            is_loop: false,
            return_chain: Chain::default(),
            tupled,
            inline: Inline::Default,
            library: self.library,
        });
        Ok(())
    }
}
