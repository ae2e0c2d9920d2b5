//! The two-way branch predictor that [`crate::branch_trace`] replays a run's branches through:
//! a small TAGE (per-site two-bit counters and loop predictors under three tagged tables on the
//! global history), sized from the Intel host's measured misses (see `branch_trace.rs`); the
//! long table grows or shrinks with the machine's measured memory ([`crate::branch_memory`]).

use crate::tagged::{context_hash, Slot, TaggedTable};

/// The tagged tables, shortest history first: the outcomes each reads, and its sets of 8
/// entries. Each figure is set by a measurement on this host (`mlcost bench`, 2 layouts):
/// - 8 outcomes, 1024 entries: "after an odd Collatz step comes an even one".
/// - 48 outcomes, 6144 entries: where in the run this is, for as many branches as a coin-toss
///   `if` over 4000 list elements (kept: no misses) but not 16 000 (about 5400 misses). The
///   history is 48 outcomes, not more, because the processor loses the exits of loops whose
///   trips vary but little: Euclid's `gcd` over 200 random pairs runs at 7.6 ns a remainder,
///   8.0 over 1000, against 4.6 and 4.3 for the same pairs sorted by step count, so most of
///   its exits are missed (the model misses 129 of 200 and 993 of 1000; over 64 outcomes it
///   kept 156 of 200), and a loop of 4 to 24 random trips misses three exits in four over
///   1000 trips (5.5 ns an element over the same loop at 14 trips every time; the model
///   misses 770; over 64 outcomes 297).
/// - 128 outcomes, 32 entries: the few exits that only a longer history tells apart, which
///   the processor keeps while they are few — `gcd` over 30 pairs (5.1 ns a remainder, the
///   sorted pairs 4.8) and `assoc`'s lookups in a list of 40 (no miss: over 48 outcomes alone
///   the model misses 8 and 16 of them, with this table none and 5) — but not the hundred
///   of `gcd` over 200 pairs.
const TABLES: [(u32, usize); 3] = [(8, 128), (48, 768), (128, 4)];

/// A two-way predictor: per-site two-bit counters and loop counters, overridden by tagged
/// tables on the site and the global history ([`TABLES`]): a short one (the last 8 outcomes),
/// a long one (the last 48: where in the run this is) and a small longest one (the last 128).
/// The longest table that holds the branch's context predicts; a misprediction takes an
/// entry in every longer table. The tables are set-associative and keep the entries of a set
/// in the order last used, replacing the oldest: a run's hard branches stay as long as they
/// fit and are lost together when they do not, the sharp edge measured here (a coin-toss `if`
/// over 4000 elements costs nothing, over 16 000 most of its misses).
pub(crate) struct TwoWayPredictor {
    /// The last 128 outcomes, the latest in the lowest bit.
    history: u128,
    sites: Vec<Site>,
    tables: [HistoryTable; 3],
    /// The branch (`site << 1 | taken`) whose repetition changes nothing but its site's
    /// streak and counter, as the last branch left the predictor (see
    /// [`repeats_for_free`]); `NO_REPEAT` if none.
    pub(crate) repeat: u64,
}

/// No branch is known to repeat for free.
pub(crate) const NO_REPEAT: u64 = u64::MAX;

/// A tagged table of two-bit counters on the site and the last outcomes of any branch.
struct HistoryTable {
    history_mask: u128,
    table: TaggedTable<u8>,
}

impl HistoryTable {
    fn new((history_bits, sets): (u32, usize)) -> Self {
        HistoryTable {
            history_mask: u128::MAX >> (128 - history_bits),
            table: TaggedTable::new(sets),
        }
    }

    fn slot(&self, site: u32, history: u128) -> Slot {
        let history = history & self.history_mask;
        // The older 64 outcomes, mixed in only where the table reads them: a history of 64
        // or fewer hashes as it did on its own.
        let older = ((history >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        self.table.slot(context_hash(site, history as u64 ^ older))
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
    /// The predictor of the machine counted for ([`crate::branch_memory`]).
    fn default() -> Self {
        TwoWayPredictor::with_long_table_scale(crate::branch_memory::table_scale())
    }
}

impl TwoWayPredictor {
    /// A predictor whose long table (the middle one of [`TABLES`], which holds where in the
    /// run a branch is) has `scale` times its sets: what a core that keeps more coin tosses
    /// has more of. The short table's patterns and the longest table's few exits are left as
    /// measured: a core that kept 16 000 tosses (Zen 5) still missed Euclid's exits over 200
    /// pairs, which a longest table scaled with the rest kept.
    pub(crate) fn with_long_table_scale(scale: f64) -> Self {
        let mut tables = TABLES;
        tables[1].1 = ((tables[1].1 as f64 * scale).round() as usize).max(1);
        TwoWayPredictor {
            history: 0,
            sites: Vec::new(),
            tables: tables.map(HistoryTable::new),
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
        let slots = self.tables.each_ref().map(|t| t.slot(site, self.history));
        // The longest table that holds the context, and its prediction.
        let provider = (0..TABLES.len())
            .rev()
            .find_map(|i| self.tables[i].predicts(slots[i]).map(|p| (i, p)));
        let predicted = site_state
            .loop_exit()
            .or(provider.map(|(_, p)| p))
            .unwrap_or(site_state.counter >= 2);
        let missed = predicted != taken;
        if let Some((i, _)) = provider {
            self.tables[i].train(slots[i], taken);
        }
        if missed {
            let longer = provider.map_or(0, |(i, _)| i + 1);
            for (table, &slot) in self.tables.iter_mut().zip(&slots).skip(longer) {
                table.allocate(slot, taken);
            }
        }
        site_state.update(taken);
        let history = self.history << 1 | u128::from(taken);
        let provider = provider.and_then(|(i, _)| self.tables[i].table.get(slots[i]));
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
