//! What a run allocates, word for word, and how long each block lives: the two numbers the
//! minor GC's cost depends on.
//!
//! Every block the interpreter builds during `run` carries a [`Born`] stamp: the allocation
//! clock (words allocated so far in the run) at its birth, and its size in words as ocamlopt
//! lays it out (header included). When the block is dropped, its age — words allocated
//! between its birth and its death — goes into a histogram. From that histogram the expected
//! number of words a minor collection promotes follows for any minor-heap size H: collections
//! happen every H words of allocation at a phase the program does not control, so a block of
//! `w` words that lives `a` words is alive at a collection with probability `min(a, H) / H`,
//! and promoted words per run = `Σ w · min(a, H) / H` (see
//! [`crate::allocation::Allocation::promoted_words`]). A store can open a block's window before
//! its birth ([`Born::anchor`], [`crate::remembered`]).
//!
//! The clock is thread-local (a `Drop` has no access to the machine) and counts only during a
//! run: blocks built by `input` or top-level definitions are old data, promoted long before any
//! measured run, and are stamped [`Born::untracked`].
//!
//! The same stamp holds what the cache model needs (see [`crate::cache`]): the block's
//! address and the cache clock at its last touch.
//!
//! Where the interpreter keeps a value longer than native code would (a frame slot that is no
//! longer used), the block looks older than it is; closures' blocks are not stamped (their
//! environments are shared between the functions of a group), so they count as allocated but
//! never promoted.

use crate::allocation::{Allocation, LifetimeBucket};
use crate::cache::Touched;
use crate::lower::FLOAT_BOX_WORDS;
use std::cell::{Cell, RefCell};

/// Number of age buckets: bucket `k` holds ages in `[2^(k-1), 2^k)` (bucket 0: age 0).
const BUCKETS: usize = 64;

struct Clock {
    tracking: Cell<bool>,
    words: Cell<u64>,
    /// Words allocated directly in the major heap: they never pass through the minor heap,
    /// so they neither advance the clock nor get promoted.
    major_words: Cell<u64>,
    /// Σ words × live frames ([`FRAMES`]) over the minor heap's allocations of the run.
    frame_words: Cell<u64>,
    /// Words of minor blocks the runtime allocates without writing them (`Bytes.create`'s
    /// body): allocated, but no line of the minor heap comes back for them.
    unwritten: Cell<u64>,
    /// Words of such bodies a fill or a blit wrote since (the C library's stores).
    filled: Cell<u64>,
    /// Words of the blocks that died remembered (see [`crate::remembered`]): promoted whole.
    remembered_words: Cell<u64>,
    /// Set while a store releases the value it overwrote: that value left the major block's
    /// field before any collection saw it there, so it dies by its own age.
    overwriting: Cell<bool>,
    /// The field (its address) a store is overwriting while it releases the old value, 0
    /// otherwise: blocks anchored through it die by their own age ([`Born::anchor`]).
    overwritten_field: Cell<u64>,
    /// Birth of the float box allocated last, not yet recorded ([`NO_BOX`] if none): it dies
    /// at the next allocation unless a cons cell takes it ([`Born::new_holding_box`]).
    open_box: Cell<u64>,
    /// The minor heap's size in words for the run ([`Born::young_probability`]), read once at
    /// [`start`]: the environment is not for the hot path.
    heap_words: Cell<u64>,
    ages: RefCell<Vec<AgeBucket>>,
}

impl Clock {
    /// Const, so that the thread-local needs no lazy initialisation on every allocation.
    const fn new() -> Clock {
        Clock {
            tracking: Cell::new(false),
            words: Cell::new(0),
            major_words: Cell::new(0),
            frame_words: Cell::new(0),
            unwritten: Cell::new(0),
            filled: Cell::new(0),
            remembered_words: Cell::new(0),
            overwriting: Cell::new(false),
            overwritten_field: Cell::new(0),
            open_box: Cell::new(0),
            heap_words: Cell::new(1),
            ages: RefCell::new(Vec::new()),
        }
    }
}

thread_local! {
    static CLOCK: Clock = const { Clock::new() };
    /// Native stack frames live now: the calls under way into functions that have a frame (see
    /// [`frame_entered`]). Apart from the clock and const-initialised, because every call
    /// into a function with a frame moves it.
    static FRAMES: Cell<u64> = const { Cell::new(0) };
}

/// A `::` cell: header, head, tail.
pub(crate) const CONS_WORDS: u32 = 3;

