//! Progress for long stages: an indicatif bar on a terminal, one plain line per step otherwise
//! (CI logs, pipes), always on stderr so stdout stays clean for tables and JSON.

use harness::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub struct BarProgress {
    bar: Option<ProgressBar>,
    interactive: bool,
}

impl BarProgress {
    pub fn new() -> Self {
        BarProgress {
            bar: None,
            interactive: std::io::stderr().is_terminal(),
        }
    }

    fn bar(&mut self, total: usize) -> &ProgressBar {
        let interactive = self.interactive;
        self.bar.get_or_insert_with(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>8} [{bar:30}] {pos}/{len} {wide_msg} ({elapsed}, ~{eta} left)",
                )
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

impl Progress for BarProgress {
    fn stage(&mut self, message: &str) {
        self.finish();
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
        let bar = self.bar(total);
        bar.set_prefix("measure");
        bar.set_position(done as u64);
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
