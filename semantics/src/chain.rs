//! The latency a loop carries from one iteration to the next: what `ChainCycle` counts.
//!
//! The constructs' costs come from templates that mostly run independent operations, so they
//! are throughput costs; a loop whose every iteration waits on the last one (`acc * n`, a
//! Horner step, the next cell of a list) runs at the speed of that chain instead. This pass
//! finds, statically, the longest chain of dependent operations each iteration carries:
//! - a self tail call: from each parameter to the argument passed in its place;
//! - a non-tail self call: on the way back, from its result to the function's return value
//!   (`n * fact (n - 1)`); on the way down, in a linear recursion (one self call site), from
//!   each parameter to the argument in its place (`hd :: append tl l2` walks `tl`). A linear
//!   recursion runs all the way down, then all the way back, so each way's chain is weighed
//!   against its own instructions: the way down's when the call enters the function, the way
//!   back's when it returns;
//! - a `for` or `while` iteration: from each variable assigned in the body to the value
//!   assigned to it (`s := next !s` on a reference ocamlopt turned into a variable),
//!
//! in cycles of a fixed table of ocamlopt's amd64 sequences ([`crate::latency_table`]): the fit
//! prices a cycle, the table only says how many each operation is worth. Where the table's
//! core and the one measured differ most — `float_of_int`'s wait for the last float result,
//! float operations, integer divisions — one price per cycle cannot fit both, so every
//! program is walked four times ([`Walk`]): the full chains last, after the same chains
//! without each kind, whose differences tell how much of each chain each kind makes
//! ([`crate::ir::Chain`]); [`crate::issue`] counts those parts apart, for the fit to price on
//! the machine it runs on. A call of a known
//! function adds the latency of its body; a call through a closure, the mean of the bodies it
//! can reach ([`crate::callees`]); a read of a field, a list cell, an array element or a boxed float
//! is a load (but not a float variable ocamlopt keeps unboxed: a float `ref` turned into a
//! variable, a `let` of a computed float); a float boxed to be passed on is a store the next
//! iteration's load waits for, and so does an integer field the last iteration stored that
//! ocamlopt loads after a multiply ([`late_load`]). Where values feed each other (Mandelbrot's `zr` and `zi`), the
//! chain is the slowest round trip per iteration ([`crate::loop_carried::max_cycle_mean`]).
//! Branches are predicted (a condition carries no latency), and a block built from a value is
//! a store nothing waits on. The chains are stored on the IR ([`App::chain`],
//! [`ForLoop::chain`], the third field of [`Code::While`]), with what each `if` and `while` test
//! takes to resolve, which its mispredictions lose ([`crate::branch_trace`]); as the loop runs, the part of each
//! iteration's chain beyond its issue is counted ([`crate::issue`]).

mod access;
mod app;
mod late_load;
mod loops;

use crate::callees::Callees;
use crate::ir::*;
use crate::latency_table::{Walk, LOAD};
use crate::loop_carried::critical_values;
use crate::loop_carried::Counter;
use std::collections::{HashMap, HashSet};

/// Latency in cycles from each source (a parameter, a loop variable, the self call's result)
/// to a value; `None`: the value does not depend on that source.
type Lat = Vec<Option<u32>>;

/// Marks every loop of every function with the chain it carries, in each walk ([`Walk`]).
pub(crate) fn mark_chains(compiled: &mut Compiled) {
    let callees = Callees::of(compiled);
    for walk in Walk::ALL {
        let summaries = summaries(&mut compiled.funs, &callees, walk);
        let known = Known {
            summaries: &summaries,
            callees: &callees,
            walk,
        };
        for (fid, fun) in compiled.funs.iter_mut().enumerate() {
            // A non-tail self call closes the chain from its result to the function's result:
            // known after one walk, stored by the second.
            let mut probe = Walker::for_function(fun, fid as FunId, known, false, 0);
            probe.mean_of_branches = true;
            let through_result = probe.lat(&mut fun.body)[fun.arity as usize].unwrap_or(0);
            let mut walker = Walker::for_function(fun, fid as FunId, known, true, through_result);
            walker.linear = probe.nontail_self_sites == 1;
            walker.critical = probe
                .tail_edges
                .as_deref()
                .map_or_else(Vec::new, critical_values);
            walker.lat(&mut fun.body);
            fun.is_loop = walker.closes_loop;
            let back = if walker.linear { through_result } else { 0 };
            fun.return_chain.set(walk, back);
        }
    }
}

