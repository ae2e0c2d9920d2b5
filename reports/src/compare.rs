//! Comparing two cost models (two runs, or two compilers of one run) construct by construct:
//! the ratio B/A with a 95% interval, and a verdict that accounts for both models' intervals
//! and, like criterion's noise threshold, ignores changes too small to be told from run-to-run
//! noise however narrow the intervals. A nightly job fails on a significant slowdown larger
//! than its threshold.

use fit::{CostModel, Method};
use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    NoSignificantChange,
    /// Both costs are below the floor: a ratio of two near-zero numbers means nothing.
    Negligible,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantChange => "no significant change",
            Verdict::Negligible => "negligible",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstructChange {
    pub construct: String,
    pub a_ns: f64,
    pub a_ci: (f64, f64),
    pub b_ns: f64,
    pub b_ci: (f64, f64),
    /// B / A, with the 95% interval of the difference expressed on A's scale.
    pub ratio: f64,
    pub ratio_ci: (f64, f64),
    /// 100 · (B − A) / A
    pub change_pct: f64,
    pub verdict: Verdict,
    /// Significantly slower by more than the threshold.
    pub regression: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    pub method: Method,
    pub threshold_pct: f64,
    /// Changes within ±this many percent get no verdict of faster or slower.
    #[serde(default)]
    pub noise_pct: f64,
    pub floor_ns: f64,
    pub constructs: Vec<ConstructChange>,
    /// The same constructs' instructions per occurrence, where both models have them.
    #[serde(default)]
    pub instructions: Vec<crate::compare_instructions::InstructionChange>,
    /// Between two runs: the canary's typical time per run in B over A's, the machine's own
    /// speed from one run to the other (none within one run or without canaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_ratio: Option<f64>,
    /// When the two models' counts come from different counting rules: what differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counting_warning: Option<String>,
}

/// Beyond this change of the canary's typical time between two runs, the machine itself ran
/// at another speed: a neighbour on the shared core for most of a run (seen here: a whole
/// default run with the canary 61% slower, its programs 6% to 60% slower, unevenly).
pub const MACHINE_DRIFT_PCT: f64 = 10.0;

impl Comparison {
    /// The warning to print when the machine's speed moved between the two runs by more than
    /// [`MACHINE_DRIFT_PCT`].
    pub fn machine_warning(&self) -> Option<String> {
        let ratio = self.machine_ratio?;
        let change = 100.0 * (ratio - 1.0);
        if change.abs() <= MACHINE_DRIFT_PCT {
            return None;
        }
        Some(format!(
            "the machine itself ran {:.0}% {} during {} than during {} (the canary's typical time per run): changes of that order may be the machine's, not the compiler's; measure both compilers in one run (`--compiler` twice) to compare them",
            change.abs(),
            if change > 0.0 { "slower" } else { "faster" },
            self.b,
            self.a
        ))
    }
}

impl Comparison {
    pub fn count(&self, verdict: Verdict) -> usize {
        self.constructs
            .iter()
            .filter(|c| c.verdict == verdict)
            .count()
    }

    pub fn regressions(&self) -> Vec<&ConstructChange> {
        self.constructs.iter().filter(|c| c.regression).collect()
    }

    pub fn summary(&self) -> String {
        let comparable = self.constructs.len() - self.count(Verdict::Negligible);
        let mut line = format!(
            "{} vs {} ({}): {} constructs compared: {} slower, {} faster, {} without significant change, {} negligible",
            self.b,
            self.a,
            self.method.name().to_uppercase(),
            comparable,
            self.count(Verdict::Slower),
            self.count(Verdict::Faster),
            self.count(Verdict::NoSignificantChange),
            self.count(Verdict::Negligible),
        );
        let regressions = self.regressions();
        if regressions.is_empty() {
            line.push_str(&format!("; no regression above {}%", self.threshold_pct));
        } else {
            let names: Vec<String> = regressions
                .iter()
                .map(|r| format!("{} +{:.1}%", r.construct, r.change_pct))
                .collect();
            line.push_str(&format!(
                "; REGRESSION above {}%: {}",
                self.threshold_pct,
                names.join(", ")
            ));
        }
        line
    }
}

fn standard_error(ci: (f64, f64)) -> f64 {
    (ci.1 - ci.0).abs() / (2.0 * Z95)
}

/// What counts as a change: see [`compare_models`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareOptions {
    pub method: Method,
    /// A significant slowdown above this many percent is a regression.
    pub threshold_pct: f64,
    /// Changes within ±this many percent are noise, whatever their intervals.
    pub noise_pct: f64,
    /// Costs below this in both models are negligible.
    pub floor_ns: f64,
}

