//! What the suite can and cannot support: rank, conditioning, aliasing, variance inflation,
//! and how well each method predicts a program it was not fitted on.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::design::Design;
use crate::input::{Method, Observation};
use crate::methods::{fit_reweighted, WarmStart};

/// A singular value below this fraction of the largest one counts as zero. Counts are exact, so
/// true aliasing shows as ~1e-16; anything above 1e-10 is a separable (if poorly conditioned)
/// direction that the condition number and VIF report instead.
pub(crate) const RANK_TOLERANCE: f64 = 1e-10;

/// Leaving a program out must leave a suite that still separates every construct, and not
/// just barely: with condition number κ a 1% measurement error can move a constant by κ%, so
/// a left-out design worse than this (or 10x worse than the full one) predicts noise, and the
/// program is listed as skipped with the constructs it pins down.
const LOPO_CONDITION_LIMIT: f64 = 1e3;

/// Rank and null space of a column-scaled design, from its triangular factor.
#[derive(Debug, Clone)]
pub(crate) struct RankAnalysis {
    /// Singular values, largest first.
    pub singular_values: Vec<f64>,
    pub rank: usize,
    /// Columns of each group of constructs that cannot be separated (indices, sorted).
    pub aliased_columns: Vec<Vec<usize>>,
    /// `diag((AᵀA)⁻¹)` of the column-scaled design: the (uncentred) variance inflation factors.
    pub variance_inflation: Option<Vec<f64>>,
}

impl RankAnalysis {
    /// Analyses a design through the upper-triangular factor of its QR (same singular values and
    /// right singular vectors, at p x p cost). `upper` may have fewer rows than columns.
    /// Singular values up to `tolerance` x the largest count as zero.
    pub fn of_triangular(upper: &DMatrix<f64>, tolerance: f64) -> RankAnalysis {
        let p = upper.ncols();
        let mut square = DMatrix::zeros(p, p);
        let rows = upper.nrows().min(p);
        square
            .view_mut((0, 0), (rows, p))
            .copy_from(&upper.view((0, 0), (rows, p)));
        let svd = nalgebra::linalg::SVD::new(square, false, true);
        let singular_values: Vec<f64> = svd.singular_values.iter().copied().collect();
        let right = svd.v_t.expect("SVD was asked for V"); // rows are right singular vectors
        let largest = singular_values.iter().copied().fold(0.0, f64::max);
        let is_zero = |value: f64| value <= tolerance * largest || largest == 0.0;
        let rank = singular_values
            .iter()
            .filter(|value| !is_zero(**value))
            .count();
        let null_space: Vec<DVector<f64>> = singular_values
            .iter()
            .enumerate()
            .filter(|(_, value)| is_zero(**value))
            .map(|(index, _)| right.row(index).transpose())
            .collect();
        let variance_inflation = (rank == p).then(|| {
            (0..p)
                .map(|column| {
                    singular_values
                        .iter()
                        .enumerate()
                        .map(|(index, value)| (right[(index, column)] / value).powi(2))
                        .sum()
                })
                .collect()
        });
        RankAnalysis {
            rank,
            // Exact null vectors are sparse up to rounding: every component above rounding level
            // names a construct. Near-null vectors (a loose tolerance) have small components
            // everywhere: only each vector's main participants are named.
            aliased_columns: aliased_groups(
                &null_space,
                p,
                if tolerance < 1e-6 { 0.0 } else { 0.1 },
            ),
            singular_values,
            variance_inflation,
        }
    }

    /// Ratio of the largest to the smallest singular value (infinite when rank-deficient).
    pub fn condition_number(&self) -> f64 {
        let largest = self.singular_values.iter().copied().fold(0.0, f64::max);
        let smallest = self
            .singular_values
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        if smallest > 0.0 {
            largest / smallest
        } else {
            f64::INFINITY
        }
    }

    pub fn aliased_names(&self, constructs: &[String]) -> Vec<Vec<String>> {
        self.aliased_columns
            .iter()
            .map(|group| group.iter().map(|&c| constructs[c].clone()).collect())
            .collect()
    }
}

