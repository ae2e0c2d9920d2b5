//! The built-in templates are embedded with `include_dir!`, which cargo does not know reads a
//! directory: a template added or edited must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=../templates");
}