/// The largest block the runtime allocates in the minor heap (`Max_young_wosize`, fields
/// only); `Array.make` of a longer array allocates it directly in the major heap.
pub(crate) const MAX_YOUNG_WOSIZE: u32 = 256;

/// Words of a closure's code part for one function of `arity`: its code pointer and closure
/// info, plus the full-application pointer when it takes several arguments (ocamlopt 4.13).
pub(crate) fn closure_code_words(arity: u32) -> u32 {
    if arity > 1 {
        3
    } else {
        2
    }
}

/// Birth stamp of a block: allocation clock at birth (bits 16 to 62), size in words (low 16)
/// and the remembered flag (bit 63, see [`crate::remembered`]); its cache stamp; and its
/// anchor.
#[derive(Debug)]
pub(crate) struct Born(Cell<u64>, Touched, Anchor);

/// Where a block's promotion window opens when that is before its birth: a store put it into
/// a field of an older young block, and a collection that finds that block alive in between
/// leaves it in the major heap, so the store goes through the remembered set and the next
/// collection promotes the value whatever its own age (see [`crate::remembered`]).
#[derive(Debug)]
struct Anchor {
    /// The clock the window opens at ([`NO_ANCHOR`]: at the block's birth).
    at: Cell<u64>,
    /// The field that store wrote (its address): overwriting that field takes the value out,
    /// and if it dies then it dies by its own age.
    field: Cell<u64>,
}

const NO_ANCHOR: u64 = u64::MAX;

impl Anchor {
    const fn none() -> Anchor {
        Anchor {
            at: Cell::new(NO_ANCHOR),
            field: Cell::new(0),
        }
    }
}

const UNTRACKED: u64 = u64::MAX;
/// A block the run allocated directly in the major heap: never aged, and young values stored
/// into it are remembered.
const MAJOR: u64 = u64::MAX - 1;
const SIZE_BITS: u32 = 16;
const REMEMBERED: u64 = 1 << 63;
const NO_BOX: u64 = u64::MAX;

/// The clock at a young block's birth, from its stamp.
#[inline]
fn stamp_birth(stamp: u64) -> u64 {
    (stamp & !REMEMBERED) >> SIZE_BITS
}

/// A young block's words, from its stamp.
#[inline]
fn stamp_words(stamp: u64) -> u64 {
    stamp & ((1 << SIZE_BITS) - 1)
}

impl Born {
    /// Stamps a block of `words` words (header included) allocated now, and advances the
    /// clock; outside a run, the block is not tracked.
    #[inline]
    pub(crate) fn new(words: u32) -> Born {
        let touched = Touched::allocated(words);
        CLOCK.with(|clock| {
            if !clock.tracking.get() {
                return Born(Cell::new(UNTRACKED), touched, Anchor::none());
            }
            close_box(clock);
            let birth = clock.words.get();
            clock.words.set(birth + u64::from(words));
            weigh_by_frames(clock, words);
            Born(
                Cell::new(birth << SIZE_BITS | u64::from(words.min((1 << SIZE_BITS) - 1))),
                touched,
                Anchor::none(),
            )
        })
    }

    /// A cons cell whose head is the float a call has just returned: the callee boxed it (the
    /// box allocated last, nothing since), and the box lives as long as the cell holds it, so
    /// the cell is stamped from the box's birth with the box's words added.
    pub(crate) fn new_holding_box(words: u32) -> Born {
        let open = CLOCK.with(|clock| clock.open_box.replace(NO_BOX));
        let born = Born::new(words);
        let stamp = born.0.get();
        if open == NO_BOX || stamp >= MAJOR {
            return born;
        }
        let size = stamp_words(stamp) + u64::from(FLOAT_BOX_WORDS);
        born.0
            .set(open << SIZE_BITS | size.min((1 << SIZE_BITS) - 1));
        born
    }

    /// A read of the block (`words` of it): see [`Touched::read`].
    #[inline]
    pub(crate) fn touch(&self, words: u32) {
        self.1.read(words);
    }

    /// Static data and values built outside a run.
    pub(crate) const fn untracked() -> Born {
        Born(
            Cell::new(UNTRACKED),
            Touched::for_static_data(),
            Anchor::none(),
        )
    }

    /// A block of `words` words (header included) allocated directly in the major heap:
    /// counted in the run's words, never promoted.
    pub(crate) fn major(words: u64) -> Born {
        CLOCK.with(|clock| {
            if clock.tracking.get() {
                clock.major_words.set(clock.major_words.get() + words);
            }
        });
        Born(
            Cell::new(MAJOR),
            Touched::allocated(words.min(u64::from(u32::MAX)) as u32),
            Anchor::none(),
        )
    }

