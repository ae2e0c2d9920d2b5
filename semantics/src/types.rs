//! Types for Hindley–Milner inference: an arena of type nodes with union-find links, level-based
//! generalisation (Rémy's levels, as in OCaml's own checker), and the declared type
//! constructors and variant constructors.

use std::collections::HashMap;

pub(crate) type Ty = u32;
pub(crate) type TyCon = u32;
pub(crate) type CtorId = u32;

/// The level of a generalised (quantified) type variable.
pub(crate) const GENERIC: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) enum TyNode {
    Var { level: u32, link: Option<Ty> },
    Con(TyCon, Vec<Ty>),
    Arrow(Ty, Ty),
    Tuple(Vec<Ty>),
}

pub(crate) const INT: TyCon = 0;
pub(crate) const FLOAT: TyCon = 1;
pub(crate) const BOOL: TyCon = 2;
pub(crate) const UNIT: TyCon = 3;
pub(crate) const STRING: TyCon = 4;
pub(crate) const CHAR: TyCon = 5;
pub(crate) const EXN: TyCon = 6;
pub(crate) const LIST: TyCon = 7;
pub(crate) const OPTION: TyCon = 8;
pub(crate) const ARRAY: TyCon = 9;
/// `'a ref`, the Stdlib's record `{ mutable contents : 'a }`.
pub(crate) const REF: TyCon = 10;

/// Identities of the predefined exceptions the interpreter raises itself (declared in this
/// order by the checker).
pub(crate) const EXN_FAILURE: u32 = 2;
pub(crate) const EXN_INVALID_ARGUMENT: u32 = 3;
pub(crate) const EXN_DIVISION_BY_ZERO: u32 = 5;
pub(crate) const EXN_MATCH_FAILURE: u32 = 7;

#[derive(Debug, Clone)]
pub(crate) struct TyConInfo {
    pub name: String,
    pub arity: usize,
    /// Constructors in declaration order (empty for the abstract built-ins).
    pub ctors: Vec<CtorId>,
}

#[derive(Debug, Clone)]
pub(crate) struct CtorInfo {
    pub name: String,
    pub tycon: TyCon,
    /// Argument types and result type, with the type's parameters as generic variables.
    pub args: Vec<Ty>,
    pub result: Ty,
    /// Constant constructors: their immediate value (index among the constant ones).
    /// Others: their block tag (index among the non-constant ones). Exceptions: their
    /// identity (index among all exception constructors).
    pub tag: u32,
    pub constant: bool,
    pub exception: bool,
    /// `C of { … }`: the record type of its inline record, whose fields are `args`.
    pub inline_record: Option<TyCon>,
}

/// How the compiler specialises a comparison, decided by the operand's type after inference
/// (as `Translprim.specialize_comparison` does in `ocamlopt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CmpClass {
    /// int, char, bool, unit and variants whose constructors are all constant: a word compare.
    Immediate,
    Float,
    /// Anything else, including type variables: a call to the runtime's `caml_compare` family.
    Poly,
    /// `x = C` or `x <> C` with `C` a constant constructor written out, whatever `x`'s type: a
    /// word compare (see `Checker::is_constant_ctor`).
    Word,
}

#[derive(Debug)]
pub(crate) enum UnifyError {
    Mismatch,
    Cyclic,
}

#[derive(Default)]
pub(crate) struct Types {
    pub nodes: Vec<TyNode>,
    pub tycons: Vec<TyConInfo>,
    pub ctors: Vec<CtorInfo>,
    pub exception_count: u32,
    /// The record types, by type constructor.
    pub records: HashMap<TyCon, RecordInfo>,
}

/// A record type: its fields in declaration order (their types in terms of `params`).
#[derive(Debug, Clone)]
pub(crate) struct RecordInfo {
    pub params: Vec<Ty>,
    pub fields: Vec<FieldInfo>,
    /// Every field is a float: ocamlopt stores the record as a flat array of doubles
    /// (`Record_float`), whose fields are read and written unboxed.
    pub flat_float: bool,
}