/// Compares `b` against the reference `a`, construct by construct, for one method.
pub fn compare_models(
    a: (&str, &CostModel),
    b: (&str, &CostModel),
    options: CompareOptions,
) -> Comparison {
    let CompareOptions {
        method,
        threshold_pct,
        noise_pct,
        floor_ns,
    } = options;
    let empty = std::collections::BTreeMap::new();
    let a_costs = a.1.methods.get(&method).map_or(&empty, |m| &m.time_ns);
    let b_costs = b.1.methods.get(&method).map_or(&empty, |m| &m.time_ns);
    let constructs = a_costs
        .iter()
        .filter_map(|(construct, ka)| {
            let kb = b_costs.get(construct)?;
            let (a_ci, b_ci) = ((ka.ci_low, ka.ci_high), (kb.ci_low, kb.ci_high));
            let diff = kb.estimate - ka.estimate;
            let se = standard_error(a_ci).hypot(standard_error(b_ci));
            let (lo, hi) = (diff - Z95 * se, diff + Z95 * se);
            let negligible = ka.estimate.abs() < floor_ns && kb.estimate.abs() < floor_ns;
            let reference = ka.estimate.abs().max(floor_ns);
            let change_pct = 100.0 * diff / reference;
            let beyond_noise = change_pct.abs() > noise_pct;
            let verdict = if negligible {
                Verdict::Negligible
            } else if lo > 0.0 && beyond_noise {
                Verdict::Slower
            } else if hi < 0.0 && beyond_noise {
                Verdict::Faster
            } else {
                Verdict::NoSignificantChange
            };
            Some(ConstructChange {
                construct: construct.clone(),
                a_ns: ka.estimate,
                a_ci,
                b_ns: kb.estimate,
                b_ci,
                // Against max(|A|, floor): finite even when A is (near) zero, and the same
                // scale as the change and the interval (B/A whenever |A| is above the floor).
                ratio: 1.0 + diff / reference,
                ratio_ci: (1.0 + lo / reference, 1.0 + hi / reference),
                change_pct,
                regression: verdict == Verdict::Slower && change_pct > threshold_pct,
                verdict,
            })
        })
        .collect();
    Comparison {
        a: a.0.to_string(),
        b: b.0.to_string(),
        method,
        threshold_pct,
        noise_pct,
        floor_ns,
        constructs,
        instructions: crate::compare_instructions::compare_instructions(a.1, b.1, method),
        machine_ratio: None,
        counting_warning: counting_warning((a.0, a.1), (b.0, b.1)),
    }
}

