//! What a loop body carries from one iteration to the next besides its parameters — the
//! variables it assigns, the array elements it stores where the next iteration loads them, and
//! the fields it stores in a block bound before the loop ([`stored_fields`]) — and the chain
//! they make together ([`max_cycle_mean`]), for [`crate::chain`]'s walks.
//!
//! `p.(i + 1) <- p.(i) + a.(i)` waits every iteration on the element the last one stored: the
//! load is served from the store buffer, a forwarded store (the load's 5 cycles and the store's
//! 2, as for a boxed float passed on), and the add: prefix sums run at 6–8 cycles an element
//! measured alone (`for` over 100 to 300 000 elements, `ocamlopt -inline 0`), where their
//! instructions issue in 4. A `for` loop's body that stores `a.(i + c)` and loads
//! `a.(i + c - 1)` (or `a.(i + c + 1)` counting down) carries that element, `a` a variable the
//! body does not assign and `i` the loop's counter.

use crate::ir::*;

/// The variables a loop body assigns (not inside closures it builds).
pub(crate) fn collect_assigned(code: &Code, out: &mut Vec<Slot>) {
    if let Code::Assign(slot, _) = code {
        out.push(*slot);
    }
    code.for_each_child(&mut |child, captured| {
        if !captured {
            collect_assigned(child, out);
        }
    });
}

/// A `for` loop's counter and the step it takes each iteration.
#[derive(Clone, Copy)]
pub(crate) struct Counter {
    pub(crate) slot: Slot,
    pub(crate) step: i64,
}

/// The elements `body` stores relative to the counter: the array's variable and the offset,
/// once each.
pub(crate) fn stored_elements(body: &Code, counter: Counter) -> Vec<(Slot, i64)> {
    let mut found = Vec::new();
    collect_stores(body, counter, &mut found);
    found.sort_unstable();
    found.dedup();
    found
}

fn collect_stores(code: &Code, counter: Counter, found: &mut Vec<(Slot, i64)>) {
    if let Code::Imp(node) = code {
        if let ImpOp::ArraySet { .. } = node.op {
            if let Some(element) = element(&node.args[0], &node.args[1], counter) {
                found.push(element);
            }
        }
    }
    code.for_each_child(&mut |child, captured| {
        if !captured {
            collect_stores(child, counter, found);
        }
    });
}

/// The fields a loop body stores in a block held by a variable it does not assign (`r.x <-
/// v`, `r := v` on a reference ocamlopt keeps as a block): the block's variable and the field,
/// once each. A flat float field read after such a store, in the same iteration or the next,
/// waits for the stored double to be forwarded, as a boxed float passed on does
/// (`fieldset_float`, `r.x <- r.y +. 1.0; r.y <- r.x +. 0.5`: two forwarded stores and two
/// adds an iteration, 20 cycles measured on a Zen 3 where nothing was counted). An integer
/// field is left out: the core this was measured on renames such a store and load away
/// (`addtofield_ref`, two read-modify-writes of one reference an iteration, runs in 2.3
/// cycles).
pub(crate) fn stored_fields(body: &Code, assigned: &[Slot]) -> Vec<(Slot, u32)> {
    let mut found = Vec::new();
    collect_field_stores(body, assigned, &mut found);
    found.sort_unstable();
    found.dedup();
    found
}

fn collect_field_stores(code: &Code, assigned: &[Slot], found: &mut Vec<(Slot, u32)>) {
    if let Code::Imp(node) = code {
        if let ImpOp::SetField { index, .. } = node.op {
            if let Some(block) = field_block(&node.args[0], assigned) {
                found.push((block, index));
            }
        }
    }
    code.for_each_child(&mut |child, captured| {
        if !captured {
            collect_field_stores(child, assigned, found);
        }
    });
}

/// The variable holding the block a field access names, if the loop does not assign it.
pub(crate) fn field_block(block: &Code, assigned: &[Slot]) -> Option<Slot> {
    match block {
        Code::Local(s) | Code::TakeLocal(s) if !assigned.contains(s) => Some(*s),
        _ => None,
    }
}

/// The element `array.(index)` names relative to the counter, if `array` is a variable and
/// `index` the counter plus a constant.
pub(crate) fn element(array: &Code, index: &Code, counter: Counter) -> Option<(Slot, i64)> {
    let (Code::Local(a) | Code::TakeLocal(a)) = array else {
        return None;
    };
    Some((*a, offset(index, counter.slot)?))
}

/// `index` as the counter plus a constant.
fn offset(index: &Code, counter: Slot) -> Option<i64> {
    let is_counter = |c: &Code| matches!(c, Code::Local(s) | Code::TakeLocal(s) if *s == counter);
    match index {
        c if is_counter(c) => Some(0),
        Code::Op1(Op1::Succ, operand) if is_counter(operand) => Some(1),
        Code::Op1(Op1::Pred, operand) if is_counter(operand) => Some(-1),
        Code::Op2(node) => match (&node.op, &node.lhs, &node.rhs) {
            (Op2::Add, l, Code::Imm(c)) if is_counter(l) => Some(*c),
            (Op2::Add, Code::Imm(c), r) if is_counter(r) => Some(*c),
            (Op2::Sub, l, Code::Imm(c)) if is_counter(l) => Some(-*c),
            _ => None,
        },
        _ => None,
    }
}

