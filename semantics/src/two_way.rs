//! The two-way branch predictor that [`crate::branch_trace`] replays a run's branches through:
//! a small TAGE (per-site two-bit counters and loop predictors under two tagged tables on the
//! global history), sized from this host's measured misses (see `branch_trace.rs`).

use crate::tagged::{context_hash, Slot, TaggedTable};

/// Sets of the long tagged table, of 8 entries each: 6144 entries.
const SETS: usize = 768;
/// Sets of the short tagged table: 1024 entries.
const SHORT_SETS: usize = 128;

/// A two-way predictor: per-site two-bit counters and loop counters, overridden by tagged
/// tables on the site and the global history — a short one (the last 8 outcomes: "after an
/// odd step comes an even one") and a long one (the last 64: where in the run this is). The
/// longest table that holds the branch's context predicts; a misprediction takes an entry in
/// every longer table. The tables are set-associative and keep the entries of a set in the
/// order last used, replacing the oldest: a run's hard branches stay as long as they fit and
/// are lost together when they do not, the sharp edge measured here (a coin-toss `if` over 4000
/// elements costs nothing, over 16 000 most of its misses).
pub(crate) struct TwoWayPredictor {
    history: u64,
    sites: Vec<Site>,
    short: HistoryTable,
    long: HistoryTable,
    /// The branch (`site << 1 | taken`) whose repetition changes nothing but its site's
    /// streak and counter, as the last branch left the predictor (see
    /// [`repeats_for_free`]); `NO_REPEAT` if none.
    pub(crate) repeat: u64,
}

/// No branch is known to repeat for free.
pub(crate) const NO_REPEAT: u64 = u64::MAX;

/// A tagged table of two-bit counters on the site and the last outcomes of any branch.
struct HistoryTable {
    history_mask: u64,
    table: TaggedTable<u8>,
}

impl HistoryTable {
    fn new(sets: usize, history_bits: u32) -> Self {
        HistoryTable {
            history_mask: if history_bits >= 64 {
                u64::MAX
            } else {
                (1 << history_bits) - 1
            },
            table: TaggedTable::new(sets),
        }
    }

    fn slot(&self, site: u32, history: u64) -> Slot {
        self.table
            .slot(context_hash(site, history & self.history_mask))
    }

    fn predicts(&self, slot: Slot) -> Option<bool> {
        self.table.get(slot).map(|counter| counter >= 2)
    }

    /// Trains the entry of `slot`, if there is one, towards `taken`.
    fn train(&mut self, slot: Slot, taken: bool) {
        if let Some(counter) = self.table.get(slot) {
            self.table.put(slot, trained(counter, taken));
        }
    }

    /// Takes an entry for `slot`, weakly in the direction seen, if it has none.
    fn allocate(&mut self, slot: Slot, taken: bool) {
        if self.table.get(slot).is_none() {
            self.table.put(slot, if taken { 2 } else { 1 });
        }
    }
}

/// What the predictor keeps per branch: the base two-bit counter, and a loop predictor's
/// streaks. A loop's exit ends a streak of one outcome as long as the last one, since every
/// run repeats the same input: once two streaks of a direction agree, the flip after the next
/// one of that length is predicted (TAGE-SC-L's loop predictor does this), so a loop longer
/// than the global history does not miss its exit once a run.
#[derive(Clone, Copy)]
pub(crate) struct Site {
    counter: u8,
    last: bool,
    streak: u32,
    /// Length of the last streak of not-taken and of taken outcomes.
    trip: [u32; 2],
    /// Whether that streak was as long as the one before.
    steady: [bool; 2],
}

impl Default for Site {
    fn default() -> Self {
        // Weakly taken: a first meeting is a guess either way.
        Site {
            counter: 2,
            last: true,
            streak: 0,
            trip: [0; 2],
            steady: [false; 2],
        }
    }
}

/// The shortest streak the loop predictor takes for a loop: shorter ones are patterns the
/// tagged tables learn.
const LOOP_MIN: u32 = 16;

impl Default for TwoWayPredictor {
    fn default() -> Self {
        TwoWayPredictor {
            history: 0,
            sites: Vec::new(),
            short: HistoryTable::new(SHORT_SETS, 8),
            long: HistoryTable::new(SETS, 64),
            repeat: NO_REPEAT,
        }
    }
}

