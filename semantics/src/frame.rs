//! Whether a function has a stack frame in native code, counted as `Frame` on each entry: the
//! `sub` and `add` of `%rsp` that ocamlopt 4.13 (amd64) emits for a function that calls, may
//! call the collector, or may raise — read off `ocamlopt -S -inline 0`.

use crate::ir::*;

/// Whether ocamlopt 4.13 (amd64) gives a function a stack frame — a `sub` on entry and an
/// `add` on exit: when its body calls (a non-tail call, a C call such as the write barrier or
/// `caml_make_vect`), may call the collector (any allocation, and the poll of the minor heap's
/// limit that heads every loop: a `for`, a `while`, or a tail call within a recursive group),
/// or may raise (a `raise`, a division's zero check) or push a handler. A leaf that only
/// computes and tail-calls outside its group has none.
pub(crate) fn needs_frame(code: &Code, own: FunId) -> bool {
    let here = match code {
        Code::App(app) => {
            !app.tail
                || matches!(app.func, Code::Sibling(_))
                || matches!(app.func, Code::ClosedFun(f) if f == own)
        }
        Code::Tuple(_)
        | Code::Cons(_)
        | Code::Block(..)
        | Code::Exn(..)
        | Code::MakeClosure(_)
        | Code::LetRec(_)
        | Code::BoxFloat(_)
        | Code::Raise(..)
        | Code::Try(_) => true,
        Code::Match(m) => !m.handlers.is_empty(),
        Code::List(list) => !list.0.is_empty(),
        Code::For(_) | Code::While(_) => true,
        Code::Imp(node) => matches!(
            node.op,
            ImpOp::Make { .. }
                | ImpOp::ArrayMake
                | ImpOp::Arr(_)
                | ImpOp::Str(StrOp::Create | StrOp::Fill | StrOp::Blit)
                | ImpOp::SetField {
                    store: StoreKind::Barrier,
                    ..
                }
                | ImpOp::ArraySet {
                    store: StoreKind::Barrier,
                    ..
                }
        ),
        Code::Op2(node) => node.op.calls_or_branches(),
        _ => false,
    };
    let mut framed = here;
    code.for_each_child(&mut |child, _| framed = framed || needs_frame(child, own));
    framed
}
