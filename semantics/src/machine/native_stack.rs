//! The native stack's cache lines: what a deep non-tail recursion's frames cost once they
//! outgrow the level-2 cache (`FarStackWord`).
//!
//! A recursion n levels deep writes n frames on its way down and reads them back on its way
//! up, and the next run does it again. Within the cache that is free; beyond it every line
//! of frame is fetched for writing on the way down and again for reading on the way up, and
//! the dirty lines are written back. Measured on the AMD host (Zen 3, 512 KiB of level 2;
//! one program timing itself, best of 7 rounds, 1 run), `fact` costs 3.3 ns a level up to
//! 16 000 levels (16-byte frames, 256 KB), 3.97 at 64 000, 4.55 at 128 000 and 6.1 at
//! 256 000 (4 MB): some 0.4 ns a word of frame beyond the cache, rising once the frames
//! outgrow the level 3's share too. The heap's reads are the cache model's
//! ([`crate::cache`]); the stack is not a heap block and is walked as a sweep, so it is
//! modelled here.
//!
//! **The rule.** The cache is least recently used over lines of 8 words: a line of stack is
//! still held when fewer than C distinct words were touched since it was, C the level 2
//! ([`crate::cache::cache_words`]). Those words are the words the run allocated meanwhile
//! (fresh lines of the minor heap) and the stack's own. The stack pointer moves a frame at a
//! time, so on a return they are the stack down to the deepest point the callees reached,
//! and on a call the stack up to the shallowest point reached since the line's last touch
//! (the pointer cannot have gone deeper without touching it), taken as half the words it
//! travelled since, at most the depth: exact when it went up and came back straight, as a
//! second deep recursion after a first does. A function with a frame touches its frame's
//! lines when it is entered (the return address, the stores of what its calls keep) and
//! when it returns (the loads back); a raise unwinds to its handler without touching the
//! frames between. The native harness runs `run` again and again, so a line's first touch
//! in a run finds it as the previous run left it: the stack above it and the words
//! allocated after its last touch in the run and before its first came between.
//!
//! The line the stack pointer is in is touched by every call and return within it; its
//! stamps are brought up to date when the pointer leaves it, so that a call that stays in
//! the line costs the interpreter a comparison.
//!
//! A recursion D words deep thus misses its lines beyond C on the way down and those more
//! than C above its bottom on the way up: 2 (D − C) words a run.

use crate::cache::{cache_words, LINE_WORDS};

/// A line the run has not touched yet.
const UNTOUCHED: u64 = u64::MAX;

/// No line: the stack pointer is in none before the run's first frame.
const NO_LINE: usize = usize::MAX;

/// When the run touched one line of stack: on the heap's allocation clock, which counts from
/// the run's start (first and last touch), and on the stack's travel (last touch).
#[derive(Clone, Copy)]
struct LineTouches {
    first_allocated: u64,
    last_allocated: u64,
    last_travel: u64,
}

const NEVER: LineTouches = LineTouches {
    first_allocated: UNTOUCHED,
    last_allocated: UNTOUCHED,
    last_travel: 0,
};

/// The deepest point the frames under way reached, saved by [`NativeStack::push`] for the
/// frame's [`NativeStack::pop`] (kept by the caller, in [`crate::machine::Machine::invoke`]'s
/// own frame, rather than on a stack here).
#[derive(Clone, Copy, Default)]
pub(crate) struct DeepestMark(u64);

/// The run's native stack, as [`crate::machine::Machine::invoke`] pushes and pops frames.
#[derive(Default)]
pub(crate) struct NativeStack {
    tracking: bool,
    /// The cache, in words.
    capacity: u64,
    /// Words of frame below the run's first one.
    depth: u64,
    /// The deepest point reached since the frame on top was pushed.
    deepest: u64,
    /// Words the stack pointer moved so far, up and down: the clock of the stack's touches.
    travel: u64,
    /// Per line from the run's first frame down.
    lines: Vec<LineTouches>,
    /// The line the stack pointer is in, touched by every push and pop within it: its
    /// stamps are brought up to date when the pointer leaves it, not at each of them.
    hot_line: usize,
    /// Words of frame that missed after their first touch in the run.
    missed_words: u64,
}

impl NativeStack {
    /// Starts a run with an empty stack.
    pub(crate) fn start(&mut self) {
        self.tracking = true;
        self.capacity = cache_words();
        self.depth = 0;
        self.deepest = 0;
        self.travel = 0;
        self.lines.clear();
        self.hot_line = NO_LINE;
        self.missed_words = 0;
    }

