//! The surface syntax tree of the supported OCaml subset, as the parser builds it.
//!
//! Every expression and pattern carries a [`NodeId`] (so that the type checker can record
//! facts — a comparison's operand type, a constructor's identity — for the compiler to read)
//! and a [`Pos`] (so that every later error can name a line and column).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    /// The file the position is in when it is not the program's own: the prelude or a Stdlib
    /// module's source, whose code runs inside the program's. 0: the
    /// program's file.
    pub file: SourceFile,
}

/// A file other than the program's that positions may point into, numbered in the order
/// files were first read (see [`source_file_id`]); 0 is the program's own.
pub type SourceFile = u16;

static SOURCE_FILES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The number positions in `name` carry (the same for every read of it in the process).
pub(crate) fn source_file_id(name: &str) -> SourceFile {
    let mut files = SOURCE_FILES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let index = files.iter().position(|f| f == name).unwrap_or_else(|| {
        files.push(name.to_string());
        files.len() - 1
    });
    // Positions of a file beyond the numbers name the program's file: an error's position
    // in the Stdlib would then be named in the wrong file, never lost.
    SourceFile::try_from(index + 1).unwrap_or(0)
}

/// The file a position is in, if it is not the program's own.
pub(crate) fn source_file(pos: Pos) -> Option<String> {
    let index = usize::from(pos.file).checked_sub(1)?;
    SOURCE_FILES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(index)
        .cloned()
}