/// For each function, the latency from each parameter to its result: what a call of it adds to
/// a chain. Two passes let callees defined after their callers be known; recursion adds
/// nothing more.
fn summaries(funs: &mut [FunCode], callees: &Callees, walk: Walk) -> Vec<Vec<u32>> {
    let mut summaries: Vec<Vec<u32>> = funs.iter().map(|f| vec![0; f.arity as usize]).collect();
    for _ in 0..2 {
        for (fid, fun) in funs.iter_mut().enumerate() {
            let known = Known {
                summaries: &summaries,
                callees,
                walk,
            };
            let result =
                Walker::for_function(fun, fid as FunId, known, false, 0).lat(&mut fun.body);
            summaries[fid] = (0..fun.arity as usize)
                .map(|i| result[i].unwrap_or(0))
                .collect();
        }
    }
    summaries
}

/// What the walks know of the functions called: each one's latencies from its parameters to
/// its result, and which ones a call through a closure may reach.
#[derive(Clone, Copy)]
struct Known<'a> {
    summaries: &'a [Vec<u32>],
    callees: &'a Callees,
    /// Which latencies this walk counts.
    walk: Walk,
}

struct Walker<'a> {
    fid: FunId,
    /// Number of sources; in a function walk, the last is the self call's result.
    sources: usize,
    /// The source a non-tail self call's result is; `None` in a loop's walk.
    self_result: Option<usize>,
    known: Known<'a>,
    env: HashMap<Slot, Lat>,
    /// Slots bound to a closure built here: a call through one reaches its function.
    closures: HashMap<Slot, FunId>,
    /// In a `for` loop's walk, its counter, and the source standing for each array element
    /// the body stores relative to it ([`crate::loop_carried`]).
    counter: Option<Counter>,
    elements: HashMap<(Slot, i64), usize>,
    /// In a loop's walk, the source standing for each field the body stores in a block it
    /// does not rebind (`r.x <- …`), and the latency of what the iteration has stored in it
    /// so far ([`crate::loop_carried::stored_fields`]).
    fields: HashMap<(Slot, u32), usize>,
    stored_now: HashMap<(Slot, u32), Lat>,
    /// Loop-carried variables of a loop's walk: slot → source.
    carried: HashMap<Slot, usize>,
    /// `carried_chain[i][j]`: the longest chain from carried variable `i` (as the iteration
    /// began) to a value assigned to carried variable `j`.
    carried_chain: Vec<Vec<Option<u32>>>,
    /// Whether a self call was found (and marked) in a recording walk.
    closes_loop: bool,
    /// The latencies its self tail calls carry from each source to the argument in each
    /// source's place (the longest over the call sites; see [`Walker::loop_edges`]).
    tail_edges: Option<Vec<Vec<Option<u32>>>>,
    /// The sources on the slowest cycle of the function's loop (found by the probe walk):
    /// an `if` whose condition waits on one is marked [`IfChains::waits_on_chain`].
    critical: Vec<bool>,
    /// Whether to store the chains found on the IR (off while computing summaries).
    record: bool,
    /// The chain a non-tail self call carries back (see [`mark_chains`]).
    through_result: u32,
    /// Non-tail self calls met (the probe walk counts them).
    nontail_self_sites: u32,
    /// Whether the function is a linear recursion: one non-tail self call site, so that its
    /// calls run down one after another, each waiting on the argument the last one passed. A
    /// tree recursion (`fib`, a walk of both subtrees) overlaps one branch's descent with the
    /// other's, so its way down carries no chain of one level to the next.
    linear: bool,
    /// The source standing for the float register an iteration last wrote, and the latency
    /// of the last float result computed, in evaluation order: see [`Walker::lat`]'s `float_of_int`.
    register: usize,
    last_float: Lat,
    /// Whether an `if` carries the mean of its branches' latencies rather than the longer:
    /// for the chain a recursion's way back carries, taken level after level down one branch
    /// or the other (`if e mod 2 = 0 then h else b * h mod m`: the remainder on the odd
    /// exponents only). The longer branch at every level overpredicted `power` by 59%. The
    /// mean is what a level carries where no `if` says which arm it ran: an `if` whose value
    /// waits on the self call's result records each arm's latency ([`IfChains::way_back`]),
    /// and the level that runs it carries its arm's (`power` +35% → +13%, as exponents
    /// around 2^20 have few odd bits).
    mean_of_branches: bool,
    /// Slots bound to unboxed floats, as [`crate::boxing`] decides: a float ref ocamlopt
    /// turned into a variable, a `let` of a computed float. Reading one is no load.
    unboxed: HashSet<Slot>,
    /// Slots bound to a field by a pattern and read once, which ocamlopt loads where they are
    /// read; and whether the record field about to be read is loaded late. See [`late_load`].
    loaded_at_use: HashSet<Slot>,
    late_load: bool,
    /// The source standing for the start of the iteration: what the walk was not told of (a
    /// loop's array and counter, a captured or global value) is available then.
    start: usize,
    /// Calls made so far in the walk's order of evaluation, and the number made when each
    /// slot was bound (see [`Walker::across_calls`]).
    calls_made: u32,
    bound_at: HashMap<Slot, u32>,
}

