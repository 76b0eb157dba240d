//! podcycle: a Kubernetes manifest linter that understands the Pod lifecycle.
//!
//! The pipeline for one file is free of I/O: [`lint::lint_file`] takes a
//! [`source::SourceFile`] and returns what it finds; [`run::lint_bytes`] takes the bytes read
//! and the file's [`run::FilePlan`] to a report, the one way every front end, the tests, the
//! benchmarks and the fuzz targets lint a file. Reading files, running Helm and Kustomize and
//! writing fixes are the business of the modules above it: [`discovery`] and [`render`] read
//! and run, [`run`] plans and drives one run for every front end, and [`cli`] and [`lsp`] talk
//! to the user. docs/architecture.md draws the layers.

mod baseline;
pub mod cli;
pub mod config;
pub mod diagnostics;
pub mod discovery;
pub mod docs;
pub mod escape;
pub mod explain;
mod fingerprint;
pub mod fix;
mod fix_file;
mod ignore_comment;
pub mod lifecycle;
pub mod lint;
pub mod lsp;
pub mod model;
pub mod render;
pub mod report;
pub mod rules;
pub mod run;
mod safe_fs;
pub mod settings;
pub mod source;
mod suggest;
pub mod suppression;
pub mod text;
pub mod versions;
pub mod yaml;
