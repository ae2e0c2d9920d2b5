//! The result digest: a hash of a value's runtime representation that the native driver
//! (`ocaml/mlcost_stubs.c`, `mlcost_digest`) and the interpreter (`semantics`) compute alike.
//!
//! The value is walked in pre-order, fields left to right, as a tree (sharing is not detected:
//! the supported subset builds no cyclic values). Each node appends bytes to a stream; the
//! digest is the 64-bit FNV-1a hash of the stream, printed as 16 lowercase hex digits.
//!
//! | node | bytes |
//! |---|---|
//! | immediate (int, bool, char, unit, `[]`, constant constructor) | `0x01`, the integer as i64 little-endian |
//! | block with tag < 251 (tuple, `::`, `Some`, non-constant constructor) except the tags below | `0x02`, tag (1 byte), size in words (u64 LE), then each field |
//! | boxed float (tag 253) | `0x03`, the IEEE-754 bits (u64 LE) |
//! | string (tag 252) | `0x04`, length in bytes (u64 LE), the bytes |
//! | flat float array (tag 254) | `0x05`, length (u64 LE), each element's bits (u64 LE) |
//! | closure (247) or infix (249) | `0x06` |
//! | anything else (object/exception constructor 248, lazy 246, forward 250, abstract 251, custom 255) | `0x07`, tag (1 byte) |
//!
//! Booleans are the immediates 0 and 1, `()` is 0, constant constructors are numbered from 0 in
//! declaration order among the constant ones, non-constant constructors get tags from 0 in
//! declaration order among the non-constant ones, and a constructor's arguments are its fields
//! (`Node of t * int * t` has three fields; `Node of (t * int * t)` one, a tuple).

/// Tag of a closure block.
pub const CLOSURE_TAG: u8 = 247;
/// Tag of an exception constructor (and of objects).
pub const OBJECT_TAG: u8 = 248;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Incremental digest: feed the nodes of a value in pre-order, then call [`Digest::finish`].
#[derive(Debug, Clone)]
pub struct Digest {
    hash: u64,
}

impl Default for Digest {
    fn default() -> Self {
        Self::new()
    }
}

impl Digest {
    pub fn new() -> Self {
        Digest { hash: FNV_OFFSET }
    }

    fn byte(&mut self, b: u8) {
        self.hash ^= u64::from(b);
        self.hash = self.hash.wrapping_mul(FNV_PRIME);
    }

    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.byte(b);
        }
    }

    /// An immediate value (int, bool, char, unit, `[]`, constant constructor).
    pub fn immediate(&mut self, v: i64) {
        self.byte(0x01);
        self.word(v as u64);
    }

    /// The header of a structured block; its `size` fields must follow.
    pub fn block(&mut self, tag: u8, size: u64) {
        self.byte(0x02);
        self.byte(tag);
        self.word(size);
    }

    /// A boxed float.
    pub fn float(&mut self, f: f64) {
        self.byte(0x03);
        self.word(f.to_bits());
    }

    pub fn string(&mut self, s: &[u8]) {
        self.byte(0x04);
        self.word(s.len() as u64);
        for &b in s {
            self.byte(b);
        }
    }

    pub fn float_array(&mut self, xs: &[f64]) {
        self.byte(0x05);
        self.word(xs.len() as u64);
        for x in xs {
            self.word(x.to_bits());
        }
    }

    /// A closure: code pointers differ between builds, so only its presence counts.
    pub fn closure(&mut self) {
        self.byte(0x06);
    }

    /// Any other block, identified by its tag alone.
    pub fn opaque(&mut self, tag: u8) {
        self.byte(0x07);
        self.byte(tag);
    }

    /// The digest as the driver prints it: 16 lowercase hex digits.
    pub fn finish(&self) -> String {
        format!("{:016x}", self.hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_of_empty_stream_is_the_offset_basis() {
        assert_eq!(Digest::new().finish(), "cbf29ce484222325");
    }

    #[test]
    fn list_and_tuple_of_same_ints_differ() {
        // [1; 2] is 1 :: (2 :: []), (1, 2) is a single block of two fields.
        let mut list = Digest::new();
        list.block(0, 2);
        list.immediate(1);
        list.block(0, 2);
        list.immediate(2);
        list.immediate(0);
        let mut tuple = Digest::new();
        tuple.block(0, 2);
        tuple.immediate(1);
        tuple.immediate(2);
        assert_ne!(list.finish(), tuple.finish());
    }

    #[test]
    fn float_digest_depends_on_bits() {
        let mut a = Digest::new();
        a.float(0.0);
        let mut b = Digest::new();
        b.float(-0.0);
        assert_ne!(a.finish(), b.finish());
    }
}