    /// Whether the run allocated the block directly in the major heap: a store of a young
    /// block into it goes through the remembered set.
    #[inline]
    pub(crate) fn is_major_of_run(&self) -> bool {
        self.0.get() == MAJOR
    }

    /// `words` of the block are written (a fill or a blit into a string): if the run
    /// allocated it in the minor heap, they are words `Bytes.create` left unwritten
    /// ([`left_unwritten`]: `Bytes.make`, `Bytes.sub`, `^`).
    pub(crate) fn written(&self, words: u64) {
        if self.is_young_of_run() {
            CLOCK.with(|clock| {
                let filled = words.min(clock.unwritten.get());
                clock.unwritten.set(clock.unwritten.get() - filled);
                clock.filled.set(clock.filled.get() + filled);
            })
        }
    }

    /// Whether the run allocated the block in the minor heap (a collection may have promoted
    /// it since: when, is a matter of phase); `input`'s data and static data are old.
    #[inline]
    pub(crate) fn is_young_of_run(&self) -> bool {
        self.0.get() < MAJOR
    }

    /// The probability that the block is still in the minor heap now: a block the run built
    /// there has met a collection, which moved it to the major heap if it was alive (it is:
    /// something stores into it), with probability min(A, H)/H for collections every H words
    /// at a phase the program does not choose, A the words allocated since. Since its
    /// allocation, not its birth: native code tests the limit before it carves a block, so
    /// the collection an allocation triggers comes before the block and never moves it. And
    /// the block's own allocation, not its promotion window ([`Born::window_start`]): an
    /// anchor says when what the block holds may be promoted, not where the block is. 0 for
    /// `input`'s data, static data and blocks allocated directly major.
    pub(crate) fn young_probability(&self) -> f64 {
        let stamp = self.0.get();
        if stamp >= MAJOR {
            return 0.0;
        }
        let allocated = stamp_birth(stamp) + stamp_words(stamp);
        CLOCK.with(|clock| {
            let heap = clock.heap_words.get();
            let since = clock.words.get().saturating_sub(allocated).min(heap);
            1.0 - since as f64 / heap as f64
        })
    }

    /// Whether the block is young and remembered: what is stored into it is reached from the
    /// remembered set too.
    #[inline]
    pub(crate) fn is_remembered(&self) -> bool {
        let stamp = self.0.get();
        stamp < MAJOR && stamp & REMEMBERED != 0
    }

    /// Marks a young block as remembered; false when it is not young or was already marked.
    pub(crate) fn remember(&self) -> bool {
        let stamp = self.0.get();
        if stamp >= MAJOR || stamp & REMEMBERED != 0 {
            return false;
        }
        self.0.set(stamp | REMEMBERED);
        true
    }

    /// Clears the remembered mark: the field that held the block now holds something else.
    pub(crate) fn forget(&self) {
        let stamp = self.0.get();
        if stamp < MAJOR {
            self.0.set(stamp & !REMEMBERED);
        }
    }

    /// Where the block's promotion window opens: its anchor, or its birth; `None` for a block
    /// no collection of the run promotes (old data, or allocated directly in the major heap).
    #[inline]
    pub(crate) fn window_start(&self) -> Option<u64> {
        let stamp = self.0.get();
        (stamp < MAJOR).then(|| stamp_birth(stamp).min(self.2.at.get()))
    }

    /// Opens the block's promotion window at `at`, through a store into `field`, when that is
    /// earlier than it opens now; false otherwise (then what the block reaches opens no later
    /// either, unless stored since).
    pub(crate) fn anchor(&self, at: u64, field: u64) -> bool {
        match self.window_start() {
            Some(start) if at < start => {
                self.2.at.set(at);
                self.2.field.set(field);
                true
            }
            _ => false,
        }
    }
}

/// Releases `old`, a value a store has just overwritten in `field` (its address) of a block of
/// the major heap when `in_major`: blocks that die with it die by their own age, remembered or
/// not (the overwrite took them out of the major block's field), and so do those anchored
/// through that field ([`Born::anchor`]).
pub(crate) fn release_overwritten(old: crate::value::Value, field: u64, in_major: bool) {
    if old.born().is_none() {
        old.release();
        return;
    }
    CLOCK.with(|clock| {
        let outer = clock
            .overwriting
            .replace(in_major || clock.overwriting.get());
        let outer_field = clock.overwritten_field.replace(field);
        old.release();
        clock.overwriting.set(outer);
        clock.overwritten_field.set(outer_field);
    });
}