impl RecordInfo {
    /// The index of field `name`, which type checking has already found in this record.
    pub(crate) fn field_index(&self, name: &str) -> usize {
        self.fields
            .iter()
            .position(|f| f.name == name)
            .expect("typed")
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FieldInfo {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
}

/// What ocamlopt knows statically of a value's representation (`Typeopt.classify`): it picks
/// an array's access code and whether a store needs the write barrier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ValueKind {
    /// int, char, bool, unit, variants without arguments: never a pointer.
    Immediate,
    Float,
    /// A pointer to a block that is not a float.
    Addr,
    /// A type variable: anything (`Pgenarray`).
    Any,
}

impl Types {
    pub(crate) fn new() -> Self {
        let mut t = Types::default();
        for (name, arity) in [
            ("int", 0),
            ("float", 0),
            ("bool", 0),
            ("unit", 0),
            ("string", 0),
            ("char", 0),
            ("exn", 0),
            ("list", 1),
            ("option", 1),
            ("array", 1),
            ("ref", 1),
            ("bytes", 0),
        ] {
            t.tycons.push(TyConInfo {
                name: name.into(),
                arity,
                ctors: Vec::new(),
            });
        }
        t
    }

    pub(crate) fn add(&mut self, node: TyNode) -> Ty {
        self.nodes.push(node);
        (self.nodes.len() - 1) as Ty
    }

    pub(crate) fn var(&mut self, level: u32) -> Ty {
        self.add(TyNode::Var { level, link: None })
    }

    pub(crate) fn con(&mut self, c: TyCon, args: Vec<Ty>) -> Ty {
        self.add(TyNode::Con(c, args))
    }

    pub(crate) fn arrow(&mut self, a: Ty, b: Ty) -> Ty {
        self.add(TyNode::Arrow(a, b))
    }

    /// Follows links to the representative, compressing the path.
    pub(crate) fn repr(&mut self, t: Ty) -> Ty {
        let mut root = t;
        while let TyNode::Var {
            link: Some(next), ..
        } = self.nodes[root as usize]
        {
            root = next;
        }
        let mut cur = t;
        while let TyNode::Var {
            link: Some(next),
            level,
        } = self.nodes[cur as usize]
        {
            if next == root {
                break;
            }
            self.nodes[cur as usize] = TyNode::Var {
                link: Some(root),
                level,
            };
            cur = next;
        }
        root
    }

    fn children(&self, t: Ty) -> Vec<Ty> {
        match &self.nodes[t as usize] {
            TyNode::Var { .. } => Vec::new(),
            TyNode::Con(_, args) => args.clone(),
            TyNode::Arrow(a, b) => vec![*a, *b],
            TyNode::Tuple(ts) => ts.clone(),
        }
    }

    /// Occurs check for `var` in `t`, lowering the levels of `t`'s variables to `level` so
    /// that they are not generalised beyond the variable they are bound to.
    fn occurs_and_adjust(&mut self, var: Ty, level: u32, t: Ty) -> bool {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let t = self.repr(t);
            if t == var {
                return true;
            }
            if let TyNode::Var {
                level: l,
                link: None,
            } = self.nodes[t as usize]
            {
                if l > level {
                    self.nodes[t as usize] = TyNode::Var { level, link: None };
                }
            } else {
                stack.extend(self.children(t));
            }
        }
        false
    }

    pub(crate) fn unify(&mut self, a: Ty, b: Ty) -> Result<(), UnifyError> {
        let mut work = vec![(a, b)];
        while let Some((a, b)) = work.pop() {
            let (a, b) = (self.repr(a), self.repr(b));
            if a == b {
                continue;
            }
            match (
                self.nodes[a as usize].clone(),
                self.nodes[b as usize].clone(),
            ) {
                (TyNode::Var { level, .. }, _) => self.bind(a, level, b)?,
                (_, TyNode::Var { level, .. }) => self.bind(b, level, a)?,
                (TyNode::Con(c1, args1), TyNode::Con(c2, args2)) if c1 == c2 => {
                    work.extend(args1.into_iter().zip(args2));
                }
                (TyNode::Arrow(a1, r1), TyNode::Arrow(a2, r2)) => {
                    work.push((a1, a2));
                    work.push((r1, r2));
                }
                (TyNode::Tuple(t1), TyNode::Tuple(t2)) if t1.len() == t2.len() => {
                    work.extend(t1.into_iter().zip(t2));
                }
                _ => return Err(UnifyError::Mismatch),
            }
        }
        Ok(())
    }

    fn bind(&mut self, var: Ty, level: u32, t: Ty) -> Result<(), UnifyError> {
        if self.occurs_and_adjust(var, level, t) {
            return Err(UnifyError::Cyclic);
        }
        self.nodes[var as usize] = TyNode::Var {
            level,
            link: Some(t),
        };
        Ok(())
    }

