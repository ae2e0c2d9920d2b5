//! The control programs are embedded with `include_dir!`, which cargo does not know reads a
//! directory: a control added or edited must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=../controls");
}
