//! Element reads and bounds checks that ocamlopt's CSE shares. Within code that does not
//! call, allocate or store, and that no join point separates (the code before a branch
//! flows into the branch: a condition into its `then`, the first operand of `&&` into the
//! second, a `while` test into the body), `a.(i)` read again is the value already in a
//! register: no code at all; and `a.(i) <- v` or `Bytes.set b i c` after a read of the same
//! element reuses the read's header load and bounds check: the store alone. `a` must be a
//! variable and `i` a variable, a constant, `!r` or one of those plus or minus a constant.
//! A call, an allocation or a store kills everything (they may change memory, and the
//! header is reloaded after them), as does any assignment or shadowing of a name a key
//! mentions. Read off `ocamlopt -S -inline 0` (4.13): `array_isort`'s `while !j >= 0 &&
//! a.(!j) > x do a.(!j + 1) <- a.(!j)` reads `a.(!j)` once; `str_caesar`'s `Bytes.set b i`
//! under `if c >= 'a' && …` after `let c = Bytes.get b i` stores without a check, its value
//! (a call) being computed after the check; a read after a call, an allocation or a store
//! checks again.
//!
//! A read of another element of an array or string whose header was loaded so (by a checked
//! read) reuses the header and the length computed from it: the compare, the branch and the
//! load alone (`Shared::Length`). On a string that saves five of nine instructions (the
//! header's load and shift, the padding byte's load, the subtraction), on an array two of
//! five: `str_palindrome`'s `s.[!i] = s.[!j]` loads the header once, `a.(i) + a.(j)` too
//! (read off `ocamlopt -S -inline 0`). Any array or string variable qualifies, whatever its
//! index; what forgets an element forgets its header. A store after such a read reuses the
//! header too, which is not counted.

use crate::ast::*;
use crate::cse_walk::{forget, walk_items, Available, Numbering};
use crate::infer::Typing;
use std::collections::HashMap;

/// What native code still does for an access whose element was already read or checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shared {
    /// A read of a value already in a register: nothing.
    Reused,
    /// A store after a read of the same element: the store alone, no check.
    Checked,
    /// A read of an array or string whose header (and length) a read of another element
    /// loaded: the check and the load.
    Length,
}

/// The index part of the key that says an array's or string's header is in a register: no
/// index's text is empty.
const HEADER: &str = "";

/// An element: the array or string variable and the index's text.
#[derive(Debug, Clone, PartialEq)]
struct Element {
    array: String,
    index: String,
}

impl Available for Element {
    fn mentions(&self, name: &str) -> bool {
        let bang = format!("!{name}");
        self.array == name
            || self
                .index
                .split(' ')
                .any(|part| part == name || part == bang)
    }
}

/// The accesses of `items` whose check or read ocamlopt's CSE shares, by node: the access
/// expression's for `a.(i)`, the function's for a primitive applied (`Bytes.get`), as the
/// compiler looks primitives up.
pub(crate) fn analyse(items: &[Item], typing: &Typing) -> HashMap<NodeId, Shared> {
    let mut pass = Pass {
        typing,
        shared: HashMap::new(),
    };
    walk_items(&mut pass, items);
    pass.shared
}

struct Pass<'a> {
    typing: &'a Typing,
    shared: HashMap<NodeId, Shared>,
}

fn index_key(i: &Expr) -> Option<String> {
    match &i.kind {
        ExprKind::Var(n) => Some(n.clone()),
        ExprKind::Int(k) => Some(k.to_string()),
        ExprKind::App { func, args, .. } if args.len() == 1 => match (&func.kind, &args[0].kind) {
            (ExprKind::Var(op), ExprKind::Var(r)) if op == "!" => Some(format!("!{r}")),
            _ => None,
        },
        ExprKind::BinOp(op @ (BinOp::Add | BinOp::Sub), x, k) => match &k.kind {
            ExprKind::Int(k) => Some(format!("{} {op:?} {k}", index_key(x)?)),
            _ => None,
        },
        _ => None,
    }
}

impl Pass<'_> {
    /// An access of element `index` of array or string `array` at `node`: shared when it is
    /// available, available after with the header; a read whose header is available reuses it.
    fn access(
        &mut self,
        node: NodeId,
        array: &Expr,
        index: &Expr,
        store: bool,
        avail: &mut Vec<Element>,
    ) {
        let ExprKind::Var(array) = &array.kind else {
            return;
        };
        let element = index_key(index).map(|index| Element {
            array: array.clone(),
            index,
        });
        let header = Element {
            array: array.clone(),
            index: HEADER.to_string(),
        };
        match element {
            Some(k) if avail.contains(&k) => {
                let how = if store {
                    Shared::Checked
                } else {
                    Shared::Reused
                };
                self.shared.insert(node, how);
                return;
            }
            Some(k) if !store => avail.push(k),
            _ => {}
        }
        if store {
            return;
        }
        if avail.contains(&header) {
            self.shared.insert(node, Shared::Length);
        } else {
            avail.push(header);
        }
    }
}

/// A call, an allocation or a store forgets every element: the header is loaded again after
/// them.
impl Numbering for Pass<'_> {
    type Key = Element;

    fn typing(&self) -> &Typing {
        self.typing
    }

    fn read(&mut self, node: NodeId, array: &Expr, index: &Expr, avail: &mut Vec<Element>) {
        self.access(node, array, index, false, avail);
    }

    fn element_store(
        &mut self,
        node: NodeId,
        array: &Expr,
        index: &Expr,
        avail: &mut Vec<Element>,
    ) {
        self.access(node, array, index, true, avail);
    }

    fn allocated(&self, avail: &mut Vec<Element>) {
        avail.clear();
    }

    fn stored(&self, avail: &mut Vec<Element>) {
        avail.clear();
    }

    fn assigned(&self, r: &str, avail: &mut Vec<Element>) {
        forget(avail, r);
    }
}
