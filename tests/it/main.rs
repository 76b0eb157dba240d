//! The integration tests, as one binary: one link against the crate and its dependencies
//! instead of one per file. Per-fixture tests (rule fixtures, explain fixtures) are in
//! `tests/fixtures.rs`, where every fixture is a test of its own.

mod cli;
mod cli_config;
mod common;
mod docs;
mod explain;
mod fidelity;
mod inputs;
mod lsp;
mod lsp_client;
mod neovim;
mod report;
mod robustness;
