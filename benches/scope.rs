//! What judging objects together costs: the release binary, run as a user runs it, on the
//! inputs whose cost must follow their size and never their numbers.
//!
//! - `largest counts` (`testdata/scale/largest-counts.yaml`): `replicas`, `maxReplicas`, a
//!   StatefulSet's ordinals and a Job's `backoffLimit` at 2147483647, through `check`,
//!   `explain` and `explain --rollout` in each format. Target: under 50 ms and 20 MB each.
//! - `budgets × workloads`: one file of N Deployments and N PodDisruptionBudgets that all
//!   select the same pods, N = 1,000 and 4,000. Target: 4,000 in at most 6 times the time of
//!   1,000 and 200 MB; `explain --rollout --format json` of 1,000 × 1,000 under 2 s.
//!
//! - the same objects as the items of one `List`, and in two files of one directory (judged
//!   together, each parsed once). Target: 4,000 in at most 6 times the time of 1,000.
//!
//! - `one small file`: `podcycle check testdata/small-app.yaml` named alone (pre-commit's run)
//!   in a git checkout of a few files and in one of 20,000 files in 2,000 directories. Target:
//!   under 5 ms in both; the owners of a named file are found from git's index, not by walking
//!   the tree; and outside git, in a plain directory of 20,000 files, where only the directories
//!   from the file up are read.
//!
//! `cargo bench --bench scope`; `PODCYCLE_BENCH_ROUNDS` (default 3) sets the rounds. Each
//! round runs every case once, in turn, so that a busy neighbour slows all alike; the table
//! gives the median wall time and the largest peak resident set size.

#[allow(dead_code)]
mod process;

use std::path::Path;
use std::time::Duration;

use process::{Run, machine_load, median};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if process::serve_measure(&args) {
        return;
    }
    if !process::selected(&args, "scope") {
        return;
    }
    let rounds = process::env_number("PODCYCLE_BENCH_ROUNDS", 3);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("testdata/scale/largest-counts.yaml"),
        dir.path().join("counts.yaml"),
    )
    .expect("copying the largest counts");
    for n in [1_000, 4_000] {
        std::fs::write(dir.path().join(format!("budgets-{n}.yaml")), budgets(n))
            .expect("writing the budgets");
        std::fs::write(dir.path().join(format!("list-{n}.yaml")), budget_list(n))
            .expect("writing the list");
        let split = dir.path().join(format!("split-{n}"));
        std::fs::create_dir_all(&split).expect("a directory");
        let (workloads, budgets) = budgets_apart(n);
        std::fs::write(split.join("deploy.yaml"), workloads).expect("writing the workloads");
        std::fs::write(split.join("pdb.yaml"), budgets).expect("writing the budgets");
    }
    let small_tree = tempfile::tempdir().expect("a temporary directory");
    let large_tree = tempfile::tempdir().expect("a temporary directory");
    checkout(small_tree.path(), 0);
    checkout(large_tree.path(), 2_000);
    let large_directory = tempfile::tempdir().expect("a temporary directory");
    checkout_files(large_directory.path(), 2_000);
    let mut cases: Vec<(String, Vec<String>)> = [
        ("check", "counts.yaml"),
        ("check --format json", "counts.yaml"),
        ("explain", "counts.yaml"),
        ("explain --format json", "counts.yaml"),
        ("explain --rollout", "counts.yaml"),
        ("explain --rollout --format json", "counts.yaml"),
        ("check", "budgets-1000.yaml"),
        ("check", "budgets-4000.yaml"),
        ("explain --rollout --format json", "budgets-1000.yaml"),
        ("check", "list-1000.yaml"),
        ("check", "list-4000.yaml"),
        ("check", "split-1000"),
        ("check", "split-4000"),
    ]
    .iter()
    .map(|(command, file)| {
        let mut args: Vec<String> = command.split(' ').map(str::to_owned).collect();
        args.extend(["--no-config".to_owned(), (*file).to_owned()]);
        (format!("{command} {file}"), args)
    })
    .collect();
    let one_file = |dir: &Path| {
        vec![
            "--in".to_owned(),
            dir.display().to_string(),
            "check".to_owned(),
            "--no-render".to_owned(),
            "one.yaml".to_owned(),
        ]
    };
    cases.push((
        "check one.yaml, a checkout of 2 files".to_owned(),
        one_file(small_tree.path()),
    ));
    cases.push((
        "check one.yaml, a checkout of 20,000 files".to_owned(),
        one_file(large_tree.path()),
    ));
    // Run from a directory below the file, as from anywhere in a busy temporary directory.
    cases.push((
        "check ../one.yaml, 20,000 files outside git".to_owned(),
        vec![
            "--in".to_owned(),
            large_directory.path().join("d0").display().to_string(),
            "check".to_owned(),
            "--no-render".to_owned(),
            "../one.yaml".to_owned(),
        ],
    ));

    let before = machine_load();
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); cases.len()];
    for _ in 0..rounds {
        for (case, (_, args)) in cases.iter().enumerate() {
            let (run_in, args) = match args.split_first() {
                Some((flag, rest)) if flag == "--in" => (Path::new(&rest[0]), &rest[1..]),
                _ => (dir.path(), &args[..]),
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            runs[case].push(process::measure(
                Path::new(env!("CARGO_BIN_EXE_podcycle")),
                &args,
                run_in,
            ));
        }
    }
    println!(
        "\n`podcycle` on inputs whose numbers are large, {rounds} rounds, output to /dev/null\n"
    );
    println!("| case | median wall | median CPU | peak RSS |");
    println!("| --- | ---: | ---: | ---: |");
    let mut walls = Vec::new();
    for ((name, _), runs) in cases.iter().zip(&runs) {
        let wall = median(runs.iter().map(|r| r.wall));
        let cpu: Duration = median(runs.iter().map(Run::cpu));
        let peak = runs.iter().map(|r| r.max_rss).max().unwrap_or(0);
        walls.push(wall);
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.1} MB |",
            wall.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            peak as f64 / 1e6
        );
    }
    let small = walls[6].as_secs_f64();
    let large = walls[7].as_secs_f64();
    println!(
        "\n4,000 budgets × 4,000 workloads took {:.2}× the time of 1,000 × 1,000 (target ≤ 6×; \
         linear is 4×).",
        large / small
    );
    for (what, at) in [("in one `List`", 9), ("in two files of a directory", 11)] {
        println!(
            "{what}: {:.2}× (target ≤ 6×).",
            walls[at + 1].as_secs_f64() / walls[at].as_secs_f64()
        );
    }
    println!(
        "\nThe machine: {before} before; {} after. Under load, the times are long; the peaks \
         are not.",
        machine_load()
    );
}