/// Allocates a float box (passed to a call or returned): it lives until the next allocation,
/// unless a cons cell takes it first ([`Born::new_holding_box`]).
#[inline]
pub(crate) fn allocate_float_box() {
    CLOCK.with(|clock| {
        if clock.tracking.get() {
            close_box(clock);
            let birth = clock.words.get();
            clock.words.set(birth + u64::from(FLOAT_BOX_WORDS));
            weigh_by_frames(clock, FLOAT_BOX_WORDS);
            clock.open_box.set(birth);
        }
    })
}

/// Records the open float box, if any, as dead now.
#[inline]
fn close_box(clock: &Clock) {
    let birth = clock.open_box.replace(NO_BOX);
    if birth != NO_BOX {
        record(clock, u64::from(FLOAT_BOX_WORDS), clock.words.get() - birth);
    }
}

/// Advances the clock by `words` for an allocation that dies at once (a closure, see the
/// module doc; a float a generic array read boxes): allocated, never promoted.
#[inline]
pub(crate) fn allocate_short_lived(words: u32) {
    CLOCK.with(|clock| {
        if clock.tracking.get() {
            close_box(clock);
            clock.words.set(clock.words.get() + u64::from(words));
            weigh_by_frames(clock, words);
            record(clock, u64::from(words), u64::from(words));
        }
    })
}

/// Adds an allocation's weight to the stack-scan clock: a minor collection falls on each word
/// with probability 1/H, and then walks every frame live at that moment.
#[inline]
fn weigh_by_frames(clock: &Clock, words: u32) {
    let weight = u64::from(words).saturating_mul(FRAMES.with(Cell::get));
    clock
        .frame_words
        .set(clock.frame_words.get().saturating_add(weight));
}

/// Words the run allocated so far (the clock restarts at [`start`]), in the minor heap and
/// directly in the major one: every one a word of fresh memory entering the cache (see
/// [`crate::machine`]'s native stack).
pub(crate) fn allocated_words() -> u64 {
    CLOCK.with(|clock| clock.words.get() + clock.major_words.get())
}

/// Words the run allocated and wrote so far in the minor heap: the fresh lines its
/// allocations write (see [`crate::issue::ALLOC_WRITE_PER_WORD`]).
#[inline]
pub(crate) fn written_words() -> u64 {
    CLOCK.with(|clock| clock.words.get() - clock.unwritten.get())
}

/// [`written_words`], and of them those the program's own stores wrote: all but what fills
/// and blits wrote into string bodies ([`Born::written`]). One read of the clock, as a loop's
/// iteration takes both.
#[inline]
pub(crate) fn written_and_stored_words() -> (u64, u64) {
    CLOCK.with(|clock| {
        let written = clock.words.get() - clock.unwritten.get();
        (written, written - clock.filled.get())
    })
}

/// `words` of the minor block just allocated stay unwritten (`caml_alloc_string` writes only
/// a string's header and last word).
pub(crate) fn left_unwritten(words: u64) {
    CLOCK.with(|clock| {
        if clock.tracking.get() {
            clock.unwritten.set(clock.unwritten.get() + words);
        }
    })
}

/// A function with a native frame starts running (a non-tail call into it, or a tail call
/// from a frameless function): one more frame for a minor collection to scan.
#[inline]
pub(crate) fn frame_entered() {
    FRAMES.with(|frames| frames.set(frames.get() + 1));
}

/// The running function's frame is gone (it returned, raised, or tail-called a frameless one).
#[inline]
pub(crate) fn frame_left() {
    FRAMES.with(|frames| frames.set(frames.get().saturating_sub(1)));
}

impl Drop for Born {
    #[inline]
    fn drop(&mut self) {
        let stamp = self.0.get();
        if stamp >= MAJOR {
            return;
        }
        let birth = stamp_birth(stamp);
        let words = stamp_words(stamp);
        // The thread's clock is gone only when the thread exits, and then nothing is counted.
        let _ = CLOCK.try_with(|clock| {
            if !clock.tracking.get() {
                return;
            }
            if stamp & REMEMBERED != 0 && !clock.overwriting.get() {
                // Still in a major block's field: the next minor collection promotes it,
                // whatever became of that block since.
                clock
                    .remembered_words
                    .set(clock.remembered_words.get() + words);
            } else {
                let anchor = self.2.at.get();
                let start = if anchor < birth && self.2.field.get() != clock.overwritten_field.get()
                {
                    anchor
                } else {
                    birth
                };
                record(clock, words, clock.words.get() - start);
            }
        });
    }
}

