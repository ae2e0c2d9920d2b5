//! # reports
//!
//! What mlcost shows people. For now the Core_bench-style terminal table ([`terminal`]) that
//! `mlcost bench` prints: `Name  Time/Run  mWd/Run  mjWd/Run  Prom/Run  R²  95% CI`, plus the
//! spread across code layouts. The HTML report, history and comparison pages will live here too.

pub mod terminal;