    /// Ends the run: the words of frame that missed, the first touches resolved against the
    /// next run (`FarStackWord`).
    pub(crate) fn finish(&mut self) -> u64 {
        self.tracking = false;
        let end = crate::heap::allocated_words();
        self.refresh_hot_line(end);
        let first_misses = self
            .lines
            .iter()
            .enumerate()
            .filter(|(line, touches)| {
                touches.first_allocated != UNTOUCHED
                    && *line as u64 * LINE_WORDS
                        + (end - touches.last_allocated)
                        + touches.first_allocated
                        >= self.capacity
            })
            .count() as u64;
        self.missed_words + first_misses * LINE_WORDS
    }

    /// A frame of `words` words is pushed: its lines are touched after the stack between
    /// them and the shallowest point since their last touch. The stack pointer went up from
    /// the line and came back down to it (to go deeper it would have touched it), so that
    /// is half the travel since, if it went straight, and at most the depth.
    #[inline]
    pub(crate) fn push(&mut self, words: u32) -> DeepestMark {
        let saved = DeepestMark(self.deepest);
        if self.tracking && words > 0 {
            let top = self.depth;
            self.moved_to(top + u64::from(words));
            self.deepest = self.depth;
            let (first, last) = lines_of(top, self.depth);
            if (first, last) != (self.hot_line, self.hot_line) {
                self.touch(first, last, Swept::SinceShallowest);
                self.hot_line = last;
            }
        }
        saved
    }

    /// The frame of `words` words on top, pushed when the deepest point was `saved`, returns
    /// (`touched`) or is unwound by a raise: its lines are touched after the stack down to
    /// the deepest point its callees reached. A line a callee touched since (they may share
    /// it) was touched on the callee's return, a few words of travel ago.
    #[inline]
    pub(crate) fn pop(&mut self, words: u32, touched: bool, saved: DeepestMark) {
        if self.tracking && words > 0 {
            let bottom = self.depth;
            let deepest = self.deepest;
            self.moved_to(bottom.saturating_sub(u64::from(words)));
            self.deepest = saved.0.max(deepest);
            if touched {
                let (first, last) = lines_of(self.depth, bottom);
                if (first, last) != (self.hot_line, self.hot_line) {
                    self.touch(first, last, Swept::DownTo(deepest));
                    self.hot_line = first;
                }
            }
        }
    }

    #[inline]
    fn moved_to(&mut self, depth: u64) {
        self.travel += depth.abs_diff(self.depth);
        self.depth = depth;
    }

    /// Touches lines `first` to `last` (inclusive), once the stack pointer leaves the line it
    /// was in. Most touches follow the last one by less
    /// travel and allocation than the cache holds, and end there: only the others work out
    /// the words swept.
    #[inline(never)]
    fn touch(&mut self, first: usize, last: usize, swept: Swept) {
        if self.lines.len() <= last {
            self.lines.resize(last + 1, NEVER);
        }
        let allocated = crate::heap::allocated_words();
        self.refresh_hot_line(allocated);
        let mut line = first;
        while line <= last {
            let touches = &mut self.lines[line];
            if touches.first_allocated == UNTOUCHED {
                touches.first_allocated = allocated;
            } else {
                let allocated_since = allocated - touches.last_allocated;
                if self.travel - touches.last_travel + allocated_since >= self.capacity {
                    let stack_words = match swept {
                        Swept::SinceShallowest => {
                            ((self.travel - touches.last_travel) / 2).min(self.depth)
                        }
                        Swept::DownTo(deepest) => deepest - self.depth,
                    };
                    if stack_words + allocated_since >= self.capacity {
                        self.missed_words += LINE_WORDS;
                    }
                }
            }
            touches.last_allocated = allocated;
            touches.last_travel = self.travel;
            line += 1;
        }
    }
}

impl NativeStack {
    /// The line the stack pointer was in was touched until now.
    fn refresh_hot_line(&mut self, allocated: u64) {
        if let Some(touches) = self.lines.get_mut(self.hot_line) {
            if touches.first_allocated != UNTOUCHED {
                touches.last_allocated = allocated;
                touches.last_travel = self.travel;
            }
        }
    }
}

/// The lines holding the words from `top` (inclusive) to `bottom` (exclusive).
#[inline]
fn lines_of(top: u64, bottom: u64) -> (usize, usize) {
    (
        (top / LINE_WORDS) as usize,
        ((bottom - 1) / LINE_WORDS) as usize,
    )
}

/// The stack words a touch's line saw swept since its last touch.
#[derive(Clone, Copy)]
enum Swept {
    /// On a push: from the shallowest point since, back down to the line.
    SinceShallowest,
    /// On a return: from the line down to the deepest point its callees reached.
    DownTo(u64),
}
