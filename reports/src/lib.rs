//! # reports
//!
//! What mlcost shows people: the Core_bench-style terminal tables ([`terminal`]: `Name
//! Time/Run  mWd/Run  mjWd/Run  Prom/Run  R²  95% CI`, the cost table, the validation table),
//! and the self-contained HTML report of a run ([`html`], from the run's files read by
//! [`data`]), with its SVG charts ([`charts`]) and every table also as CSV and JSON
//! ([`export`]).

pub mod charts;
pub mod compare;
pub mod data;
pub mod export;
pub mod html;
pub mod metric;
pub mod pages;
pub mod terminal;
