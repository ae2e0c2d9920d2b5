//! # reports
//!
//! What mlcost shows people: the Core_bench-style terminal tables ([`terminal`]: `Name
//! Time/Run  mWd/Run  mjWd/Run  Prom/Run  R²  95% CI`, the cost table, the validation table),
//! and the self-contained HTML report of a run ([`html`], from the run's files read by
//! [`data`]), with its SVG charts ([`charts`]) and every table also as CSV and JSON
//! ([`export`]); the trend and comparison pages ([`pages`]). Every page is rendered through
//! one Tera set-up from a typed context.

pub mod charts;
pub mod compare;
pub mod compare_instructions;
pub mod data;
pub mod export;
pub mod forest;
pub mod html;
pub mod instructions_section;
pub mod metric;
pub mod pages;
mod render;
pub mod terminal;

/// Sorts construct names as the catalogue lists them; names it does not know go last.
pub(crate) fn sort_by_catalogue<T: AsRef<str>>(names: &mut [T]) {
    let order: std::collections::BTreeMap<&str, usize> = semantics::catalogue()
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name, i))
        .collect();
    names.sort_by_key(|n| order.get(n.as_ref()).copied().unwrap_or(usize::MAX));
}

/// A run's start as the pages show it (RFC 3339, UTC, seconds).
pub(crate) fn format_date(unix: u64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix))
        .to_string()
}