/// Groups of columns that the null space ties together. The null space's basis is put in
/// reduced row echelon form first: an SVD's basis of a multi-dimensional null space is an
/// arbitrary rotation that would merge independent aliasings (FunDef~Closure and
/// IntCondGT~IntCondGE) into one group; the echelon basis is unique and keeps them apart.
fn aliased_groups(
    null_space: &[DVector<f64>],
    columns: usize,
    main_fraction: f64,
) -> Vec<Vec<usize>> {
    if null_space.is_empty() {
        return Vec::new();
    }
    let mut echelon = DMatrix::from_fn(null_space.len(), columns, |row, column| {
        null_space[row][column]
    });
    let mut pivot_row = 0;
    for column in 0..columns {
        if pivot_row == echelon.nrows() {
            break;
        }
        let (best, magnitude) = (pivot_row..echelon.nrows())
            .map(|row| (row, echelon[(row, column)].abs()))
            .fold(
                (pivot_row, 0.0),
                |acc, item| if item.1 > acc.1 { item } else { acc },
            );
        if magnitude < 1e-9 {
            continue;
        }
        echelon.swap_rows(pivot_row, best);
        let pivot = echelon[(pivot_row, column)];
        echelon.row_mut(pivot_row).scale_mut(1.0 / pivot);
        let pivot_values = echelon.row(pivot_row).into_owned();
        for row in 0..echelon.nrows() {
            if row != pivot_row {
                let factor = echelon[(row, column)];
                for other in 0..columns {
                    echelon[(row, other)] -= factor * pivot_values[other];
                }
            }
        }
        pivot_row += 1;
    }
    // Union the supports of the echelon rows.
    let mut group_of: Vec<usize> = (0..columns).collect();
    fn root(group_of: &mut [usize], mut column: usize) -> usize {
        while group_of[column] != column {
            group_of[column] = group_of[group_of[column]];
            column = group_of[column];
        }
        column
    }
    let mut involved = BTreeSet::new();
    for row in echelon.row_iter() {
        let threshold = (main_fraction * row.amax()).max(1e-6);
        let members: Vec<usize> = (0..columns).filter(|&c| row[c].abs() > threshold).collect();
        for &column in &members {
            involved.insert(column);
            let (a, b) = (root(&mut group_of, members[0]), root(&mut group_of, column));
            group_of[b] = a;
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for column in involved {
        let group = root(&mut group_of, column);
        groups.entry(group).or_default().push(column);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    groups.sort();
    groups
}

/// Leave-one-program-out prediction errors, as stored in `model.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LeaveOneProgramOut {
    /// Method -> mean over evaluable programs of the paper's error
    /// `mean_i |measured_i − predicted_i| / measured_i × 100` (null when none is evaluable).
    pub error_pct: BTreeMap<Method, Option<f64>>,
    /// Method -> program -> that program's error when fitted without it.
    pub error_pct_by_program: BTreeMap<Method, BTreeMap<String, f64>>,
    /// Programs that cannot be left out: without them these constructs are not identifiable,
    /// or barely (condition number above max(1000, 10 x the full suite's)).
    pub skipped: BTreeMap<String, Vec<String>>,
}

pub(crate) fn leave_one_program_out(
    design: &Design,
    observations: &[Observation],
    methods: &BTreeSet<Method>,
    warm_start: &WarmStart,
    full_condition_number: f64,
) -> LeaveOneProgramOut {
    let condition_limit = LOPO_CONDITION_LIMIT.max(10.0 * full_condition_number);
    let mut result = LeaveOneProgramOut::default();
    for method in methods {
        result.error_pct_by_program.insert(*method, BTreeMap::new());
    }
    for (program, left_out_rows) in design.program_rows.iter().enumerate() {
        let name = &design.programs[program];
        let kept: Vec<usize> = (0..design.rows())
            .filter(|&row| design.row_program[row] != program)
            .collect();
        let upper = nalgebra::linalg::QR::new(design.scaled_rows(&kept)).r();
        let analysis = RankAnalysis::of_triangular(&upper, 1.0 / condition_limit);
        if analysis.rank < design.columns() {
            let unidentifiable = analysis.aliased_columns.iter().flatten();
            let names = unidentifiable
                .map(|&c| design.constructs[c].clone())
                .collect();
            result.skipped.insert(name.clone(), names);
            continue;
        }
        let mut weights = vec![1.0; design.rows()];
        for &row in left_out_rows {
            weights[row] = 0.0;
        }
        let solutions = fit_reweighted(design, methods, warm_start, &weights, &design.response);
        for (method, solution) in solutions {
            let Some(scaled) = solution else { continue };
            let costs = design.to_costs(&scaled);
            let error = mean_relative_error_pct(design, observations, left_out_rows, &costs);
            if let Some(errors) = result.error_pct_by_program.get_mut(&method) {
                errors.insert(name.clone(), error);
            }
        }
    }
    for (method, errors) in &result.error_pct_by_program {
        let mean = (!errors.is_empty()).then(|| errors.values().sum::<f64>() / errors.len() as f64);
        result.error_pct.insert(*method, mean);
    }
    result
}

/// The paper's §7 error over some rows: mean |measured − predicted| / measured, in percent.
pub(crate) fn mean_relative_error_pct(
    design: &Design,
    observations: &[Observation],
    rows: &[usize],
    costs: &[f64],
) -> f64 {
    let predicted = design.predict_rows(costs);
    let total: f64 = rows
        .iter()
        .map(|&row| {
            let measured = observations[row].ns_per_run;
            (measured - predicted[row]).abs() / measured
        })
        .sum();
    100.0 * total / rows.len() as f64
}

/// In-sample error of each program, averaged over programs (each program weighs the same).
pub(crate) fn training_error_pct(
    design: &Design,
    observations: &[Observation],
    costs: &[f64],
) -> f64 {
    let per_program: Vec<f64> = design
        .program_rows
        .iter()
        .map(|rows| mean_relative_error_pct(design, observations, rows, costs))
        .collect();
    per_program.iter().sum::<f64>() / per_program.len() as f64
}

/// The share of a program's predicted time from which the program stresses a construct.
pub const SUPPORT_SHARE: f64 = 0.20;

/// For each construct fitted a constant (a column of the design), the training programs that
/// stress it: those in which it makes up at least [`SUPPORT_SHARE`] of the predicted time, on
/// average over the program's points. A constant that fewer than
/// [`WELL_SUPPORTED`](crate::model::WELL_SUPPORTED) programs stress carries their
/// surroundings, and their layout accidents, into every prediction that uses it.
pub(crate) fn support(design: &Design, costs: &[f64]) -> BTreeMap<String, Vec<String>> {
    let mut support: BTreeMap<String, Vec<String>> = design
        .constructs
        .iter()
        .map(|construct| (construct.clone(), Vec::new()))
        .collect();
    for (program, rows) in design.program_rows.iter().enumerate() {
        let mut shares = vec![0.0; design.columns()];
        for &row in rows {
            let parts: Vec<f64> = (0..design.columns())
                .map(|column| (design.counts[(row, column)] * costs[column]).max(0.0))
                .collect();
            let total: f64 = parts.iter().sum();
            if total > 0.0 {
                for (share, part) in shares.iter_mut().zip(&parts) {
                    *share += part / total / rows.len() as f64;
                }
            }
        }
        for (column, share) in shares.iter().enumerate() {
            if *share >= SUPPORT_SHARE {
                if let Some(programs) = support.get_mut(&design.constructs[column]) {
                    programs.push(design.programs[program].clone());
                }
            }
        }
    }
    support
}

/// Median over points of the spread between code layouts, (max − min) / mean in percent:
/// the floor under any model's error (docs/measuring.md). `None` without multi-layout points.
pub(crate) fn layout_spread_pct(observations: &[Observation]) -> Option<f64> {
    let spreads: Vec<f64> = observations
        .iter()
        .filter(|observation| observation.ns_per_run_layouts.len() >= 2)
        .map(|observation| {
            let layouts = &observation.ns_per_run_layouts;
            let mean = layouts.iter().sum::<f64>() / layouts.len() as f64;
            let max = layouts.iter().copied().fold(f64::MIN, f64::max);
            let min = layouts.iter().copied().fold(f64::MAX, f64::min);
            100.0 * (max - min) / mean
        })
        .collect();
    median(spreads)
}

/// Median over points of the harness interval's half-width relative to the estimate, percent.
pub(crate) fn measurement_ci_pct(observations: &[Observation]) -> Option<f64> {
    median(
        observations
            .iter()
            .map(|o| 100.0 * (o.ns_ci.1 - o.ns_ci.0) / 2.0 / o.ns_per_run)
            .collect(),
    )
}

pub(crate) fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echelon_form_keeps_independent_aliasings_apart() {
        // Null space spanned by rotated mixes of (e0 − e1) and (e2 − e3): the groups must come
        // out as {0, 1} and {2, 3}, not one group of four.
        let first = DVector::from_vec(vec![1.0, -1.0, 1.0, -1.0, 0.0]);
        let second = DVector::from_vec(vec![1.0, -1.0, -1.0, 1.0, 0.0]);
        assert_eq!(
            aliased_groups(&[first, second], 5, 0.0),
            vec![vec![0, 1], vec![2, 3]]
        );
    }

    #[test]
    fn orthogonal_design_has_unit_condition_and_inflation() {
        let analysis = RankAnalysis::of_triangular(&DMatrix::identity(3, 3), RANK_TOLERANCE);
        assert_eq!(analysis.rank, 3);
        assert!((analysis.condition_number() - 1.0).abs() < 1e-12);
        for vif in analysis.variance_inflation.unwrap() {
            assert!((vif - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn collinear_columns_inflate_variance() {
        // Unit columns at angle θ: VIF = 1 / (1 − cos²θ).
        let cosine: f64 = 0.99;
        let sine = (1.0 - cosine * cosine).sqrt();
        let matrix = DMatrix::from_row_slice(2, 2, &[1.0, cosine, 0.0, sine]);
        let vif = RankAnalysis::of_triangular(&matrix, RANK_TOLERANCE)
            .variance_inflation
            .unwrap();
        let expected = 1.0 / (1.0 - cosine * cosine);
        assert!((vif[0] / expected - 1.0).abs() < 1e-9 && (vif[1] / expected - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_program_supports_the_constructs_that_make_a_fifth_of_its_time() {
        let at = |program: &str, size: u64, counts: &[(&str, f64)]| {
            Observation::for_test(program, size, 100.0, counts)
        };
        // Costs (columns sorted): Add 1 ns, Div 10 ns, Miss 50 ns.
        let observations = [
            // Div is 10/110 of `adds`' time at its first size and 40/140 at its second:
            // 18% on average, short of a fifth.
            at("adds", 1, &[("Add", 100.0), ("Div", 1.0)]),
            at("adds", 2, &[("Add", 100.0), ("Div", 4.0)]),
            at("divs", 1, &[("Add", 10.0), ("Div", 10.0)]),
            at("divs", 2, &[("Add", 20.0), ("Div", 20.0)]),
            at("miss", 1, &[("Add", 100.0), ("Miss", 1.0)]),
            at("miss", 2, &[("Add", 200.0), ("Miss", 2.0)]),
        ];
        let design = Design::build(&observations).unwrap();
        assert_eq!(design.constructs, ["Add", "Div", "Miss"]);
        let programs = support(&design, &[1.0, 10.0, 50.0]);
        assert_eq!(programs["Add"], ["adds", "miss"]);
        assert_eq!(programs["Div"], ["divs"]);
        assert_eq!(programs["Miss"], ["miss"]);
        // A cheaper miss no longer weighs a fifth of `miss`: nothing stresses it.
        assert!(support(&design, &[1.0, 10.0, 20.0])["Miss"].is_empty());
    }
}