/// A git checkout in `dir` holding `one.yaml` (the small app), a kustomization, and
/// `directories` directories of ten manifests each, all tracked.
fn checkout(dir: &Path, directories: usize) {
    checkout_files(dir, directories);
    git_add_all(dir);
}

/// The files of [`checkout`], without git: outside a checkout, they are a busy temporary
/// directory.
fn checkout_files(dir: &Path, directories: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join("testdata/small-app.yaml"), dir.join("one.yaml"))
        .expect("copying the small app");
    std::fs::write(dir.join("kustomization.yaml"), "resources: [one.yaml]\n")
        .expect("writing a kustomization");
    for d in 0..directories {
        let sub = dir.join(format!("d{}/e{d}", d % 50));
        std::fs::create_dir_all(&sub).expect("a directory");
        for f in 0..10 {
            std::fs::write(
                sub.join(format!("m{f}.yaml")),
                "apiVersion: v1\nkind: ConfigMap\n",
            )
            .expect("a manifest");
        }
    }
}

/// Makes `dir` a git checkout with every file in it tracked.
fn git_add_all(dir: &Path) {
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("git runs");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
}

/// The same objects as [`budgets`], as the items of one `List`: one document, whose budgets
/// are matched with its items in one pass.
fn budget_list(n: usize) -> String {
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..n {
        yaml.push_str(&format!(
            "- {{apiVersion: apps/v1, kind: Deployment, metadata: {{name: web-{i}}}, spec: {{replicas: 3, selector: {{matchLabels: {{app: web}}}}, template: {{metadata: {{labels: {{app: web}}}}, spec: {{containers: [{{name: web, image: example/web:1}}]}}}}}}}}\n- {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: pdb-{i}}}, spec: {{maxUnavailable: 1, selector: {{matchLabels: {{app: web}}}}}}}}\n"
        ));
    }
    yaml
}

/// The objects of [`budgets`] in two files of one directory, which `check` judges together:
/// the workloads, then the budgets.
fn budgets_apart(n: usize) -> (String, String) {
    let (mut workloads, mut budgets) = (String::new(), String::new());
    for (i, document) in self::budgets(n).split("---\n").skip(1).enumerate() {
        let to = if i % 2 == 0 {
            &mut workloads
        } else {
            &mut budgets
        };
        to.push_str("---\n");
        to.push_str(document);
    }
    (workloads, budgets)
}

/// One file of `n` Deployments and `n` PodDisruptionBudgets, every budget selecting the pods
/// of every Deployment.
fn budgets(n: usize) -> String {
    let mut yaml = String::new();
    for i in 0..n {
        yaml.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-{i}}}\nspec:\n  replicas: 3\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: example/web:1}}]}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: pdb-{i}}}\nspec:\n  maxUnavailable: 1\n  selector: {{matchLabels: {{app: web}}}}\n"
        ));
    }
    yaml
}
