//! The global allocator the interpreter is fastest with, for the binaries that count (`mlcost`,
//! the interpreter's benchmark) to install with `#[global_allocator]`.
//!
//! The interpreter allocates a small block for every OCaml value it builds and frees it when
//! the value dies (`Rc`): glibc's malloc and free were a sixth of `list_map_fold`'s
//! instructions, mimalloc's thread-local free lists take far fewer. Its `realloc` copies a
//! large block, though, where glibc's remaps the pages of one it mapped alone: the vectors a
//! deep recursion grows a level at a time (the value stack, the callers' way-back arms, the
//! native stack's lines) took `fintadd` 200 000 deep 2% more instructions. So blocks of
//! [`LARGE`] bytes or more stay with the system's allocator.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size up go to the system allocator (which maps them alone, and remaps
/// them to grow); smaller ones to mimalloc.
const LARGE: usize = 1 << 16;

/// mimalloc for small blocks, the system allocator for [`LARGE`] ones.
pub struct Allocator;

fn is_large(size: usize) -> bool {
    size >= LARGE
}

// SAFETY: every block is served, resized and freed by the allocator its size selects, and a
// block keeps the layout it was allocated or last reallocated with (the `GlobalAlloc`
// contract), so it is always freed or resized by the allocator that holds it. A resize whose
// old and new sizes select different allocators moves the block between them: allocated in
// the new one, the smaller of the two sizes copied, freed in the old one.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size()) {
            System.alloc(layout)
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size()) {
            System.alloc_zeroed(layout)
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(layout.size()) {
            System.dealloc(ptr, layout)
        } else {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (is_large(layout.size()), is_large(new_size)) {
            (true, true) => System.realloc(ptr, layout, new_size),
            (false, false) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
            _ => {
                // SAFETY: `new_size`, rounded up to the alignment, does not overflow `isize`
                // (the caller's contract for `realloc`).
                let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                let new = self.alloc(new_layout);
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                new
            }
        }
    }
}
