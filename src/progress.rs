//! Progress for long stages, the one display of every stage (build, measure, validate): an
//! indicatif bar on a terminal, one plain line per step otherwise (CI logs, pipes), always on
//! stderr so stdout stays clean for tables and JSON.

use harness::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pipeline::StageProgress;
use std::io::IsTerminal;
use training_gen::BuildEvent;

pub struct BarProgress {
    bar: Option<ProgressBar>,
    interactive: bool,
    /// "round k/R" while measuring in rounds.
    round: String,
}

impl BarProgress {
    pub fn new() -> Self {
        BarProgress {
            bar: None,
            interactive: std::io::stderr().is_terminal(),
            round: "round 1".to_string(),
        }
    }

    fn bar(&mut self, total: usize) -> &ProgressBar {
        self.bar_with(
            total,
            "{prefix:>10} [{bar:30}] {pos}/{len} {wide_msg} ({elapsed}, ~{eta} left)",
        )
    }

    /// Steps that run in parallel and end in no particular order: no time-left estimate.
    fn start_parallel_steps(&mut self, what: &str, steps: usize) {
        self.finish();
        let bar = self.bar_with(
            steps,
            "{prefix:>8} [{bar:30}] {pos}/{len} {wide_msg} ({elapsed})",
        );
        bar.set_prefix(what.to_string());
    }

    fn bar_with(&mut self, total: usize, template: &str) -> &ProgressBar {
        let interactive = self.interactive;
        self.bar.get_or_insert_with(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            if !interactive {
                bar.set_draw_target(ProgressDrawTarget::hidden());
            }
            bar
        })
    }

    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl StageProgress for BarProgress {
    fn finish(&mut self) {
        BarProgress::finish(self);
    }

    fn as_harness(&mut self) -> &mut dyn Progress {
        self
    }

    fn start_build(&mut self, steps: usize) {
        self.start_parallel_steps("build", steps);
    }

    fn start_recount(&mut self, steps: usize) {
        self.start_parallel_steps("recount", steps);
    }

    fn build_event(&self, event: BuildEvent) {
        let Some(bar) = &self.bar else { return };
        bar.inc(1);
        match event {
            BuildEvent::Counted { program } => bar.set_message(format!("counted {program}")),
            BuildEvent::Built {
                program,
                compiler,
                layout,
            } => bar.set_message(format!("{program} [{compiler}] layout {layout}")),
        }
    }
}

impl Progress for BarProgress {
    fn stage(&mut self, message: &str) {
        self.finish();
        self.round = "round 1".to_string();
        if self.interactive {
            eprintln!("── {message}");
        } else {
            eprintln!("mlcost: {message}");
        }
    }

    fn built(&mut self, program: &str, done: usize, total: usize) {
        let interactive = self.interactive;
        let bar = self.bar(total);
        bar.set_prefix("build");
        bar.set_position(done as u64);
        bar.set_message(program.to_string());
        if !interactive {
            eprintln!("mlcost: built {program} ({done}/{total})");
        }
        if done == total {
            self.finish();
        }
    }

    fn point_started(&mut self, benchmark: &str, compiler: &str, size: u64, layout: u32) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{benchmark}:{size} [{compiler}] layout {layout}"));
        }
    }

    fn point_finished(&mut self, done: usize, total: usize) {
        let round = self.round.clone();
        let bar = self.bar(total);
        bar.set_prefix(round);
        bar.set_position(done as u64);
    }

    fn round_finished(&mut self, round: u32, rounds: u32) {
        let catch_up = round + 1 > rounds;
        if !self.interactive {
            if catch_up {
                eprintln!("mlcost: catch-up round {} measured", round + 1 - rounds);
            } else {
                eprintln!("mlcost: round {}/{rounds} measured", round + 1);
            }
        }
        self.round = if round + 1 >= rounds {
            format!("catch-up round {}", round + 2 - rounds)
        } else {
            format!("round {}/{rounds}", round + 2)
        };
    }

    fn estimate(&mut self, estimate: &harness::Estimate) {
        if !self.interactive {
            eprintln!(
                "mlcost: {}:{} [{}] {} ({} samples)",
                estimate.benchmark,
                estimate.size,
                estimate.compiler,
                reports::terminal::format_ns(estimate.ns_per_run.estimate),
                estimate.samples
            );
        }
    }
}