/// The cycles an iteration takes when it waits on every dependence `edges[i][j]` from the value
/// `i` held as the iteration began to the value `j` holds as the next begins: the largest mean
/// latency per edge of a cycle in that graph (Karp's algorithm), rounded. A value that feeds
/// only itself is a cycle of one edge; two that feed each other (Mandelbrot's `zr` and `zi`,
/// 10 cycles from `zr` to `zi`, 8 back, each 8 or 6 to itself) take the mean of their round trip,
/// 9 cycles an iteration.
pub(crate) fn max_cycle_mean(edges: &[Vec<Option<u32>>]) -> u32 {
    let n = edges.len();
    // walks[k][v]: the heaviest walk of exactly k edges ending at v, from anywhere.
    let mut walks: Vec<Vec<Option<i64>>> = vec![vec![Some(0); n]];
    for k in 1..=n {
        let next = (0..n)
            .map(|v| {
                (0..n)
                    .filter_map(|u| Some(walks[k - 1][u]? + i64::from(edges[u][v]?)))
                    .max()
            })
            .collect();
        walks.push(next);
    }
    let best = (0..n)
        .filter_map(|v| {
            let last = walks[n][v]?;
            (0..n)
                .filter_map(|k| Some((last - walks[k][v]?) as f64 / (n - k) as f64))
                .min_by(f64::total_cmp)
        })
        .max_by(f64::total_cmp);
    best.map_or(0, |mean| mean.round() as u32)
}

/// Which values lie on the slowest cycle of `edges` (see [`max_cycle_mean`]): those whose
/// strongly connected part alone is as slow. A value that only counts down beside the chain
/// (`k` in `divs (x / d) (k - 1)`) is not on it; `gcd`'s `a` and `b`, which feed each other
/// through the remainder, both are.
pub(crate) fn critical_values(edges: &[Vec<Option<u32>>]) -> Vec<bool> {
    let n = edges.len();
    let slowest = max_cycle_mean(edges);
    if slowest == 0 {
        return vec![false; n];
    }
    // reach[i][j]: a walk of at least one edge leads from i to j.
    let mut reach: Vec<Vec<bool>> = edges
        .iter()
        .map(|row| row.iter().map(Option::is_some).collect())
        .collect();
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut().filter(|row| row[k]) {
            for (to, &onward) in row.iter_mut().zip(&via) {
                *to |= onward;
            }
        }
    }
    // Each strongly connected part is weighed once: its values share the answer.
    let mut critical = vec![false; n];
    let mut weighed = vec![false; n];
    for v in 0..n {
        if weighed[v] || !reach[v][v] {
            continue;
        }
        let part: Vec<bool> = (0..n).map(|i| reach[v][i] && reach[i][v]).collect();
        let within: Vec<Vec<Option<u32>>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| edges[i][j].filter(|_| part[i] && part[j]))
                    .collect()
            })
            .collect();
        let binds = max_cycle_mean(&within) == slowest;
        for i in (0..n).filter(|&i| part[i]) {
            weighed[i] = true;
            critical[i] = binds;
        }
    }
    critical
}

#[cfg(test)]
mod tests {
    use super::{critical_values, max_cycle_mean};

    #[test]
    fn a_value_is_critical_only_on_the_slowest_cycle() {
        // divs: x → x 23 (a division), k → x 2, k → k 1: only x binds.
        let divs = [vec![Some(23), None], vec![Some(2), Some(1)]];
        assert_eq!(critical_values(&divs), [true, false]);
        // gcd: a → b 23, b → b 23, b → a 0: both on the remainder's cycle.
        let gcd = [vec![None, Some(23)], vec![Some(0), Some(23)]];
        assert_eq!(critical_values(&gcd), [true, true]);
        // Two cycles as slow: both are the chain.
        let twin = [vec![Some(4), None], vec![None, Some(4)]];
        assert_eq!(critical_values(&twin), [true, true]);
        // No cycle: nothing binds.
        let none = [vec![None, Some(3)], vec![None, None]];
        assert_eq!(critical_values(&none), [false, false]);
    }

    #[test]
    fn the_slowest_cycle_per_edge_is_the_chain() {
        // One value feeding itself in 5.
        assert_eq!(max_cycle_mean(&[vec![Some(5)]]), 5);
        // Mandelbrot: zr → zi 10, zi → zr 8, zr → zr 8, zi → zi 6: the round trip, 9.
        let mandelbrot = [vec![Some(8), Some(10)], vec![Some(8), Some(6)]];
        assert_eq!(max_cycle_mean(&mandelbrot), 9);
        // A value feeding another that feeds nothing back is no cycle.
        assert_eq!(max_cycle_mean(&[vec![None, Some(7)], vec![None, None]]), 0);
        // Three in a ring, 3 + 4 + 5 over three iterations, beside a self loop of 3.
        let ring = [
            vec![Some(3), Some(3), None],
            vec![None, None, Some(4)],
            vec![Some(5), None, None],
        ];
        assert_eq!(max_cycle_mean(&ring), 4);
    }
}