/// Why a change between `a` and `b` may be one of counting, not of code: their counts came
/// from different counting rules (an mlcost upgrade between nightly runs, say). A construct
/// added takes instructions and time from the ones it was counted in before. Silent when both
/// rules are the same, or unknown (models written before they were kept).
pub fn counting_warning(a: (&str, &CostModel), b: (&str, &CostModel)) -> Option<String> {
    let (ca, cb) = (a.1.counting.as_ref()?, b.1.counting.as_ref()?);
    if ca.fingerprint == cb.fingerprint {
        return None;
    }
    let only = |x: &fit::Counting, y: &fit::Counting| -> Vec<String> {
        x.constructs
            .iter()
            .filter(|c| !y.constructs.contains(c))
            .cloned()
            .collect()
    };
    let (only_a, only_b) = (only(ca, cb), only(cb, ca));
    let mut what = Vec::new();
    if !only_b.is_empty() {
        what.push(format!("counted only in {}: {}", b.0, only_b.join(", ")));
    }
    if !only_a.is_empty() {
        what.push(format!("counted only in {}: {}", a.0, only_a.join(", ")));
    }
    if what.is_empty() {
        what.push("the same constructs, counted by different rules".into());
    }
    Some(format!(
        "{} and {} were counted by different cost semantics ({}; catalogue {} against {}): a construct's change may be its counting's, not the compiler's — compare runs counted by the same mlcost, or two compilers within one run",
        a.0,
        b.0,
        what.join("; "),
        ca.fingerprint,
        cb.fingerprint
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fit::synthetic::{generate, SyntheticSpec};

    fn model(seed: u64, scale_intadd: f64) -> CostModel {
        let spec = SyntheticSpec {
            seed,
            ..SyntheticSpec::default()
        };
        let mut suite = generate(&spec);
        for o in &mut suite.observations {
            let extra = o.counts.get("IntAdd").copied().unwrap_or(0.0)
                * suite.true_ns.get("IntAdd").copied().unwrap_or(0.0)
                * (scale_intadd - 1.0);
            o.ns_per_run += extra;
            for l in &mut o.ns_per_run_layouts {
                *l += extra;
            }
        }
        fit::fit(
            &suite.observations,
            &suite.context,
            &fit::FitOptions {
                bootstrap_resamples: 200,
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn a_change_of_counting_rules_is_named_and_the_same_rules_are_silent() {
        let counting = |fingerprint: &str, constructs: &[&str]| {
            Some(fit::Counting {
                fingerprint: fingerprint.into(),
                constructs: constructs.iter().map(|c| c.to_string()).collect(),
            })
        };
        let (mut a, mut b) = (model(1, 1.0), model(1, 1.0));
        // Models written before the rules were kept: nothing to say.
        assert_eq!(counting_warning(("a", &a), ("b", &b)), None);
        a.counting = counting("0011", &["IntAdd", "Cons"]);
        b.counting = counting("0011", &["IntAdd", "Cons"]);
        assert_eq!(counting_warning(("a", &a), ("b", &b)), None);
        b.counting = counting("ff00", &["IntAdd", "Cons", "BoolTest"]);
        let warning = counting_warning(("a", &a), ("b", &b)).expect("a warning");
        assert!(warning.contains("counted only in b: BoolTest"), "{warning}");
        assert!(
            warning.contains("0011") && warning.contains("ff00"),
            "{warning}"
        );
        // Reworded rules, the same constructs.
        b.counting = counting("ff01", &["IntAdd", "Cons"]);
        let warning = counting_warning(("a", &a), ("b", &b)).expect("a warning");
        assert!(warning.contains("counted by different rules"), "{warning}");
        // compare_models carries it.
        let cmp = compare_models(
            ("a", &a),
            ("b", &b),
            CompareOptions {
                method: Method::Nnls,
                threshold_pct: 5.0,
                noise_pct: 0.0,
                floor_ns: 0.01,
            },
        );
        assert!(cmp.counting_warning.is_some());
        // The comparison page shows it above the table.
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("compare.html");
        crate::pages::write_compare_page(&cmp, &page).unwrap();
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(
            html.contains("class=\"warning\"") && html.contains("counted by different rules"),
            "{html}"
        );
    }

    #[test]
    fn a_model_against_a_noisy_rerun_finds_almost_nothing_and_a_slowdown_is_flagged() {
        let a = model(1, 1.0);
        let rerun = model(2, 1.0);
        let options = CompareOptions {
            method: Method::Ls,
            threshold_pct: 5.0,
            noise_pct: 0.0,
            floor_ns: 0.05,
        };
        let same = compare_models(("a", &a), ("rerun", &rerun), options);
        let alarms = same.count(Verdict::Slower) + same.count(Verdict::Faster);
        assert!(alarms * 10 <= same.constructs.len(), "{}", same.summary());
        assert!(same.regressions().len() <= 1, "{}", same.summary());

        let slow = model(2, 3.0);
        let cmp = compare_models(("a", &a), ("slow", &slow), options);
        let intadd = cmp
            .constructs
            .iter()
            .find(|c| c.construct == "IntAdd")
            .unwrap();
        assert_eq!(intadd.verdict, Verdict::Slower, "{intadd:?}");
        assert!(intadd.regression && intadd.ratio > 2.0, "{intadd:?}");
        // The ratio, the change and the interval say the same, for every construct.
        for c in &cmp.constructs {
            assert!(
                (c.ratio - (1.0 + c.change_pct / 100.0)).abs() < 1e-9,
                "{c:?}"
            );
            assert!(c.ratio_ci.0 <= c.ratio && c.ratio <= c.ratio_ci.1, "{c:?}");
        }
        assert!(cmp.summary().contains("REGRESSION"), "{}", cmp.summary());

        // A noise threshold above the change silences the verdict; below it, it stands.
        let quiet = |noise_pct| {
            let c = compare_models(
                ("a", &a),
                ("slow", &slow),
                CompareOptions {
                    noise_pct,
                    ..options
                },
            );
            c.constructs
                .into_iter()
                .find(|c| c.construct == "IntAdd")
                .unwrap()
                .verdict
        };
        assert_eq!(quiet(intadd.change_pct + 1.0), Verdict::NoSignificantChange);
        assert_eq!(quiet(intadd.change_pct - 1.0), Verdict::Slower);
    }
}