fn record(clock: &Clock, words: u64, age: u64) {
    let bucket = (u64::BITS - age.leading_zeros()) as usize;
    let mut ages = clock.ages.borrow_mut();
    if ages.is_empty() {
        ages.resize(BUCKETS + 1, AgeBucket::default());
    }
    let slot = &mut ages[bucket.min(BUCKETS)];
    slot.words += words;
    slot.word_age = slot.word_age.saturating_add(words.saturating_mul(age));
    slot.word_age_squared += words as f64 * (age as f64) * (age as f64);
}

/// Starts a run: clock at zero, histogram empty.
pub(crate) fn start() {
    CLOCK.with(|clock| {
        clock.tracking.set(true);
        clock.words.set(0);
        clock.major_words.set(0);
        FRAMES.with(|frames| frames.set(0));
        clock.frame_words.set(0);
        clock.remembered_words.set(0);
        clock.unwritten.set(0);
        clock.filled.set(0);
        clock.open_box.set(NO_BOX);
        clock
            .heap_words
            .set(crate::allocation::minor_heap_words().max(1));
        clock.ages.borrow_mut().clear();
    });
    crate::cache::start();
}

/// Ends a run (after every block it built has been dropped) and returns what it allocated.
pub(crate) fn finish() -> Allocation {
    CLOCK.with(|clock| {
        close_box(clock);
        clock.tracking.set(false);
        let ages = std::mem::take(&mut *clock.ages.borrow_mut());
        Allocation {
            words: clock.words.get() + clock.major_words.get(),
            direct_major_words: clock.major_words.get(),
            frame_words: clock.frame_words.get(),
            remembered_words: clock.remembered_words.get(),
            lifetimes: ages
                .into_iter()
                .enumerate()
                .filter(|(_, b)| b.words > 0)
                .map(|(k, b)| LifetimeBucket {
                    max_age: if k == 0 { 0 } else { (1u64 << k.min(63)) - 1 },
                    words: b.words,
                    word_age: b.word_age,
                    word_age_squared: b.word_age_squared,
                })
                .collect(),
            touches: crate::cache::finish(),
        }
    })
}

#[derive(Debug, Clone, Copy, Default)]
struct AgeBucket {
    words: u64,
    word_age: u64,
    word_age_squared: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_lifetimes() {
        start();
        let short: Vec<Born> = (0..10).map(|_| Born::new(3)).collect();
        drop(short); // 10 blocks of 3 words, ages 30 down to 3
        let long = Born::new(5);
        for _ in 0..100 {
            drop(Born::new(10)); // age 10 each
        }
        drop(long); // age 1005
        let allocation = finish();
        assert_eq!(allocation.words, 30 + 5 + 1000);
        // ages of the short ones: 30, 27, …, 3 → Σ 3·age = 3·165
        let word_age = 3 * 165 + 100 * 10 * 10 + 5 * 1005;
        let total: u64 = allocation.lifetimes.iter().map(|b| b.word_age).sum();
        assert_eq!(total, word_age);
        let squared: f64 = allocation
            .lifetimes
            .iter()
            .map(|b| b.word_age_squared)
            .sum();
        let expected = 3.0 * (1..=10).map(|k| (3 * k * 3 * k) as f64).sum::<f64>()
            + 100.0 * 10.0 * 100.0
            + 5.0 * 1005.0 * 1005.0;
        assert_eq!(squared, expected);
        // A heap far larger than every age: promoted = Σ w·a / H.
        let h = 1 << 20;
        let expected = word_age as f64 / h as f64;
        assert!((allocation.promoted_words_at(h as f64) - expected).abs() < 1e-9);
        // A heap of 512 words: the 5-word block outlives it and is promoted whole.
        let small = allocation.promoted_words_at(512.0);
        let expected = (3 * 165 + 100 * 10 * 10) as f64 / 512.0 + 5.0;
        assert!((small - expected).abs() < 1e-9, "{small} vs {expected}");
    }

    #[test]
    fn nothing_is_tracked_outside_a_run() {
        let before = Born::new(7);
        start();
        drop(before);
        drop(Born::new(2));
        let allocation = finish();
        assert_eq!(allocation.words, 2);
        assert_eq!(allocation.lifetimes.iter().map(|b| b.words).sum::<u64>(), 2);
    }
}
