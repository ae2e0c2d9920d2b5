//! A loop's own walk: the variables its body assigns and the elements it stores are its
//! sources, and its chain the slowest cycle through them ([`max_cycle_mean`]).

use super::{source, Walker};
use crate::ir::*;
use crate::loop_carried::{
    collect_assigned, max_cycle_mean, stored_elements, stored_fields, Counter,
};
use std::collections::HashMap;

impl Walker<'_> {
    /// The cycles an iteration waits on, given the latencies `edges[i][j]` from each source
    /// `i` to what source `j` holds next: those and the float register's last writer's.
    pub(super) fn slowest_cycle(&self, mut edges: Vec<Vec<Option<u32>>>) -> u32 {
        for (i, &c) in self.last_float.iter().enumerate() {
            edges[i][self.register] = edges[i][self.register].max(c);
        }
        max_cycle_mean(&edges)
    }

    /// The chain one iteration of a loop carries: over the variables its body assigns and the
    /// array elements it stores for the next iteration (`counter`: a `for` loop's), the
    /// slowest cycle of latencies from one to the values the next iteration starts from.
    /// The chain a loop carries, and the cycles its test takes to resolve (see
    /// [`Walker::resolve_cycles`]).
    pub(super) fn loop_chain(
        &mut self,
        body: &mut Code,
        cond: &mut Code,
        counter: Option<Counter>,
    ) -> (u32, u32) {
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
            record: self.record,
            through_result: 0,
            nontail_self_sites: 0,
            linear: false,
            register,
            last_float: source(sources, register),
            mean_of_branches: false,
            unboxed: self.unboxed.clone(),
            start: sources - 1,
        };
        let test = Self::resolve_cycles(&inner.lat(cond));
        inner.lat(body);
        let edges = std::mem::take(&mut inner.carried_chain);
        let chain = inner.slowest_cycle(edges);
        // The enclosing walk sees the body too: its self calls and the slots it binds.
        let saved = std::mem::replace(&mut self.record, false);
        self.lat(cond);
        self.lat(body);
        self.record = saved;
        (chain, test)
    }
}
