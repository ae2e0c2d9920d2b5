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
use crate::infer::Typing;
use crate::types::CmpClass;
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
type Key = (String, String);

/// The accesses of `items` whose check or read ocamlopt's CSE shares, by node: the access
/// expression's for `a.(i)`, the function's for a primitive applied (`Bytes.get`), as the
/// compiler looks primitives up.
pub(crate) fn analyse(items: &[Item], typing: &Typing) -> HashMap<NodeId, Shared> {
    let mut pass = Pass {
        typing,
        shared: HashMap::new(),
    };
    for item in items {
        if let Item::Let { bindings, .. } = item {
            for b in bindings {
                pass.walk(&b.expr, &mut Vec::new());
            }
        } else if let Item::Expr(e) = item {
            pass.walk(e, &mut Vec::new());
        }
    }
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

fn key(a: &Expr, i: &Expr) -> Option<Key> {
    match &a.kind {
        ExprKind::Var(name) => Some((name.clone(), index_key(i)?)),
        _ => None,
    }
}

/// Functions that are no call in native code and leave memory alone.
pub(crate) const PURE: [&str; 9] = [
    "!",
    "Char.code",
    "Char.unsafe_chr",
    "Bytes.unsafe_to_string",
    "not",
    "succ",
    "pred",
    "fst",
    "snd",
];

/// Forgets the keys that mention `name` (assigned, or shadowed by a new binding).
fn forget(avail: &mut Vec<Key>, name: &str) {
    let bang = format!("!{name}");
    avail.retain(|(a, i)| a != name && !i.split(' ').any(|part| part == name || part == bang));
}

fn forget_pattern(avail: &mut Vec<Key>, p: &Pattern) {
    let mut names = Vec::new();
    crate::fv::pattern_vars(p, &mut names);
    names.iter().for_each(|n| forget(avail, n));
}

impl Pass<'_> {
    /// An access of element `k` of array or string `array` at `node`: shared when it is
    /// available, available after with the header; a read whose header is available reuses it.
    fn access(
        &mut self,
        node: NodeId,
        array: &Expr,
        k: Option<Key>,
        store: bool,
        avail: &mut Vec<Key>,
    ) {
        let ExprKind::Var(array) = &array.kind else {
            return;
        };
        let header = (array.clone(), HEADER.to_string());
        match k {
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

    /// Walks `e` as a condition: the keys available where it is true, and where it is false
    /// (none where a branch of `&&` or `||` joins another).
    fn cond(&mut self, e: &Expr, avail: &[Key]) -> (Vec<Key>, Vec<Key>) {
        match &e.kind {
            ExprKind::BinOp(BinOp::And, x, y) => {
                let (xt, _) = self.cond(x, avail);
                let (yt, _) = self.cond(y, &xt);
                (yt, Vec::new())
            }
            ExprKind::BinOp(BinOp::Or, x, y) => {
                let (_, xf) = self.cond(x, avail);
                let (_, yf) = self.cond(y, &xf);
                (Vec::new(), yf)
            }
            _ => {
                let mut after = avail.to_vec();
                self.walk(e, &mut after);
                (after.clone(), after)
            }
        }
    }

    /// The cases of a `match` or a handler, each starting from what `avail` says.
    fn arms(&mut self, arms: &[Arm], avail: &[Key]) {
        for arm in arms {
            let mut here = avail.to_vec();
            forget_pattern(&mut here, &arm.pat);
            if let Some(g) = &arm.guard {
                self.walk(g, &mut here);
            }
            self.walk(&arm.body, &mut here);
        }
    }

    fn walk_all<'e>(&mut self, es: impl Iterator<Item = &'e Expr>, avail: &mut Vec<Key>) {
        es.for_each(|e| self.walk(e, avail));
    }

    fn walk(&mut self, e: &Expr, avail: &mut Vec<Key>) {
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Char(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Var(_) => {}
            ExprKind::ArrayGet(a, i) => {
                self.walk_all([&**i, &**a].into_iter(), avail);
                self.access(e.id, a, key(a, i), false, avail);
            }
            // The value first, then the check and the store (Cmmgen's `Parraysetu/s`).
            ExprKind::ArraySet(a, i, v) => {
                self.walk_all([&**v, &**i, &**a].into_iter(), avail);
                self.access(e.id, a, key(a, i), true, avail);
                avail.clear();
            }
            ExprKind::App { func, args, .. } => {
                let name = match &func.kind {
                    ExprKind::Var(f) => f.as_str(),
                    _ => "",
                };
                match (name, args.as_slice()) {
                    ("String.get" | "Bytes.get", [s, i]) => {
                        self.walk_all([i, s].into_iter(), avail);
                        self.access(func.id, s, key(s, i), false, avail);
                    }
                    // The check before the byte is computed (Cmmgen's `Pbytessets`).
                    ("Bytes.set", [s, i, c]) => {
                        self.walk_all([i, s].into_iter(), avail);
                        self.access(func.id, s, key(s, i), true, avail);
                        self.walk(c, avail);
                        avail.clear();
                    }
                    (":=" | "incr" | "decr", [r, rest @ ..]) => {
                        self.walk_all(rest.iter(), avail);
                        match &r.kind {
                            ExprKind::Var(r) => forget(avail, r),
                            _ => avail.clear(),
                        }
                    }
                    _ => {
                        self.walk_all(args.iter().rev(), avail);
                        self.walk(func, avail);
                        if !PURE.contains(&name) {
                            avail.clear();
                        }
                    }
                }
            }
            ExprKind::BinOp(BinOp::And | BinOp::Or, x, y) => {
                self.walk(x, avail);
                let mut second = avail.clone();
                self.walk(y, &mut second);
            }
            ExprKind::BinOp(op, x, y) => {
                self.walk_all([&**y, &**x].into_iter(), avail);
                let calls = matches!(
                    op,
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                ) && matches!(
                    self.typing.comparisons.get(&e.id).copied(),
                    Some(CmpClass::Poly) | None
                );
                if calls {
                    avail.clear();
                }
            }
            ExprKind::UnOp(_, x) | ExprKind::Field(x, _) | ExprKind::Annot(x, _) => {
                self.walk(x, avail)
            }
            ExprKind::If(c, t, f) => {
                let (yes, no) = self.cond(c, avail);
                self.walk(t, &mut yes.clone());
                if let Some(f) = f {
                    self.walk(f, &mut no.clone());
                }
                avail.clear();
            }
            ExprKind::Seq(a, b) => self.walk_all([&**a, &**b].into_iter(), avail),
            ExprKind::Let { bindings, body, .. } => {
                for b in bindings {
                    self.walk(&b.expr, avail);
                    forget_pattern(avail, &b.pat);
                }
                self.walk(body, avail);
            }
            ExprKind::Match(s, arms) | ExprKind::Try(s, arms) => {
                let is_try = matches!(e.kind, ExprKind::Try(..));
                self.walk(s, avail);
                self.arms(arms, if is_try { &[] } else { avail });
                avail.clear();
            }
            ExprKind::MatchExn(s, arms, handlers) => {
                self.walk(s, avail);
                self.arms(arms, avail);
                // As a `try`'s: a handler may run after any part of the scrutinee.
                self.arms(handlers, &[]);
                avail.clear();
            }
            ExprKind::While(c, body) => {
                let (yes, _) = self.cond(c, &[]);
                self.walk(body, &mut yes.clone());
                avail.clear();
            }
            ExprKind::For {
                from, until, body, ..
            } => {
                self.walk_all([&**until, &**from].into_iter(), avail);
                self.walk(body, &mut Vec::new());
                avail.clear();
            }
            // Another function's body; building a closure allocates.
            ExprKind::Fun { body, .. } => {
                self.walk(body, &mut Vec::new());
                avail.clear();
            }
            ExprKind::Function(arms) => {
                for arm in arms {
                    self.walk(&arm.body, &mut Vec::new());
                }
                avail.clear();
            }
            // Blocks built at run time allocate.
            ExprKind::Constr(_, arg) => {
                if let Some(a) = arg {
                    self.walk(a, avail);
                    avail.clear();
                }
            }
            ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
                self.walk_all(items.iter().rev(), avail);
                avail.clear();
            }
            ExprKind::Cons(a, b) => {
                self.walk_all([&**b, &**a].into_iter(), avail);
                avail.clear();
            }
            ExprKind::Record(fields, base) => {
                self.walk_all(fields.iter().map(|(_, v)| v), avail);
                if let Some(b) = base {
                    self.walk(b, avail);
                }
                avail.clear();
            }
            ExprKind::SetField(r, _, v) => {
                self.walk_all([&**v, &**r].into_iter(), avail);
                avail.clear();
            }
        }
    }
}
