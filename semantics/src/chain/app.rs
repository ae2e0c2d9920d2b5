//! A call in a chain: a self call closes the loop (its arguments are the edges of the
//! function's chain), another call adds its body's latency from each argument.

use super::loops::longest_edges;
use super::{join, plus, Lat, Walker};
use crate::ir::*;
use crate::loop_carried::max_cycle_mean;

impl Walker<'_> {
    pub(super) fn app(&mut self, app: &mut App) -> Lat {
        let evaluated: Vec<(Lat, u32)> = app
            .args
            .iter_mut()
            .map(|a| (self.lat(a), self.calls_made))
            .collect();
        // An argument computed before another one's call is held across it.
        let args: Vec<Lat> = evaluated
            .into_iter()
            .map(|(l, at)| self.across_calls(l, at))
            .collect();
        if !app.tail {
            self.calls_made += 1;
        }
        let summaries = self.known.summaries;
        if self.is_self(&app.func) && args.len() == summaries[self.fid as usize].len() {
            if !app.tail {
                self.nontail_self_sites += 1;
            }
            if self.self_result.is_some() {
                // From each parameter to each argument, and to the float register's last
                // writer: the chain is the slowest cycle through them.
                let mut edges = vec![vec![None; self.sources]; self.sources];
                for (j, l) in args.iter().enumerate() {
                    for (i, &c) in l.iter().enumerate() {
                        edges[i][j] = c;
                    }
                }
                let edges = self.loop_edges(edges);
                if app.tail {
                    self.tail_edges = Some(match self.tail_edges.take() {
                        Some(before) => longest_edges(before, &edges),
                        None => edges.clone(),
                    });
                }
                if !self.record {
                    return self.self_call_result(app.tail);
                }
                app.closes_loop = Some(self.fid);
                self.closes_loop = true;
                let down = max_cycle_mean(&edges);
                let walk = self.known.walk;
                if app.tail {
                    app.chain.set(walk, down);
                } else if self.linear {
                    app.chain.set(walk, down);
                    app.descends = true;
                } else {
                    // A tree recursion's levels interleave their ways down and back: its
                    // chain back is weighed, once per self call, against all the
                    // instructions since the last one.
                    app.chain.set(walk, self.through_result);
                }
            }
            return self.self_call_result(app.tail);
        }
        let callee = match &app.func {
            Code::ClosedFun(f) | Code::Sibling(f) => Some(*f),
            Code::Local(s) | Code::TakeLocal(s) => self.closures.get(s).copied(),
            _ => None,
        };
        if callee.is_none() {
            self.lat(&mut app.func);
        }
        let mut result = self.none();
        for (i, l) in args.iter().enumerate() {
            let through = match callee {
                Some(f) => summaries[f as usize].get(i).copied().unwrap_or(0),
                None => self.known.callees.through(args.len(), i, summaries),
            };
            result = join(&result, &plus(l, through));
        }
        result
    }
}
