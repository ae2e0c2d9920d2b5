//! Where the driver enters the program: the top-level frame, its items, and the calls of
//! `input` and `run`.

use super::{Machine, R};
use crate::ir::Slot;
use crate::lower::ExecItem;
use crate::return_stack::DRIVER_SITE;
use crate::value::{Value, UNIT};

impl<'p> Machine<'p> {
    /// Sets up the top-level frame (globals) at the bottom of the stack.
    pub(crate) fn enter_toplevel(&mut self) {
        self.stack.clear();
        self.stack.resize(self.prog.toplevel_frame as usize, UNIT);
        self.base = 0;
    }

    pub(crate) fn global(&self, slot: Slot) -> Value {
        self.stack[slot as usize].clone()
    }

    pub(crate) fn run_item(&mut self, item: &'p ExecItem) -> R<Option<Value>> {
        match item {
            ExecItem::Let(binder, value, counter) => {
                let v = value(self)?;
                self.bind(binder, v, *counter)?;
                Ok(None)
            }
            ExecItem::LetRec(group) => {
                self.rec_group(group)?;
                Ok(None)
            }
            ExecItem::Expr(code) => code(self).map(Some),
        }
    }

    /// Applies `f` to `args` as the driver does (`input size`, `run x`): the call itself is
    /// the driver's and is not counted (its cost is in `Base`), only what runs inside it.
    pub(crate) fn call_from_driver(&mut self, f: Value, args: Vec<Value>) -> R<Value> {
        let argbase = self.stack.len();
        let mut n = args.len();
        self.stack.extend(args);
        // `let run (a, b) = …`: the driver's call goes through the tuplifying entry, whose
        // loads are the parameter's (its jump is the driver's, in Base).
        if let Value::Fun(f) = &f {
            let code = &self.prog.funs[f.fun as usize];
            if code.tupled && n == 1 {
                let arity = code.arity as usize;
                self.untuple(argbase, arity);
                n = arity;
            }
        }
        match f {
            Value::Fun(f) if self.prog.funs[f.fun as usize].arity as usize == n => {
                // The driver's call pushes a return address like any call; whether its return
                // is predicted is the driver's cost, in Base.
                self.returns.call_from_driver();
                let result = self.invoke(Some(f.env.clone()), f.fun, argbase);
                if result.is_ok() {
                    self.returns.ret(DRIVER_SITE);
                }
                result
            }
            other => self.apply(other, argbase, n, false, false, DRIVER_SITE),
        }
    }
}