impl<'a> Walker<'a> {
    fn for_function(
        fun: &FunCode,
        fid: FunId,
        known: Known<'a>,
        record: bool,
        through_result: u32,
    ) -> Walker<'a> {
        let sources = fun.arity as usize + 3;
        let mut env = HashMap::new();
        for i in 0..fun.arity as usize {
            env.insert(i as Slot, source(sources, i));
        }
        let register = fun.arity as usize + 1;
        Walker {
            fid,
            sources,
            self_result: Some(fun.arity as usize),
            known,
            env,
            closures: HashMap::new(),
            counter: None,
            elements: HashMap::new(),
            fields: HashMap::new(),
            stored_now: HashMap::new(),
            carried: HashMap::new(),
            carried_chain: Vec::new(),
            closes_loop: false,
            tail_edges: None,
            critical: Vec::new(),
            record,
            through_result,
            nontail_self_sites: 0,
            linear: false,
            register,
            last_float: source(sources, register),
            mean_of_branches: false,
            unboxed: HashSet::new(),
            loaded_at_use: HashSet::new(),
            late_load: false,
            start: fun.arity as usize + 2,
            calls_made: 0,
            bound_at: HashMap::new(),
        }
    }

    /// Whether a condition waits on a source on the loop's slowest cycle.
    fn waits_on_chain(&self, cond: &Lat) -> bool {
        cond.iter()
            .zip(&self.critical)
            .any(|(l, &critical)| critical && l.is_some())
    }

    /// The cycles a condition takes to compute from what the iteration begins with: the
    /// longest of its latencies from the walk's sources, the start of the iteration among them
    /// (`if p x`: the load of `x` and `p`'s body; `a.(i) > x` in a loop: the load).
    fn resolve_cycles(cond: &Lat) -> u32 {
        cond.iter().flatten().copied().max().unwrap_or(0)
    }

    /// `result` joined with what a trap's handlers return: an exception carries no chain.
    fn handlers(&mut self, handlers: &mut [Arm], mut result: Lat) -> Lat {
        for arm in handlers {
            let none = self.none();
            self.bind_pat(&arm.pat, &none, false);
            result = join(&result, &self.lat(&mut arm.body));
        }
        result
    }

    fn none(&self) -> Lat {
        vec![None; self.sources]
    }

    fn bind(&mut self, slot: Slot, lat: Lat) {
        if self.keeps_frame() {
            self.bound_at.insert(slot, self.calls_made);
        }
        self.env.insert(slot, lat);
    }

    /// Whether this is a `for` or `while` loop's walk, whose variables live in the frame
    /// across a call ([`Walker::across_calls`]).
    fn keeps_frame(&self) -> bool {
        self.self_result.is_none()
    }

    /// `lat` loaded back from the frame if a call was made since `since`, in a `for` or
    /// `while` loop's walk. ocamlopt keeps no register across a call, so a loop that calls a
    /// function keeps the variables it assigns in its stack frame: each iteration loads them
    /// after the call, computes, and stores them back, and the next iteration's load waits on
    /// that store (`acc := !acc + f !i`: 7.9 cycles an iteration measured, where its
    /// instructions issue in 2.5). A function's own walk leaves the reload out: this core
    /// renames a parameter's store before a call and its load after away (`ignore (tick n);
    /// loop (n - 1)` runs 2.1 cycles an iteration; a list walk calling a closure, as fast as
    /// the walk alone), and counting it there put the closure walks 50 points over.
    fn across_calls(&self, lat: Lat, since: u32) -> Lat {
        if self.calls_made > since && self.keeps_frame() {
            plus(&lat, self.known.walk.forwarded_load())
        } else {
            lat
        }
    }

    fn is_self(&self, func: &Code) -> bool {
        matches!(func, Code::ClosedFun(f) | Code::Sibling(f) if *f == self.fid)
    }

    fn lat(&mut self, code: &mut Code) -> Lat {
        match code {
            // A variable the walk was not told of is there when the iteration begins.
            Code::Local(s) | Code::TakeLocal(s) => match self.env.get(s) {
                Some(l) => {
                    let since = self.bound_at.get(s).copied().unwrap_or(0);
                    self.across_calls(l.clone(), since)
                }
                None => source(self.sources, self.start),
            },
            Code::Env(_) | Code::Global(_) => source(self.sources, self.start),
            Code::Let(l) => {
                let value = self.lat(&mut l.value);
                match &l.binder {
                    Binder::Slot(s) => {
                        if let Code::MakeClosure(closure) = &l.value {
                            self.closures.insert(*s, closure.fun);
                        }
                        if crate::boxing::stays_unboxed(l.float_var, &l.value, &self.unboxed) {
                            self.unboxed.insert(*s);
                        }
                        self.bind(*s, value)
                    }
                    Binder::Pattern { pat, .. } => {
                        self.bind_pat(pat, &value, false);
                        self.note_field_loads(pat, &l.body);
                    }
                }
                self.lat(&mut l.body)
            }
            Code::LetRec(group) => self.lat(&mut group.1),
            Code::If(b) => {
                let cond = self.lat(&mut b.0);
                if self.record {
                    b.3.resolve = Self::resolve_cycles(&cond);
                    b.3.waits_on_chain = self.waits_on_chain(&cond);
                }
                let before = self.last_float.clone();
                let calls_before = self.calls_made;
                let t = self.lat(&mut b.1);
                let after_then = std::mem::replace(&mut self.last_float, before);
                let calls_then = std::mem::replace(&mut self.calls_made, calls_before);
                let e = self.lat(&mut b.2);
                self.calls_made = self.calls_made.max(calls_then);
                self.last_float = join(&after_then, &self.last_float);
                if let (true, true, Some(r)) = (self.record, self.linear, self.self_result) {
                    if t[r].is_some() || e[r].is_some() {
                        let arms = b.3.way_back.get_or_insert_with(Default::default);
                        arms[0].set(self.known.walk, t[r].unwrap_or(0));
                        arms[1].set(self.known.walk, e[r].unwrap_or(0));
                    }
                }
                if self.mean_of_branches {
                    mean(&t, &e)
                } else {
                    join(&t, &e)
                }
            }
            Code::Seq(pair) => {
                self.lat(&mut pair.0);
                self.lat(&mut pair.1)
            }
            Code::Release(release) => self.lat(&mut release.1),
            Code::Combined(_, inner) => self.lat(inner),
            Code::App(app) => self.app(app),
            Code::Op1(op, operand) => {
                let mut l = self.lat(operand);
                // `cvtsi2sd`, ocamlopt's `float_of_int`, writes the low half of its register and keeps the
                // high half, so it waits for the register's last writer: most often the float result computed
                // last, in the iteration before. In `for i … do let x = a +. h *. float_of_int i in s := !s
                // +. f x done` that is `s`'s sum, which waits on `f x`: the iterations run one after another
                // (45 cycles each where their chain through `s` is 9). So a loop's chain runs from the last
                // float result through `float_of_int` to the next iteration's last float result.
                if *op == Op1::FloatOfInt && self.known.walk.merges() {
                    l = join(&l, &self.last_float);
                }
                let result = self
                    .known
                    .walk
                    .op1(*op)
                    .map_or_else(|| self.none(), |c| plus(&l, c));
                if matches!(
                    op,
                    Op1::FloatOfInt | Op1::FNeg | Op1::FAbs | Op1::FSqrt | Op1::FloatCall(_)
                ) {
                    self.last_float = result.clone();
                }
                result
            }
            Code::Op2(node) => self.op2(node),
            Code::BoxFloat(operand) => {
                let l = self.lat(operand);
                plus(&l, self.known.walk.boxed())
            }
            Code::Match(m) => {
                let scrutinee = self.lat(&mut m.scrutinee);
                if self.record {
                    m.resolve = Self::resolve_cycles(&scrutinee) + LOAD;
                }
                let mut result = self.none();
                let (calls_before, mut calls_after) = (self.calls_made, self.calls_made);
                for arm in m.arms.iter_mut() {
                    self.calls_made = calls_before;
                    self.bind_pat(&arm.pat, &scrutinee, false);
                    self.note_field_loads(&arm.pat, &arm.body);
                    if let Some(g) = &mut arm.guard {
                        self.lat(g);
                    }
                    result = join(&result, &self.lat(&mut arm.body));
                    calls_after = calls_after.max(self.calls_made);
                }
                self.calls_made = calls_after;
                self.handlers(&mut m.handlers, result)
            }
            Code::MatchTuple(m) => {
                let components: Vec<Lat> = m.components.iter_mut().map(|c| self.lat(c)).collect();
                for (slot, l) in m.slots.iter().zip(&components) {
                    self.bind(*slot, l.clone());
                }
                let mut result = self.none();
                let (calls_before, mut calls_after) = (self.calls_made, self.calls_made);
                for arm in m.arms.iter_mut() {
                    self.calls_made = calls_before;
                    match &arm.pat {
                        TupleArmPat::Components(alternatives) => {
                            for pats in alternatives {
                                for (p, l) in pats.iter().zip(&components) {
                                    self.bind_pat(p, l, false);
                                }
                            }
                        }
                        TupleArmPat::Whole(p) => {
                            let none = self.none();
                            self.bind_pat(p, &none, false);
                        }
                    }
                    if let Some(g) = &mut arm.guard {
                        self.lat(g);
                    }
                    result = join(&result, &self.lat(&mut arm.body));
                    calls_after = calls_after.max(self.calls_made);
                }
                self.calls_made = calls_after;
                result
            }
            Code::Try(t) => {
                let body = self.lat(&mut t.body);
                self.handlers(&mut t.arms, body)
            }
            Code::Imp(node) => self.imp(node),
            Code::Assign(slot, value) => {
                let l = self.lat(value);
                if let Some(&target) = self.carried.get(slot) {
                    for (source, &chain) in l.iter().enumerate() {
                        let edge = &mut self.carried_chain[source][target];
                        *edge = (*edge).max(chain);
                    }
                }
                self.bind(*slot, l);
                self.none()
            }
            Code::For(f) => {
                self.lat(&mut f.from);
                self.lat(&mut f.until);
                let counter = Counter {
                    slot: f.slot,
                    step: if f.down { -1 } else { 1 },
                };
                let (chain, _, _) = self.loop_chain(&mut f.body, &mut Code::Imm(0), Some(counter));
                if self.record {
                    f.chain.set(self.known.walk, chain);
                }
                self.none()
            }
            Code::While(w) => {
                let (cond, body, stored, test) = &mut **w;
                let (chain, resolve, waits_on_chain) = self.loop_chain(body, cond, None);
                if self.record {
                    stored.set(self.known.walk, chain);
                    test.resolve = resolve;
                    test.waits_on_chain = waits_on_chain;
                }
                self.none()
            }
            Code::Tuple(items) | Code::Block(_, items) => {
                // A tuple or a constructor whose fields the next iteration loads (`fib (k - 1)
                // (b, (a + b) mod p)` matched as `(a, b)`, a pair returned up a recursion)
                // carries its fields' chains: `(a + b) mod p` waits for the last one. The load
                // of a field just stored costs nothing more here (the `tuple` templates rotate
                // a tuple's fields at the speed of the add alone), so the block's latency is
                // its fields' less the load that reading one adds back.
                let mut fields = self.none();
                for item in items.iter_mut() {
                    fields = join(&fields, &self.lat(item));
                }
                fields
                    .iter()
                    .map(|c| c.map(|c| c.saturating_sub(LOAD)))
                    .collect()
            }
            Code::Exn(_, items) => {
                for item in items.iter_mut() {
                    self.lat(item);
                }
                self.none()
            }
            Code::Cons(pair) => {
                self.lat(&mut pair.0);
                self.lat(&mut pair.1);
                self.none()
            }
            // The second operand decides last.
            Code::And(pair) | Code::Or(pair) => {
                let first = self.lat(&mut pair.0);
                join(&first, &self.lat(&mut pair.1))
            }
            Code::List(list) => {
                for item in list.0.iter_mut() {
                    self.lat(item);
                }
                self.lat(&mut list.1);
                self.none()
            }
            Code::Raise(operand, _) => {
                self.lat(operand);
                self.none()
            }
            Code::MakeClosure(_)
            | Code::Imm(_)
            | Code::Static(_)
            | Code::Sibling(_)
            | Code::ClosedFun(_) => self.none(),
        }
    }
}

fn source(sources: usize, i: usize) -> Lat {
    let mut l = vec![None; sources];
    l[i] = Some(0);
    l
}

fn plus(l: &Lat, cycles: u32) -> Lat {
    l.iter().map(|c| c.map(|c| c + cycles)).collect()
}

/// Where both depend on a source, the mean of their latencies from it; else the one that does.
fn mean(a: &Lat, b: &Lat) -> Lat {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some((x + y) / 2),
            (x, y) => x.or(*y),
        })
        .collect()
}

fn join(a: &Lat, b: &Lat) -> Lat {
    a.iter()
        .zip(b)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Some(*x.max(y)),
            (x, y) => x.or(*y),
        })
        .collect()
}