    /// Quantifies the variables of `t` whose level is above `level`.
    pub(crate) fn generalize(&mut self, t: Ty, level: u32) {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let t = self.repr(t);
            match self.nodes[t as usize] {
                TyNode::Var {
                    level: l,
                    link: None,
                } => {
                    if l > level && l != GENERIC {
                        self.nodes[t as usize] = TyNode::Var {
                            level: GENERIC,
                            link: None,
                        };
                    }
                }
                _ => stack.extend(self.children(t)),
            }
        }
    }

    /// A fresh copy of `t` with its generic variables replaced by new variables at `level`.
    pub(crate) fn instantiate(&mut self, t: Ty, level: u32) -> Ty {
        let mut map = HashMap::new();
        self.instantiate_with(t, level, &mut map)
    }

    pub(crate) fn instantiate_with(&mut self, t: Ty, level: u32, map: &mut HashMap<Ty, Ty>) -> Ty {
        let t = self.repr(t);
        match self.nodes[t as usize].clone() {
            TyNode::Var { level: GENERIC, .. } => *map.entry(t).or_insert_with(|| {
                self.nodes.push(TyNode::Var { level, link: None });
                (self.nodes.len() - 1) as Ty
            }),
            TyNode::Var { .. } => t,
            TyNode::Con(c, args) => {
                if args.is_empty() {
                    return t;
                }
                let args = args
                    .into_iter()
                    .map(|a| self.instantiate_with(a, level, map))
                    .collect();
                self.con(c, args)
            }
            TyNode::Arrow(a, b) => {
                let a = self.instantiate_with(a, level, map);
                let b = self.instantiate_with(b, level, map);
                self.arrow(a, b)
            }
            TyNode::Tuple(ts) => {
                let ts = ts
                    .into_iter()
                    .map(|x| self.instantiate_with(x, level, map))
                    .collect();
                self.add(TyNode::Tuple(ts))
            }
        }
    }

    pub(crate) fn classify_comparison(&mut self, t: Ty) -> CmpClass {
        let t = self.repr(t);
        match &self.nodes[t as usize] {
            TyNode::Con(FLOAT, _) => CmpClass::Float,
            TyNode::Con(INT | CHAR | BOOL | UNIT, _) => CmpClass::Immediate,
            TyNode::Con(c, _) => {
                let info = &self.tycons[*c as usize];
                let all_constant = !info.ctors.is_empty()
                    && info.ctors.iter().all(|&k| self.ctors[k as usize].constant);
                if all_constant && *c != EXN {
                    CmpClass::Immediate
                } else {
                    CmpClass::Poly
                }
            }
            _ => CmpClass::Poly,
        }
    }

    pub(crate) fn classify_value(&mut self, t: Ty) -> ValueKind {
        let t = self.repr(t);
        let class = self.classify_comparison(t);
        match (matches!(self.nodes[t as usize], TyNode::Var { .. }), class) {
            (true, _) => ValueKind::Any,
            (_, CmpClass::Float) => ValueKind::Float,
            (_, CmpClass::Immediate) => ValueKind::Immediate,
            (_, CmpClass::Poly | CmpClass::Word) => ValueKind::Addr,
        }
    }

    /// Shows types as OCaml does, naming variables 'a, 'b, … consistently across one message.
    pub(crate) fn show(&mut self, t: Ty, names: &mut HashMap<Ty, String>) -> String {
        self.show_prec(t, names, 0)
    }

    fn show_prec(&mut self, t: Ty, names: &mut HashMap<Ty, String>, prec: u8) -> String {
        let t = self.repr(t);
        match self.nodes[t as usize].clone() {
            TyNode::Var { .. } => {
                let n = names.len();
                let name = names.entry(t).or_insert_with(|| {
                    let letter = (b'a' + (n % 26) as u8) as char;
                    let suffix = if n >= 26 {
                        (n / 26).to_string()
                    } else {
                        String::new()
                    };
                    format!("'{letter}{suffix}")
                });
                name.clone()
            }
            TyNode::Con(c, args) => {
                let name = self.tycons[c as usize].name.clone();
                match args.len() {
                    0 => name,
                    1 => format!("{} {name}", self.show_prec(args[0], names, 3)),
                    _ => {
                        let parts: Vec<String> =
                            args.iter().map(|&a| self.show_prec(a, names, 0)).collect();
                        format!("({}) {name}", parts.join(", "))
                    }
                }
            }
            TyNode::Arrow(a, b) => {
                let s = format!(
                    "{} -> {}",
                    self.show_prec(a, names, 1),
                    self.show_prec(b, names, 0)
                );
                if prec > 0 {
                    format!("({s})")
                } else {
                    s
                }
            }
            TyNode::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|&x| self.show_prec(x, names, 2)).collect();
                let s = parts.join(" * ");
                if prec > 1 {
                    format!("({s})")
                } else {
                    s
                }
            }
        }
    }
}
