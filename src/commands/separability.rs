//! What `mlcost gen` says about a suite before it is measured: can the regression separate
//! every construct? (Computed by `pipeline::separability`; printed here.)

use pipeline::separability::SuiteSeparability;

pub fn print(s: &SuiteSeparability) {
    for why in &s.not_counted {
        eprintln!("mlcost: {why}");
    }
    let d = &s.separability;
    outln!(
        "design: {} points × {} constructs, rank {}{}, condition number {:.1}",
        d.points,
        d.constructs.len(),
        d.rank,
        if d.rank == d.constructs.len() {
            " (full)"
        } else {
            " (DEFICIENT)"
        },
        d.condition_number
    );
    for group in &d.aliased {
        outln!("cannot be separated: {}", group.join(" ~ "));
    }
    if !s.hard_to_separate.is_empty() {
        let listed: Vec<String> = s
            .hard_to_separate
            .iter()
            .map(|(c, v)| format!("{c} (VIF {v:.1})"))
            .collect();
        outln!("hard to separate: {}", listed.join(", "));
    }
    if !s.unstressed.is_empty() {
        outln!(
            "never run by the suite (no cost will be learned): {}",
            s.unstressed.join(", ")
        );
    }
}
