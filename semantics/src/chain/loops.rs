//! A loop's own walk: the variables its body assigns and the elements it stores are its
//! sources, and its chain the slowest cycle through them ([`max_cycle_mean`]); and what a
//! function's self calls carry, from which its loop's chain is found the same way.

use super::{source, Lat, Walker};
use crate::ir::*;
use crate::loop_carried::{
    collect_assigned, critical_values, max_cycle_mean, stored_elements, stored_fields, Counter,
};
use std::collections::HashMap;

impl Walker<'_> {
    /// The latencies `edges[i][j]` from each source `i` to what source `j` holds next, with
    /// the float register's last writer's: the chain is their slowest cycle.
    pub(super) fn loop_edges(&self, mut edges: Vec<Vec<Option<u32>>>) -> Vec<Vec<Option<u32>>> {
        for (i, &c) in self.last_float.iter().enumerate() {
            edges[i][self.register] = edges[i][self.register].max(c);
        }
        edges
    }

    /// The chain one iteration of a loop carries: over the variables its body assigns and the
    /// array elements it stores for the next iteration (`counter`: a `for` loop's), the
    /// slowest cycle of latencies from one to the values the next iteration starts from.
    /// The chain a loop carries, the cycles its test takes to resolve (see
    /// [`Walker::resolve_cycles`]) and whether the test waits on the chain.
    pub(super) fn loop_chain(
        &mut self,
        body: &mut Code,
        cond: &mut Code,
        counter: Option<Counter>,
    ) -> (u32, u32, bool) {
        let mut assigned = Vec::new();
        collect_assigned(body, &mut assigned);
        assigned.sort_unstable();
        assigned.dedup();
        let stored = counter.map_or_else(Vec::new, |c| stored_elements(body, c));
        // Only blocks bound before the loop: one bound in its body is another block each
        // iteration, whose fields the next iteration does not read back.
        let fields: Vec<(Slot, u32)> = stored_fields(body, &assigned)
            .into_iter()
            .filter(|(block, _)| self.env.contains_key(block))
            .collect();
        let sources = assigned.len() + stored.len() + fields.len() + 2;
        let register = sources - 2;
        let mut inner = Walker {
            fid: self.fid,
            sources,
            self_result: None,
            known: self.known,
            closures: self.closures.clone(),
            counter,
            elements: stored
                .iter()
                .enumerate()
                .map(|(k, &element)| (element, assigned.len() + k))
                .collect(),
            fields: fields
                .iter()
                .enumerate()
                .map(|(k, &field)| (field, assigned.len() + stored.len() + k))
                .collect(),
            stored_now: HashMap::new(),
            env: assigned
                .iter()
                .enumerate()
                .map(|(i, s)| (*s, source(sources, i)))
                .collect(),
            carried: assigned.iter().enumerate().map(|(i, s)| (*s, i)).collect(),
            carried_chain: vec![vec![None; sources]; sources],
            closes_loop: false,
            tail_edges: None,
            critical: Vec::new(),
            record: self.record,
            through_result: 0,
            nontail_self_sites: 0,
            linear: false,
            register,
            last_float: source(sources, register),
            mean_of_branches: false,
            unboxed: self.unboxed.clone(),
            loaded_at_use: self.loaded_at_use.clone(),
            late_load: false,
            start: sources - 1,
            calls_made: 0,
            bound_at: HashMap::new(),
        };
        let test = inner.lat(cond);
        inner.lat(body);
        let carried = std::mem::take(&mut inner.carried_chain);
        let edges = inner.loop_edges(carried);
        let chain = max_cycle_mean(&edges);
        inner.critical = critical_values(&edges);
        let waits_on_chain = inner.waits_on_chain(&test);
        let test = Self::resolve_cycles(&test);
        // The enclosing walk sees the body too: its self calls and the slots it binds.
        let saved = std::mem::replace(&mut self.record, false);
        self.lat(cond);
        self.lat(body);
        self.record = saved;
        (chain, test, waits_on_chain)
    }
}

impl Walker<'_> {
    /// What a self call returns: in a function's walk, a non-tail call's result is a source.
    pub(super) fn self_call_result(&self, tail: bool) -> Lat {
        let mut result = self.none();
        if let (false, Some(r)) = (tail, self.self_result) {
            result[r] = Some(0);
        }
        result
    }
}

/// The longer of two latencies from each source to each: the chain of two call sites.
pub(super) fn longest_edges(
    mut a: Vec<Vec<Option<u32>>>,
    b: &[Vec<Option<u32>>],
) -> Vec<Vec<Option<u32>>> {
    for (row, other) in a.iter_mut().zip(b) {
        for (x, y) in row.iter_mut().zip(other) {
            *x = (*x).max(*y);
        }
    }
    a
}
