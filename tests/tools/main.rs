//! The tests that run other programs beside podcycle: the GitHub Action's script (bash, git,
//! jq), Kubernetes' own code (the oracle in
//! `oracle/`, built with Go), Helm and Kustomize (with the render layer's trust boundary,
//! `security`), and Neovim. A test whose program is missing is reported as ignored, with the
//! reason — never as passed; `.ci/run` installs every program and sets
//! `PODCYCLE_REQUIRE_ORACLE`, `PODCYCLE_REQUIRE_RENDERERS` and `PODCYCLE_REQUIRE_NVIM`, under
//! which a missing one fails its tests.
//!
//! libtest-mimic is the harness, so that such a test can say at run time that it was ignored.

mod action;
mod confinement;
mod fidelity;
mod front_ends;
mod missing_files;
mod neovim;
mod placement;
mod render;
mod security;
mod source_maps;
mod tool;
mod upstream;

// The integration tests' helpers; these tests use a few of them.
#[allow(dead_code)]
#[path = "../it/common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../it/lsp_client.rs"]
mod lsp_client;

use std::process::ExitCode;

use libtest_mimic::Arguments;

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let mut trials = Vec::new();
    trials.extend(action::trials());
    trials.extend(fidelity::trials());
    trials.extend(front_ends::trials());
    trials.extend(missing_files::trials());
    trials.extend(neovim::trials());
    trials.extend(source_maps::trials());
    trials.extend(render::trials());
    trials.extend(placement::trials());
    trials.extend(upstream::trials());
    trials.extend(security::trials());
    trials.extend(confinement::trials());
    libtest_mimic::run(&arguments, trials).exit_code()
}
