//! The integration tests, as one binary: one link against the crate and its dependencies
//! instead of one per file. Per-fixture tests (rule fixtures, explain fixtures) are in
//! `tests/fixtures.rs`, where every fixture is a test of its own; the tests that run other
//! programs (the oracle, Helm and Kustomize, Neovim) are in `tests/tools/`, where a missing
//! program shows as an ignored test.

mod adoption;
mod agreement;
mod architecture;
mod cli;
mod cli_config;
mod common;
mod consistency;
mod custom_kinds;
mod docs;
mod explain;
mod inputs;
mod lsp;
mod lsp_client;
mod render;
mod report;
mod robustness;
mod scaling;
mod security;