/// Marks every token of `toks` as read from `file` (not the program's own).
pub(crate) fn mark_file(toks: &mut [crate::lexer::Token], file: &str) {
    let id = source_file_id(file);
    for t in toks {
        t.pos.file = id;
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

pub(crate) type NodeId = u32;

#[derive(Debug, Clone)]
pub(crate) struct Expr {
    pub id: NodeId,
    pub pos: Pos,
    pub kind: ExprKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
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
    /// Structural comparisons: their cost depends on the operand type (decided after typing).
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Physical (in)equality `==` / `!=`: a word comparison at every type.
    PhysEq,
    PhysNe,
    And,
    Or,
}

impl BinOp {
    pub(crate) fn is_structural_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    FNeg,
}

#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    Int(i64),
    Float(f64),
    Str(String),
    Char(u8),
    Bool(bool),
    Unit,
    Var(String),
    /// `C` or `C arg`; a constructor of several arguments takes a syntactic tuple.
    Constr(String, Option<Box<Expr>>),
    Tuple(Vec<Expr>),
    /// `[e1; …; en]` (kept flat: a long literal must not become a deep tree).
    List(Vec<Expr>),
    Cons(Box<Expr>, Box<Expr>),
    /// Application; `tail` is set by the tail-position pass ([`crate::tail`]).
    App {
        func: Box<Expr>,
        args: Vec<Expr>,
        tail: bool,
    },
    BinOp(BinOp, Box<Expr>, Box<Expr>),
    UnOp(UnOp, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Option<Box<Expr>>),
    Seq(Box<Expr>, Box<Expr>),
    Let {
        rec_: bool,
        bindings: Vec<Binding>,
        body: Box<Expr>,
    },
    /// `fun p1 … pn -> body` (nested `fun`s directly in a body are merged by the parser,
    /// as `ocamlopt` merges them into one n-ary function).
    Fun {
        params: Vec<Pattern>,
        body: Box<Expr>,
    },
    Function(Vec<Arm>),
    Match(Box<Expr>, Vec<Arm>),
    /// `match e with arms | exception handlers`: the handlers catch what `e` raises (only
    /// `e`: the arms run after its trap is popped), the arms match its value.
    MatchExn(Box<Expr>, Vec<Arm>, Vec<Arm>),
    Try(Box<Expr>, Vec<Arm>),
    Annot(Box<Expr>, TypeExpr),
    /// `{ f1 = e1; …; fn = en }`, or `{ e with f = … }` when the second part is present.
    Record(Vec<(String, Expr)>, Option<Box<Expr>>),
    /// `e.f`.
    Field(Box<Expr>, String),
    /// `e1.f <- e2`.
    SetField(Box<Expr>, String, Box<Expr>),
    /// `[| e1; …; en |]`.
    Array(Vec<Expr>),
    /// `a.(i)`.
    ArrayGet(Box<Expr>, Box<Expr>),
    /// `a.(i) <- v`.
    ArraySet(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `for var = from to/downto until do body done`.
    For {
        var: String,
        from: Box<Expr>,
        until: Box<Expr>,
        down: bool,
        body: Box<Expr>,
    },
    While(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub pat: Pattern,
    pub expr: Expr,
    pub pos: Pos,
    /// The binding's inline attribute, for a function (see [`crate::inline`]).
    pub inline: Inline,
}

/// What a binding's `[@inline …]` attribute asks of ocamlopt's Closure pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Inline {
    /// No attribute: inlined when the body is small enough.
    #[default]
    Default,
    /// `[@inline]`, `[@inline always]`: inlined whatever its size.
    Always,
    /// `[@inline never]`: never inlined.
    Never,
}

#[derive(Debug, Clone)]
pub(crate) struct Arm {
    pub pat: Pattern,
    pub guard: Option<Expr>,
    pub body: Expr,
}

#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    pub id: NodeId,
    pub pos: Pos,
    pub kind: PatKind,
}

#[derive(Debug, Clone)]
pub(crate) enum PatKind {
    Any,
    Var(String),
    Int(i64),
    Float(f64),
    Str(String),
    Char(u8),
    Bool(bool),
    Unit,
    Nil,
    Cons(Box<Pattern>, Box<Pattern>),
    List(Vec<Pattern>),
    Tuple(Vec<Pattern>),
    Constr(String, Option<Box<Pattern>>),
    Or(Box<Pattern>, Box<Pattern>),
    As(Box<Pattern>, String),
    Annot(Box<Pattern>, TypeExpr),
    /// `{ f1 = p1; …; fk = pk; _ }`: the fields named (the others are not read).
    Record(Vec<(String, Pattern)>),
}

#[derive(Debug, Clone)]
pub(crate) struct TypeExpr {
    pub pos: Pos,
    pub kind: TypeExprKind,
}

#[derive(Debug, Clone)]
pub(crate) enum TypeExprKind {
    Var(String),
    /// `_` in a type annotation.
    Wildcard,
    Con(String, Vec<TypeExpr>),
    Arrow(Box<TypeExpr>, Box<TypeExpr>),
    Tuple(Vec<TypeExpr>),
}

#[derive(Debug, Clone)]
pub(crate) struct TypeDecl {
    pub name: String,
    pub params: Vec<String>,
    pub pos: Pos,
    pub body: TypeDeclBody,
}

#[derive(Debug, Clone)]
pub(crate) enum TypeDeclBody {
    Variant(Vec<ConstrDecl>),
    Alias(TypeExpr),
    Record(Vec<FieldDecl>),
}

#[derive(Debug, Clone)]
pub(crate) struct FieldDecl {
    pub name: String,
    pub mutable: bool,
    pub ty: TypeExpr,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub(crate) struct ConstrDecl {
    pub name: String,
    /// `C of a * b` has two arguments; `C of (a * b)` has one, a tuple.
    /// `C of { f : a; g : b }` has two too, its fields' types.
    pub args: Vec<TypeExpr>,
    /// The fields of an inline record argument (`C of { … }`), whose block is the
    /// constructor's own: one field a word, after the header with the constructor's tag.
    pub inline_record: Option<Vec<FieldDecl>>,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub(crate) enum Item {
    Let {
        rec_: bool,
        bindings: Vec<Binding>,
    },
    Type(Vec<TypeDecl>),
    Exception(ConstrDecl),
    /// A top-level expression (`;; e`), evaluated for its effects, as in a script.
    Expr(Expr),
}

/// Whether a binding named `entry` binds `name` for code of `module` (`None`: the program's
/// own): its own name, or the module's qualified name for it — inside `list.ml`,
/// `List.rev_append` is `rev_append` (see [`crate::stdlib_source`]).
pub(crate) fn binds(entry: &str, name: &str, module: Option<&str>) -> bool {
    entry == name
        || module.is_some_and(|m| {
            entry.len() == m.len() + 1 + name.len()
                && entry.starts_with(m)
                && entry.as_bytes()[m.len()] == b'.'
                && entry.ends_with(name)
        })
}
