//! A set-associative table tagged by a hash of a branch's context, as the tagged components
//! of TAGE and ITTAGE predictors are: what both model predictors (`branch_trace.rs` for
//! conditional branches, `table_jump.rs` for jumps through tables) remember per context.
//!
//! Each set keeps its ways in the order last used, so a context met again moves to the front
//! and a new one takes the place of the least recently used (or of an empty way).

/// Entries per set.
const WAYS: usize = 8;

/// Where a context falls in the table, and whether it is there.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    first: usize,
    tag: u32,
    way: Option<usize>,
}

pub(crate) struct TaggedTable<V> {
    sets: usize,
    /// `(tag, value)` per way, the most recently used first; tag 0 marks an empty way.
    entries: Box<[(u32, V)]>,
}

impl<V: Copy + Default> TaggedTable<V> {
    pub(crate) fn new(sets: usize) -> Self {
        TaggedTable {
            sets,
            entries: vec![(0, V::default()); sets * WAYS].into(),
        }
    }

    /// The slot of a context, from a well-mixed 64-bit hash of it: the high half picks the
    /// set, other bits the tag.
    pub(crate) fn slot(&self, hash: u64) -> Slot {
        let first = (((hash >> 32) * self.sets as u64) >> 32) as usize * WAYS;
        // 1 + 29 bits of tag: never 0, so 0 marks an empty way.
        let tag = ((hash >> 3) as u32 & 0x1fff_ffff) | 0x2000_0000;
        let way = self.entries[first..first + WAYS]
            .iter()
            .position(|&(t, _)| t == tag);
        Slot { first, tag, way }
    }

    /// What the table holds for the context, if anything.
    pub(crate) fn get(&self, slot: Slot) -> Option<V> {
        slot.way.map(|w| self.entries[slot.first + w].1)
    }

    /// Stores `value` for the context and makes it the most recent of its set: in its own way
    /// if it is there, else in place of the least recently used.
    pub(crate) fn put(&mut self, slot: Slot, value: V) {
        let set = &mut self.entries[slot.first..slot.first + WAYS];
        match slot.way {
            Some(w) => set[..=w].rotate_right(1),
            None => set.rotate_right(1),
        }
        set[0] = (slot.tag, value);
    }
}

/// Mixes a site and a history into the hash [`TaggedTable::slot`] reads.
pub(crate) fn context_hash(site: u32, history: u64) -> u64 {
    (history ^ u64::from(site).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_forgets_its_least_recently_used_context_first() {
        let mut table: TaggedTable<u8> = TaggedTable::new(1);
        let slot = |t: &TaggedTable<u8>, i: u64| t.slot(context_hash(i as u32, 0));
        for i in 0..WAYS as u64 {
            let s = slot(&table, i);
            assert_eq!(table.get(s), None);
            table.put(s, i as u8);
        }
        // Context 0 is used again, so context 1 is now the oldest.
        let s0 = slot(&table, 0);
        assert_eq!(table.get(s0), Some(0));
        table.put(s0, 10);
        let s = slot(&table, 100);
        table.put(s, 100);
        assert_eq!(table.get(slot(&table, 1)), None);
        assert_eq!(table.get(slot(&table, 0)), Some(10));
        assert_eq!(table.get(slot(&table, 2)), Some(2));
        assert_eq!(table.get(slot(&table, 100)), Some(100));
    }
}
