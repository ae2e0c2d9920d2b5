//! Reads on a chain: the variables a pattern binds from a value, and the accesses of fields,
//! strings and array elements — a load each, or, for an element the iteration before stored
//! or a float field a loop stores, a forwarded store ([`crate::loop_carried`]).

use super::{join, plus, source, Lat, Walker};
use crate::ir::*;
use crate::latency_table::LOAD;
use crate::loop_carried::{element, field_block};

impl Walker<'_> {
    /// Binds the variables of `pat` matched against a value of latency `lat`: a variable bound
    /// to the whole value has its latency, one bound to a field a load more.
    pub(super) fn bind_pat(&mut self, pat: &Pat, lat: &Lat, inside: bool) {
        let field = || plus(lat, LOAD);
        match pat {
            Pat::Any | Pat::Imm(_) | Pat::Float(_) | Pat::Str(_) => {}
            Pat::Bind(s) => {
                let l = if inside { field() } else { lat.clone() };
                self.bind(*s, l);
            }
            Pat::As(p, s) => {
                let l = if inside { field() } else { lat.clone() };
                self.bind(*s, l.clone());
                self.bind_pat(p, &l, false);
            }
            Pat::Or(pair) => {
                self.bind_pat(&pair.0, lat, inside);
                self.bind_pat(&pair.1, lat, inside);
            }
            Pat::Cons(pair) => {
                let l = if inside { field() } else { lat.clone() };
                self.bind_pat(&pair.0, &l, true);
                self.bind_pat(&pair.1, &l, true);
            }
            Pat::Tuple(ps) | Pat::Block(_, ps) | Pat::Exn(_, ps) => {
                let l = if inside { field() } else { lat.clone() };
                for p in ps.iter() {
                    self.bind_pat(p, &l, true);
                }
            }
            Pat::Record(fields) => {
                let l = if inside { field() } else { lat.clone() };
                for (_, p) in fields.iter() {
                    self.bind_pat(p, &l, true);
                }
            }
        }
    }

    /// What the loop stored in `field`, if it stores it: this iteration's store once made,
    /// else the last iteration's, a source of the loop's walk.
    fn stored(&self, field: Option<(Slot, u32)>) -> Option<Lat> {
        let f = field?;
        match self.stored_now.get(&f) {
            Some(now) => Some(now.clone()),
            None => self.fields.get(&f).map(|&j| source(self.sources, j)),
        }
    }

    pub(super) fn imp(&mut self, node: &mut ImpNode) -> Lat {
        let late = std::mem::take(&mut self.late_load);
        // The element an access names relative to the loop's counter, and the source standing
        // for the element one iteration stores for the next to load.
        let carried = match self.counter {
            Some(counter) if matches!(node.op, ImpOp::ArrayGet { .. } | ImpOp::ArraySet { .. }) => {
                element(&node.args[0], &node.args[1], counter).map(|(a, c)| (a, c, counter.step))
            }
            _ => None,
        };
        let field = match node.op {
            ImpOp::GetField { index, .. } | ImpOp::SetField { index, .. } => {
                field_block(&node.args[0], &[]).map(|block| (block, index))
            }
            _ => None,
        };
        let args: Vec<Lat> = node.args.iter_mut().map(|a| self.lat(a)).collect();
        match node.op {
            ImpOp::GetField { flat: true, .. } => {
                let loaded = plus(&args[0], LOAD);
                // A double this iteration stored, or the last one did: forwarded.
                let forward = self.known.walk.forwarded();
                match self.stored(field) {
                    Some(value) => join(&loaded, &plus(&value, forward)),
                    None => loaded,
                }
            }
            ImpOp::SetField { .. } => {
                if let Some((f, &j)) = field.and_then(|f| Some((f, self.fields.get(&f)?))) {
                    for (i, &latency) in args[1].iter().enumerate() {
                        let edge = &mut self.carried_chain[i][j];
                        *edge = (*edge).max(latency);
                    }
                    self.stored_now.insert(f, args[1].clone());
                }
                self.none()
            }
            ImpOp::GetField { .. } if late => {
                // An integer field the loop stores, loaded after a multiply: it waits for the
                // store ([`super::late_load`]); loaded first, the two are renamed away.
                let loaded = plus(&args[0], LOAD);
                let late = self.known.walk.late_forwarded();
                match self.stored(field) {
                    Some(value) => join(&loaded, &plus(&value, late)),
                    None => loaded,
                }
            }
            ImpOp::GetField { .. } | ImpOp::ArrayLength | ImpOp::Str(StrOp::Length) => {
                plus(&args[0], LOAD)
            }
            ImpOp::Str(StrOp::Get { .. }) => plus(&join(&args[0], &plus(&args[1], 1)), LOAD),
            ImpOp::ArrayGet { .. } => {
                let loaded = plus(&join(&args[0], &plus(&args[1], 1)), LOAD);
                // Stored by the iteration before at the offset one step further: a store
                // forwarded to the load, as a boxed float passed on.
                match carried.and_then(|(a, c, step)| self.elements.get(&(a, c + step))) {
                    Some(&j) => {
                        let forwarded = self.known.walk.forwarded();
                        join(&loaded, &plus(&source(self.sources, j), forwarded))
                    }
                    None => loaded,
                }
            }
            ImpOp::ArraySet { .. } => {
                if let Some(&j) = carried.and_then(|(a, c, _)| self.elements.get(&(a, c))) {
                    for (i, &latency) in args[2].iter().enumerate() {
                        let edge = &mut self.carried_chain[i][j];
                        *edge = (*edge).max(latency);
                    }
                }
                self.none()
            }
            _ => self.none(),
        }
    }
}