/// A two-bit counter's update towards `taken`.
fn trained(counter: u8, taken: bool) -> u8 {
    if taken {
        (counter + 1).min(3)
    } else {
        counter.saturating_sub(1)
    }
}

impl Site {
    /// The loop predictor's call, if it has one: the flip that ends a streak as long as the
    /// last two of its direction.
    fn loop_exit(&self) -> Option<bool> {
        let d = usize::from(self.last);
        (self.steady[d] && self.trip[d] >= LOOP_MIN && self.streak == self.trip[d])
            .then_some(!self.last)
    }

    fn update(&mut self, taken: bool) {
        self.counter = trained(self.counter, taken);
        if taken == self.last {
            self.streak += 1;
        } else {
            let d = usize::from(self.last);
            self.steady[d] = self.streak == self.trip[d];
            self.trip[d] = self.streak;
            self.last = taken;
            self.streak = 1;
        }
    }
}

impl TwoWayPredictor {
    /// The branch at `site` went the `taken` way: was it mispredicted?
    pub(crate) fn branch(&mut self, site: u32, taken: bool) -> bool {
        let key = u64::from(site) << 1 | u64::from(taken);
        if key == self.repeat {
            // The same branch the same way, in the same history: the tables would be read and
            // trained to what they hold. A loop's exit is the loop predictor's to call.
            let site_state = &mut self.sites[site as usize];
            if site_state.loop_exit().is_none() {
                site_state.update(taken);
                return false;
            }
        }
        self.repeat = NO_REPEAT;
        let site_index = site as usize;
        if self.sites.len() <= site_index {
            self.sites.resize(site_index + 1, Site::default());
        }
        let site_state = &mut self.sites[site_index];
        let (short, long) = (
            self.short.slot(site, self.history),
            self.long.slot(site, self.history),
        );
        let (by_long, by_short) = (self.long.predicts(long), self.short.predicts(short));
        let predicted = site_state
            .loop_exit()
            .or(by_long)
            .or(by_short)
            .unwrap_or(site_state.counter >= 2);
        let missed = predicted != taken;
        if by_long.is_some() {
            self.long.train(long, taken);
        } else if by_short.is_some() {
            self.short.train(short, taken);
            if missed {
                self.long.allocate(long, taken);
            }
        } else if missed {
            self.short.allocate(short, taken);
            self.long.allocate(long, taken);
        }
        site_state.update(taken);
        let history = self.history << 1 | u64::from(taken);
        let provider = if by_long.is_some() {
            self.long.table.get(long)
        } else if by_short.is_some() {
            self.short.table.get(short)
        } else {
            None
        };
        // After a miss an entry may have been taken, which the next lookup would find.
        if !missed
            && history == self.history
            && repeats_for_free(provider, self.sites[site_index].counter, taken)
        {
            self.repeat = key;
        }
        self.history = history;
        missed
    }
}

impl TwoWayPredictor {
    /// Takes up to `run` more of the branch at `site` the `taken` way, which it predicted last
    /// and would repeat for free ([`TwoWayPredictor::repeat`]), as [`TwoWayPredictor::branch`]
    /// would, one after another: none is missed, and only the site's streak and counter
    /// move. Stops before one the loop predictor calls the exit of. Returns how many it took.
    pub(crate) fn repeat_free(&mut self, site: u32, taken: bool, run: usize) -> usize {
        let state = &mut self.sites[site as usize];
        debug_assert!(state.last == taken, "a free repeat follows its own branch");
        let d = usize::from(taken);
        let run = if state.steady[d] && state.trip[d] >= LOOP_MIN && state.streak <= state.trip[d] {
            run.min((state.trip[d] - state.streak) as usize)
        } else {
            run
        };
        for _ in 0..run.min(3) {
            state.counter = trained(state.counter, taken);
        }
        state.streak += run as u32;
        run
    }
}

/// Whether the same branch the same way, met again in the same history after it was
/// predicted, changes nothing but its site's streak and counter: the component that predicts
/// it (the longest tagged entry found, `provider`, which training has just made the most
/// recent of its set; else the site's `counter`, trained already) predicts it, and an entry is
/// already saturated that way, so that training writes it back unchanged. A miss is then only
/// the loop predictor's to make.
fn repeats_for_free(provider: Option<u8>, counter: u8, taken: bool) -> bool {
    let saturated = if taken { 3 } else { 0 };
    match provider {
        Some(entry) => entry == saturated,
        None => (counter >= 2) == taken,
    }
}
