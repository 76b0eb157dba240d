//! Rendering is a trust boundary: a chart or overlay in a pull request is a program that runs on
//! the CI machine (docs/security.md, "Rendering"). Each test is built from a reproduction of a
//! way in: links to files outside the repository, to `.git/config`, to another process's
//! environment and to a directory of keys; addresses Kustomize would fetch from a server on
//! the runner; a chart that allocates 4 GB; a thousand slow charts; a chain of overlays; a
//! chart broken on purpose to turn a failing check green.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use libtest_mimic::Trial;

use crate::common::{code, high_water, podcycle, stderr, stdout, watched, write};
use crate::tool::{Skipped, Tool, needs, needs_or_skips};

const BAD: &str = include_str!("../../testdata/cli/bad.yaml");
const GOOD: &str = include_str!("../../testdata/cli/good.yaml");

/// Far beyond what any of these runs needs: a hang fails the test instead of the test run.
const LIMIT: Duration = Duration::from_secs(60);

/// Runs `command` with nothing on standard input, reading its output while it runs (SARIF is
/// larger than a pipe holds), and fails the test if it takes longer than `limit`.
fn within(limit: Duration, command: &mut Command) -> Output {
    watched(limit, command.stdin(Stdio::null()), &mut |_| {})
}

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "security::a_charts_links_leave_no_byte_of_their_targets_in_any_format",
            a_charts_links_leave_no_byte_of_their_targets_in_any_format,
        ),
        needs(
            Tool::Renderers,
            "security::an_overlay_reads_nothing_of_git_or_outside_the_repository",
            an_overlay_reads_nothing_of_git_or_outside_the_repository,
        ),
        needs(
            Tool::Renderers,
            "security::kustomize_sends_no_request_to_the_runner_from_any_field",
            kustomize_sends_no_request_to_the_runner_from_any_field,
        ),
        needs_or_skips(
            Tool::Renderers,
            "security::the_sandbox_keeps_renderers_off_the_network",
            the_sandbox_keeps_renderers_off_the_network,
        ),
        needs(
            Tool::Renderers,
            "security::a_chart_that_allocates_gigabytes_is_stopped_at_the_limit",
            a_chart_that_allocates_gigabytes_is_stopped_at_the_limit,
        ),
        needs(
            Tool::Renderers,
            "security::the_render_budget_bounds_a_run_of_slow_charts",
            the_render_budget_bounds_a_run_of_slow_charts,
        ),
        needs_or_skips(
            Tool::Renderers,
            "security::a_chain_of_overlays_is_built_once_from_its_end",
            a_chain_of_overlays_is_built_once_from_its_end,
        ),
        needs(
            Tool::Renderers,
            "security::breaking_a_chart_is_a_finding_with_helms_message",
            breaking_a_chart_is_a_finding_with_helms_message,
        ),
        needs(
            Tool::Renderers,
            "security::a_broken_overlay_is_a_finding_at_the_entry_kustomize_names",
            a_broken_overlay_is_a_finding_at_the_entry_kustomize_names,
        ),
        needs(
            Tool::Renderers,
            "security::the_summary_counts_overlays",
            the_summary_counts_overlays,
        ),
        needs(
            Tool::Renderers,
            "security::a_function_behind_an_escaped_key_is_refused",
            a_function_behind_an_escaped_key_is_refused,
        ),
        needs(
            Tool::Renderers,
            "security::without_the_sandbox_rendering_warns",
            without_the_sandbox_rendering_warns,
        ),
        needs(
            Tool::Renderers,
            "security::a_poisoned_render_cache_never_turns_a_chart_green",
            a_poisoned_render_cache_never_turns_a_chart_green,
        ),
        needs(
            Tool::Renderers,
            "security::a_poisoned_render_cache_never_turns_an_overlay_green",
            a_poisoned_render_cache_never_turns_an_overlay_green,
        ),
        needs(
            Tool::Renderers,
            "security::the_render_cache_is_never_written_through_a_link",
            the_render_cache_is_never_written_through_a_link,
        ),
        needs(
            Tool::Renderers,
            "security::what_is_not_rendered_is_not_cached",
            what_is_not_rendered_is_not_cached,
        ),
        needs(
            Tool::Renderers,
            "security::a_release_name_is_never_a_flag_of_helms",
            a_release_name_is_never_a_flag_of_helms,
        ),
        needs(
            Tool::Renderers,
            "security::values_files_come_from_the_repository_only",
            values_files_come_from_the_repository_only,
        ),
        needs(
            Tool::Renderers,
            "security::a_message_that_names_the_network_is_still_a_finding",
            a_message_that_names_the_network_is_still_a_finding,
        ),
        needs(
            Tool::Renderers,
            "security::plugin_configurations_spelled_otherwise_leak_nothing",
            plugin_configurations_spelled_otherwise_leak_nothing,
        ),
        needs(
            Tool::Renderers,
            "security::a_file_a_plugin_configuration_loads_is_in_the_cache_key",
            a_file_a_plugin_configuration_loads_is_in_the_cache_key,
        ),
    ]
}

/// What every leak test looks for in every byte podcycle prints (not a valid container name, so
/// that a template or replacement that puts it in one gets it quoted in a finding).
const SECRET: &str = "Hunter2_SECRET_7f3a";

/// Every output format.
const FORMATS: [&str; 7] = [
    "full", "concise", "json", "sarif", "github", "junit", "gitlab",
];

/// A repository (it has `.git`) whose `.git/config` holds a token, beside a directory outside it
/// with a password file, a registry configuration and a directory of keys.
struct Repository {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    outside: PathBuf,
}

impl Repository {
    fn new() -> Repository {
        let root_dir = tempfile::tempdir().unwrap();
        let outside_dir = tempfile::tempdir().unwrap();
        let root = root_dir.path().canonicalize().unwrap();
        let outside = outside_dir.path().canonicalize().unwrap();
        crate::tool::git_init(&root);
        let config = fs::read_to_string(root.join(".git/config")).unwrap();
        write(
            &root,
            ".git/config",
            &format!(
                "{config}[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic {SECRET}\n"
            ),
        );
        write(
            &outside,
            "passwd",
            &format!("root:x:0:0:{SECRET}:/root:/bin/sh\n"),
        );
        write(
            &outside,
            "config.json",
            &format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{SECRET}\"}}}}}}\n"),
        );
        write(
            &outside,
            "ssh/id_ed25519",
            &format!("-----BEGIN {SECRET}-----\n"),
        );
        Repository {
            _dirs: (root_dir, outside_dir),
            root,
            outside,
        }
    }

    /// A chart whose template prints what `.Files` and `.Values` hold into container names,
    /// which `invalid-container-name` quotes.
    fn chart(&self) -> PathBuf {
        let chart = self.root.join("chart");
        write(
            &chart,
            "Chart.yaml",
            "apiVersion: v2\nname: leaky\nversion: 1.0.0\n",
        );
        write(&chart, "values.yaml", "replicas: 1\n");
        write(
            &chart,
            "templates/pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: {{ .Files.Get \"files/secret\" | quote }}\n    image: a\n  - name: {{ range $path, $_ := .Files.Glob \"files/keys/*\" }}{{ $.Files.Get $path | quote }}{{ else }}keys{{ end }}\n    image: b\n  - name: {{ .Values | toJson | quote }}\n    image: c\n",
        );
        write(&chart, "files/README", "the files the template reads\n");
        chart
    }

    /// `podcycle check --isolated ARGS` in the repository, every file of it committed as a
    /// pull request's are, with a token in its environment as a CI job has one
    /// (`/proc/self/environ` would hold it).
    fn check(&self, args: &[&str]) -> Output {
        crate::tool::git(&self.root, &["add", "-A"]);
        within(
            LIMIT,
            podcycle()
                .current_dir(&self.root)
                .env("GITHUB_TOKEN", SECRET)
                .args(["check", "--isolated"])
                .args(args),
        )
    }
}

/// Everything a run printed.
fn all(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

/// A process of the runner with a token in its environment, as `GITHUB_TOKEN` is in another
/// step's; killed when dropped.
struct Neighbour(std::process::Child);

impl Neighbour {
    fn start() -> Neighbour {
        Neighbour(
            Command::new("sleep")
                .arg("300")
                .env("GITHUB_TOKEN", SECRET)
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        )
    }

    fn environ(&self) -> String {
        format!("/proc/{}/environ", self.0.id())
    }
}

impl Drop for Neighbour {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `files/passwd -> /etc/passwd` read with `.Files.Get` printed the file in a finding, in every
/// format, with `--isolated`; so did a link to `.git/config`, to `/proc/self/environ` and to
/// another process's environment, to a directory of keys (`.Files.Glob`), a values file and a
/// template that are links. Now the chart is not rendered, the link is named, and no byte of
/// its target is printed.
fn a_charts_links_leave_no_byte_of_their_targets_in_any_format() {
    let neighbour = Neighbour::start();
    let repository = Repository::new();
    let chart = repository.chart();
    // The harness sees a leak when there is one: the same secret in a file of the chart.
    write(&chart, "files/secret", SECRET);
    let leaked = repository.check(&["--format", "concise", "."]);
    assert!(all(&leaked).contains(SECRET), "{}", all(&leaked));
    fs::remove_file(chart.join("files/secret")).unwrap();

    let outside = &repository.outside;
    let cases: [(&str, PathBuf); 7] = [
        ("files/secret", outside.join("passwd")),
        ("files/secret", PathBuf::from("../../.git/config")),
        ("files/secret", PathBuf::from("/proc/self/environ")),
        ("files/secret", PathBuf::from(neighbour.environ())),
        ("files/keys", outside.join("ssh")),
        ("values.yaml", outside.join("config.json")),
        ("templates/leak.yaml", outside.join("passwd")),
    ];
    for (link, target) in cases {
        let path = chart.join(link);
        let original = fs::read(&path).ok();
        let _ = fs::remove_file(&path);
        symlink(&target, &path).unwrap();
        for format in FORMATS {
            let output = repository.check(&["--fail-on-unrendered", "--format", format, "."]);
            let text = all(&output);
            assert!(
                !text.contains(SECRET),
                "{link} -> {}, {format}: printed the target: {text}",
                target.display()
            );
            assert_eq!(code(&output), 1, "{link}, {format}: {text}");
            assert!(
                text.contains(&format!("`chart/{link}` is a symbolic link to")),
                "{link}, {format}: the link is named: {text}"
            );
        }
        fs::remove_file(&path).unwrap();
        if let Some(bytes) = original {
            fs::write(&path, bytes).unwrap();
        }
    }
}

/// A kustomization at the root of a repository can name `.git/config` in a generator and copy
/// it into a container name with `replacements`; so can a link to it. Neither is built.
fn an_overlay_reads_nothing_of_git_or_outside_the_repository() {
    let repository = Repository::new();
    let root = &repository.root;
    write(
        root,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: x\n",
    );
    let kustomization = |file: &str| {
        format!(
            "resources: [pod.yaml]\nconfigMapGenerator:\n- name: c\n  files: [data={file}]\nreplacements:\n- source: {{kind: ConfigMap, name: c, fieldPath: data.data}}\n  targets:\n  - select: {{kind: Pod, name: p}}\n    fieldPaths: [spec.containers.0.name]\n"
        )
    };
    // The harness sees a leak when there is one.
    write(root, "notes.txt", SECRET);
    write(root, "kustomization.yaml", &kustomization("notes.txt"));
    let leaked = repository.check(&["--format", "concise", "."]);
    assert!(all(&leaked).contains(SECRET), "{}", all(&leaked));

    symlink(".git/config", root.join("gc")).unwrap();
    symlink(repository.outside.join("passwd"), root.join("pw")).unwrap();
    for file in [".git/config", "gc", "pw"] {
        write(root, "kustomization.yaml", &kustomization(file));
        for format in FORMATS {
            let output = repository.check(&["--fail-on-unrendered", "--format", format, "."]);
            let text = all(&output);
            assert!(!text.contains(SECRET), "{file}, {format}: {text}");
            assert_eq!(code(&output), 1, "{file}, {format}: {text}");
            assert!(
                text.contains("`configMapGenerator[0].files[0]` in kustomization.yaml"),
                "{file}, {format}: {text}"
            );
        }
    }
}

/// A server on the runner's loopback, counting the connections it accepts.
pub(crate) struct Server {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl Server {
    pub(crate) fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                counter.fetch_add(1, Ordering::SeqCst);
                if let Ok(mut stream) = stream {
                    let mut request = [0; 1024];
                    let _ = stream.read(&mut request);
                    let body = "apiVersion: v1\nkind: Pod\nmetadata: {name: fetched}\nspec:\n  containers:\n  - {name: FETCHED, image: x}\n";
                    let _ = std::io::Write::write_all(
                        &mut stream,
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        )
                        .as_bytes(),
                    );
                }
            }
        });
        Server { port, accepted }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/x.yaml", self.port)
    }

    pub(crate) fn requests(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// Kustomize loads files from `http(s)://` addresses in many fields, and the proxy variables do
/// nothing for `127.0.0.1`: the patch, a generator's file, the OpenAPI document and a
/// configuration were fetched from a server on the runner. No field reaches it now.
fn kustomize_sends_no_request_to_the_runner_from_any_field() {
    let server = Server::start();
    // The counter counts.
    drop(std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.requests() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.requests(), 1);

    let url = server.url();
    let fields = [
        ("resources", format!("resources: [pod.yaml, {url}]")),
        ("bases", format!("resources: [pod.yaml]\nbases: [{url}]")),
        (
            "components",
            format!("resources: [pod.yaml]\ncomponents: [{url}]"),
        ),
        (
            "patches[].path",
            format!("resources: [pod.yaml]\npatches: [{{path: {url}}}]"),
        ),
        (
            "patchesJson6902[].path",
            format!(
                "resources: [pod.yaml]\npatchesJson6902: [{{path: {url}, target: {{kind: Pod, name: p}}}}]"
            ),
        ),
        (
            "patchesStrategicMerge",
            format!("resources: [pod.yaml]\npatchesStrategicMerge: [{url}]"),
        ),
        (
            "configMapGenerator files",
            format!("resources: [pod.yaml]\nconfigMapGenerator: [{{name: c, files: [{url}]}}]"),
        ),
        (
            "configMapGenerator envs",
            format!("resources: [pod.yaml]\nconfigMapGenerator: [{{name: c, envs: [{url}]}}]"),
        ),
        (
            "secretGenerator env",
            format!("resources: [pod.yaml]\nsecretGenerator: [{{name: c, env: {url}}}]"),
        ),
        (
            "openapi.path",
            format!("resources: [pod.yaml]\nopenapi: {{path: {url}}}"),
        ),
        ("crds", format!("resources: [pod.yaml]\ncrds: [{url}]")),
        (
            "configurations",
            format!("resources: [pod.yaml]\nconfigurations: [{url}]"),
        ),
        (
            "replacements[].path",
            format!("resources: [pod.yaml]\nreplacements: [{{path: {url}}}]"),
        ),
        (
            "generators",
            format!("resources: [pod.yaml]\ngenerators: [{url}]"),
        ),
        (
            "transformers",
            format!("resources: [pod.yaml]\ntransformers: [{url}]"),
        ),
        (
            "validators",
            format!("resources: [pod.yaml]\nvalidators: [{url}]"),
        ),
        (
            "helmCharts",
            format!("resources: [pod.yaml]\nhelmCharts: [{{name: x, repo: {url}}}]"),
        ),
        (
            "a PatchTransformer's path",
            format!(
                "resources: [pod.yaml]\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {{name: x}}\n  path: {url}\n"
            ),
        ),
        (
            "a ConfigMapGenerator's files",
            format!(
                "resources: [pod.yaml]\ngenerators:\n- |\n  apiVersion: builtin\n  kind: ConfigMapGenerator\n  metadata: {{name: x}}\n  files: [{url}]\n"
            ),
        ),
        (
            "a ReplacementTransformer's path",
            format!(
                "resources: [pod.yaml]\ntransformers:\n- |\n  apiVersion: builtin\n  kind: ReplacementTransformer\n  metadata: {{name: x}}\n  replacements: [{{path: {url}}}]\n"
            ),
        ),
        (
            "a transformer file's path",
            "resources: [pod.yaml]\ntransformers: [t.yaml]".to_owned(),
        ),
    ];
    for (field, kustomization) in fields {
        let tree = tempfile::tempdir().unwrap();
        write(tree.path(), ".git/HEAD", "ref: refs/heads/main\n");
        write(
            tree.path(),
            "app/pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: app, image: x}\n",
        );
        write(
            tree.path(),
            "app/t.yaml",
            &format!(
                "apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata: {{name: x}}\npaths: [{url}]\n"
            ),
        );
        write(
            tree.path(),
            "app/kustomization.yaml",
            &format!("{kustomization}\nreplicas: [{{name: p, count: 1}}]\n"),
        );
        let output = within(
            LIMIT,
            podcycle().current_dir(tree.path()).args([
                "check",
                "--isolated",
                "--format",
                "json",
                "app",
            ]),
        );
        let text = all(&output);
        assert!(text.contains("not rendered"), "{field}: {text}");
        assert!(!text.contains("FETCHED"), "{field}: {text}");
        assert_eq!(server.requests(), 1, "{field} reached the server: {text}");
    }
}

/// `kustomize` itself (not `kubectl`), which some tests run directly.
fn kustomize() -> Result<PathBuf, Skipped> {
    podcycle::render::process::find_executable(Path::new("kustomize"))
        .ok_or_else(|| Skipped("`kustomize` is not on PATH (only `kubectl` is)".to_owned()))
}

/// Beneath the screen, the sandbox: Kustomize run directly on a remote resource cannot reach
/// the runner's loopback where the kernel allows network namespaces.
fn the_sandbox_keeps_renderers_off_the_network() -> Result<(), Skipped> {
    use podcycle::render::process::{Limits, Outcome, run};
    use podcycle::render::sandbox::{Sandbox, sandbox};
    if let Sandbox::Unavailable(why) = sandbox() {
        return Err(Skipped(format!("no sandbox on this machine ({why})")));
    }
    let kustomize = kustomize()?;
    let server = Server::start();
    let tree = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        "kustomization.yaml",
        &format!("resources: [{}]\n", server.url()),
    );
    let access = podcycle::render::sandbox::Access {
        read: vec![tree.path().to_owned()],
        write: Vec::new(),
    };
    let outcome = run(
        &kustomize,
        &[std::ffi::OsStr::new("build"), tree.path().as_os_str()],
        tree.path(),
        &access,
        &Limits::new(Duration::from_secs(30)),
        &podcycle::render::Budget::unlimited(),
    );
    assert!(matches!(outcome, Outcome::Failed(_)), "{outcome:?}");
    assert_eq!(server.requests(), 0, "{outcome:?}");
    Ok(())
}

/// Peak resident memory (`VmHWM`) of the direct children of a process while it runs.
fn children_peak(command: &mut Command) -> (Output, u64) {
    let mut peak = 0;
    let output = watched(LIMIT * 3, command.stdin(Stdio::null()), &mut |parent| {
        for entry in fs::read_dir("/proc").unwrap().flatten() {
            let Ok(status) = fs::read_to_string(entry.path().join("status")) else {
                continue;
            };
            let ppid = status
                .lines()
                .find_map(|l| l.strip_prefix("PPid:"))
                .and_then(|v| v.trim().parse::<u32>().ok());
            let pid = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok());
            if let (Some(ppid), Some(pid)) = (ppid, pid)
                && ppid == parent
            {
                peak = peak.max(high_water(pid));
            }
        }
    });
    (output, peak)
}

/// `{{ $s := repeat 67108864 "x" }}` printed four times made Helm reach 3.9 GB before the output
/// cap was looked at. Helm is now stopped at its memory limit.
fn a_chart_that_allocates_gigabytes_is_stopped_at_the_limit() {
    let tree = tempfile::tempdir().unwrap();
    write(
        tree.path(),
        "big/Chart.yaml",
        "apiVersion: v2\nname: big\nversion: 1.0.0\n",
    );
    write(
        tree.path(),
        "big/templates/big.yaml",
        "{{- $s := repeat 67108864 \"x\" }}a: {{ $s }}{{ $s }}{{ $s }}{{ $s }}\n",
    );
    const MIB: u64 = 1 << 20;
    let (output, peak) = children_peak(podcycle().current_dir(tree.path()).args([
        "check",
        "--render-memory",
        "256",
        "--render-timeout",
        "170",
        "big",
    ]));
    let text = all(&output);
    assert!(
        text.contains("Helm chart big not rendered: stopped at 256 MiB of memory"),
        "{text}"
    );
    eprintln!("helm's peak: {} MiB", peak / MIB);
    assert!(peak > 0, "helm's memory was measured");
    // The limit counts the memory Helm writes; the resident size adds its code.
    assert!(peak < 256 * MIB + 128 * MIB, "{} MiB", peak / MIB);
}

/// Twelve 100-byte templates looping for as long as they are let took twelve time limits; a
/// thousand would hold a job for hours. The run's budget stops them all, and says how many.
fn the_render_budget_bounds_a_run_of_slow_charts() {
    let tree = tempfile::tempdir().unwrap();
    for i in 0..12 {
        write(
            tree.path(),
            &format!("c{i}/Chart.yaml"),
            &format!("apiVersion: v2\nname: c{i}\nversion: 1.0.0\n"),
        );
        write(
            tree.path(),
            &format!("c{i}/templates/loop.yaml"),
            // 400 million steps, allocating nothing that grows.
            "{{- range until 20000 }}{{- range until 20000 }}{{- end }}{{- end }}\n",
        );
    }
    let started = Instant::now();
    let output = within(
        LIMIT,
        podcycle().current_dir(tree.path()).args([
            "check",
            "--render-timeout",
            "30",
            "--render-budget",
            "3",
            "--fail-on-unrendered",
            "--format",
            "concise",
            ".",
        ]),
    );
    let elapsed = started.elapsed();
    let out = stdout(&output);
    assert_eq!(code(&output), 1, "{out}");
    assert!(
        out.contains("12 Helm charts not rendered: the run's render budget of 3s was spent before it finished (raise it with --render-budget)"),
        "{out}"
    );
    eprintln!("12 slow charts, a budget of 3 s: {elapsed:?} (a busy machine stretches it)");
}

/// 60, 120 and 240 chained overlays took 5.3, 23.1 and 109.7 s: each was built on its own.
/// Now only the last is built, and the others are linted through it: one build of 240
/// kustomizations (counted, not timed), made twice since its output has a finding — to know
/// it, then to place it with build metadata.
fn a_chain_of_overlays_is_built_once_from_its_end() -> Result<(), Skipped> {
    let kustomize = kustomize()?;
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    write(root, "chain/base/pod.yaml", BAD);
    write(
        root,
        "chain/base/kustomization.yaml",
        "resources: [pod.yaml]\n",
    );
    let mut previous = "base".to_owned();
    for i in 1..=240 {
        write(
            root,
            &format!("chain/o{i}/kustomization.yaml"),
            &format!("resources: [../{previous}]\nlabels:\n- pairs: {{l{i}: v}}\n"),
        );
        previous = format!("o{i}");
    }
    // A kustomize that notes each run.
    let log = root.join("runs.log");
    let wrapper = root.join("kustomize");
    write(
        root,
        "kustomize",
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            kustomize.display()
        ),
    );
    fs::set_permissions(
        &wrapper,
        <fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    // A script cannot start under the render confinement (its interpreter is not on the
    // allowlist, nor is the log it writes): this test counts runs, so it renders unconfined.
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(root)
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .args([
                "check",
                "--kustomize",
                wrapper.to_str().unwrap(),
                "--format",
                "json",
                "chain",
            ]),
    );
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let runs = fs::read_to_string(&log).unwrap();
    assert_eq!(runs.lines().count(), 2, "kustomize ran: {runs}");
    let findings: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        findings.iter().any(|f| f["file"] == "chain/base/pod.yaml"),
        "{findings:#?}"
    );
    let summary = stdout(&within(
        LIMIT,
        podcycle()
            .current_dir(root)
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .args(["check", "--kustomize", wrapper.to_str().unwrap(), "chain"]),
    ));
    assert!(summary.contains(" and 1 Kustomize overlay."), "{summary}");
    let listing = stdout(&within(
        LIMIT,
        podcycle()
            .current_dir(root)
            .args(["check", "--show-files", "chain"]),
    ));
    assert!(
        listing.contains("chain/o240: render (Kustomize overlay)"),
        "{listing}"
    );
    assert!(
        listing.contains("chain/o17: skip (Kustomize overlay another overlay builds from: built through chain/o240)"),
        "{listing}"
    );
    Ok(())
}

fn chart_with(tree: &Path, templates: &[(&str, &str)]) {
    write(
        tree,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    write(tree, "web/values.yaml", "replicas: 1\n");
    for (name, text) in templates {
        write(tree, &format!("web/templates/{name}"), text);
    }
}

/// Adding `templates/zz.yaml` holding `{{ fail "nope" }}` to a chart with a finding made the
/// check pass (a chart not rendered was a warning), and the reason printed was Helm's last
/// line, `Use --debug flag to render out invalid YAML`. The chart's refusal is now a finding of
/// `render-error` at the place Helm names, with Helm's message.
fn breaking_a_chart_is_a_finding_with_helms_message() {
    let tree = tempfile::tempdir().unwrap();
    chart_with(tree.path(), &[("pod.yaml", BAD)]);
    let check = |args: &[&str]| {
        within(
            LIMIT,
            podcycle().current_dir(tree.path()).arg("check").args(args),
        )
    };
    assert_eq!(code(&check(&["web"])), 1);
    write(
        tree.path(),
        "web/templates/zz.yaml",
        "{{ fail \"nope\" }}\n",
    );
    let output = check(&["--format", "concise", "web"]);
    let out = stdout(&output);
    assert_eq!(code(&output), 1, "{out}");
    assert!(
        out.contains("web/templates/zz.yaml:1:3: error[render-error] `helm template` fails: nope"),
        "{out}"
    );
    assert!(
        !all(&output).contains("Use --debug flag"),
        "{}",
        all(&output)
    );
    // `required`, at its line and column, in every machine format.
    fs::remove_file(tree.path().join("web/templates/zz.yaml")).unwrap();
    chart_with(
        tree.path(),
        &[(
            "pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  terminationGracePeriodSeconds: {{ required \"drainSeconds is required\" .Values.drainSeconds }}\n  containers:\n  - {name: a, image: x}\n",
        )],
    );
    let output = check(&["--format", "json", "web"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let findings: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let finding = &findings[0];
    assert_eq!(finding["rule"], "render-error");
    assert_eq!(finding["enforcement"], "renderer");
    assert_eq!(finding["file"], "web/templates/pod.yaml");
    // Helm's column: the action's first character after `{{`.
    assert_eq!(
        (finding["line"].as_u64(), finding["column"].as_u64()),
        (Some(6), Some(36))
    );
    assert_eq!(
        finding["message"],
        "`helm template` fails: drainSeconds is required"
    );
    // Turned off, the refusal is still said: a chart not rendered.
    let output = check(&["--ignore", "render-error", "--fail-on-unrendered", "web"]);
    assert_eq!(code(&output), 1);
    assert!(
        stderr(&output).contains("Helm chart web not rendered: `helm template` fails at web/templates/pod.yaml:6:36: drainSeconds is required"),
        "{}",
        stderr(&output)
    );
    // What the environment causes stays a note.
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(tree.path())
            .env("PATH", "")
            .args(["check", "web"]),
    );
    assert_eq!(code(&output), 0, "{}", all(&output));
}

/// A base `dir` of one manifest with findings, for overlays to build from.
fn base(tree: &Path, dir: &str) {
    write(tree, &format!("{dir}/pod.yaml"), BAD);
    write(
        tree,
        &format!("{dir}/kustomization.yaml"),
        "resources: [pod.yaml]\n",
    );
}

/// What Kustomize refuses because of the files — a file listed that is not there, a patch that
/// matches nothing, the same object twice, a kustomization that is not valid — is a finding at
/// the entry or line Kustomize names, in the kustomization it names.
fn a_broken_overlay_is_a_finding_at_the_entry_kustomize_names() {
    let tree = tempfile::tempdir().unwrap();
    base(tree.path(), "app/base");
    write(
        tree.path(),
        "app/prod/nope.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nope\nspec:\n  replicas: 2\n",
    );
    write(tree.path(), "app/prod/twice.yaml", BAD);
    let cases = [
        (
            "resources:\n- ../base\n- missing.yaml\nlabels:\n- pairs: {env: prod}\n",
            "app/prod/kustomization.yaml:3:3: error[render-error] `kustomize build` fails: accumulating resources from 'missing.yaml'",
        ),
        (
            "resources:\n- ../base\npatches:\n- path: nope.yaml\n",
            "app/prod/kustomization.yaml:4:9: error[render-error] `kustomize build` fails: no resource matches strategic merge patch \"Deployment.v1.apps/nope.[noNs]\"",
        ),
        (
            "resources:\n- ../base\n- twice.yaml\nlabels:\n- pairs: {env: prod}\n",
            "app/prod/kustomization.yaml:3:3: error[render-error] `kustomize build` fails: merging resources from 'twice.yaml': may not add resource with an already registered id",
        ),
        (
            "resources:\n- ../base\nlabels:\n- pairs: {env: prod}\nnamePrefx: x-\n",
            "app/prod/kustomization.yaml:5:1: error[render-error] `kustomize build` fails: invalid Kustomization: json: unknown field \"namePrefx\"",
        ),
    ];
    for (kustomization, finding) in cases {
        write(tree.path(), "app/prod/kustomization.yaml", kustomization);
        let output = within(
            LIMIT,
            podcycle()
                .current_dir(tree.path())
                .args(["check", "--format", "concise", "app/prod"]),
        );
        let out = stdout(&output);
        assert_eq!(code(&output), 1, "{}", all(&output));
        assert!(out.contains(finding), "{kustomization}\n{out}");
        assert!(
            !all(&output).contains("podcycle-kustomize-"),
            "temporary paths: {out}"
        );
    }
}

/// Two overlays built: the summary counts them in English.
fn the_summary_counts_overlays() {
    let tree = tempfile::tempdir().unwrap();
    base(tree.path(), "base");
    for overlay in ["dev", "prod"] {
        write(
            tree.path(),
            &format!("{overlay}/kustomization.yaml"),
            &format!("resources: [../base]\nlabels:\n- pairs: {{env: {overlay}}}\n"),
        );
    }
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(tree.path())
            .args(["check", "--format", "concise", "."]),
    );
    let out = stdout(&output);
    assert!(out.contains(" and 2 Kustomize overlays."), "{out}");
    assert!(!out.contains("overlaies"), "{out}");
}

/// `"config.kubernetes.io\x2Ffunction"` is `config.kubernetes.io/function` once YAML decodes
/// it: the screen of exec and KRM functions read the raw text and let it through.
fn a_function_behind_an_escaped_key_is_refused() {
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "app/pod.yaml", BAD);
    write(
        tree.path(),
        "app/kustomization.yaml",
        "resources: [pod.yaml]\ntransformers: [fn.yaml]\n",
    );
    write(
        tree.path(),
        "app/fn.yaml",
        "apiVersion: example.com/v1\nkind: Run\nmetadata:\n  name: x\n  annotations:\n    \"config.kubernetes.io\\x2Ffunction\": |\n      exec:\n        path: ./run.sh\n",
    );
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(tree.path())
            .args(["check", "--fail-on-unrendered", "app"]),
    );
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert!(
        stderr(&output).contains("Kustomize overlay app not rendered: uses a KRM or exec function (`Run`) in `transformers`"),
        "{}",
        stderr(&output)
    );
}

/// Where there is no sandbox (the kernel refuses namespaces, or it is switched off), rendering
/// goes on with a warning, and `--show-settings` says so.
fn without_the_sandbox_rendering_warns() {
    let tree = tempfile::tempdir().unwrap();
    chart_with(tree.path(), &[("pod.yaml", BAD)]);
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(tree.path())
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .args(["check", "web"]),
    );
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert!(
        stderr(&output).contains("podcycle: warning: renderers run without full confinement: files are not held to the stage (switched off by PODCYCLE_NO_RENDER_SANDBOX); the network is open (switched off by PODCYCLE_NO_RENDER_SANDBOX)"),
        "{}",
        stderr(&output)
    );
    let settings = |switched_off: bool| {
        let mut command = podcycle();
        if switched_off {
            command.env("PODCYCLE_NO_RENDER_SANDBOX", "1");
        }
        stdout(&within(
            LIMIT,
            command
                .current_dir(tree.path())
                .args(["check", "--show-settings", "web/Chart.yaml"]),
        ))
    };
    assert!(
        settings(true)
            .contains("render sandbox: not fully confined: inactive: switched off by PODCYCLE_NO_RENDER_SANDBOX"),
        "{}",
        settings(true)
    );
    if podcycle::render::sandbox::sandbox().is_active() {
        assert!(
            settings(false).contains("render sandbox: confined"),
            "{}",
            settings(false)
        );
    }
}

/// A repository (it has `.git`) whose renders are cached where podcycle caches them by default:
/// `.podcycle_cache/` in the checkout, where a pull request can write. The cache's key lives
/// outside it (the tests' user cache directory).
struct CachedRepository {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl CachedRepository {
    fn new() -> CachedRepository {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        crate::tool::git_init(&root);
        CachedRepository { _dir: dir, root }
    }

    fn cache(&self) -> PathBuf {
        self.root.join(".podcycle_cache")
    }

    /// `podcycle check --format json ARGS` with the default cache.
    fn check(&self, args: &[&str]) -> Output {
        within(
            LIMIT,
            podcycle()
                .current_dir(&self.root)
                .env_remove("PODCYCLE_CACHE_DIR")
                .args(["check", "--format", "json"])
                .args(args),
        )
    }

    /// The cache's entries (not its tag and ignore file).
    fn entries(&self) -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> = fs::read_dir(self.cache())
            .map(|dir| {
                dir.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        let name = p.file_name().unwrap().to_string_lossy();
                        name != "CACHEDIR.TAG" && name != ".gitignore"
                    })
                    .collect()
            })
            .unwrap_or_default();
        entries.sort();
        entries
    }
}

/// What a pull request writes in place of a cache entry.
type Plant<'a> = Box<dyn Fn(&Path) + 'a>;

/// Renders an input clean (its entries kept: the render, and that its lint found nothing),
/// then with a finding (its entries kept), then plants in the place of each entry of the second
/// run what a pull request can write — a clean entry's bytes, the clean render forged under the
/// entry's header, a link to the clean render, a FIFO, a gigabyte — and checks that each run
/// still reports the finding, in time.
fn poison_the_cache(repository: &CachedRepository, make_clean: &dyn Fn(), make_red: &dyn Fn()) {
    make_clean();
    let clean = repository.check(&[]);
    assert_eq!(code(&clean), 0, "{}", all(&clean));
    let clean_entries = repository.entries();
    assert_eq!(
        clean_entries.len(),
        2,
        "the render and its lint's verdict: {clean_entries:?}"
    );
    let clean_bytes: Vec<Vec<u8>> = clean_entries.iter().map(|e| fs::read(e).unwrap()).collect();
    // The render is the larger; the other says that its lint found nothing.
    let render = usize::from(clean_bytes[1].len() > clean_bytes[0].len());
    let (clean_render, clean_render_bytes) = (&clean_entries[render], &clean_bytes[render]);
    make_red();
    let red = repository.check(&[]);
    assert_eq!(code(&red), 1, "{}", all(&red));
    let red_entries: Vec<PathBuf> = repository
        .entries()
        .into_iter()
        .filter(|e| !clean_entries.contains(e))
        .collect();
    assert!(!red_entries.is_empty(), "the red render is kept");
    let after_header = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(1)
            .unwrap()
            .0
    };
    let expected: Vec<Value> = serde_json::from_slice(&red.stdout).unwrap();
    for red_entry in &red_entries {
        let red_bytes = fs::read(red_entry).unwrap();
        // The red entry's header and hash over the clean render.
        let mut forged = red_bytes[..after_header(&red_bytes)].to_vec();
        forged.extend_from_slice(&clean_render_bytes[after_header(clean_render_bytes)..]);
        let mut attacks: Vec<(&str, Plant)> = vec![
            (
                "the clean render's bytes",
                Box::new(|path: &Path| fs::write(path, clean_render_bytes).unwrap()),
            ),
            (
                "the clean lint's verdict",
                Box::new(|path: &Path| fs::write(path, &clean_bytes[1 - render]).unwrap()),
            ),
            (
                "the clean render under the red entry's header",
                Box::new(|path: &Path| fs::write(path, &forged).unwrap()),
            ),
            (
                "a link to the clean render",
                Box::new(|path: &Path| symlink(clean_render, path).unwrap()),
            ),
            (
                "a FIFO",
                Box::new(|path: &Path| {
                    let status = Command::new("mkfifo").arg(path).status().unwrap();
                    assert!(status.success());
                }),
            ),
        ];
        if red_bytes.len() > 1000 {
            // Once, in the place of a render.
            attacks.push((
                "a gigabyte",
                Box::new(|path: &Path| {
                    fs::File::create(path).unwrap().set_len(1 << 30).unwrap();
                }),
            ));
        }
        for (attack, plant) in attacks {
            let _ = fs::remove_file(red_entry);
            plant(red_entry);
            let output = repository.check(&[]);
            assert_eq!(code(&output), 1, "{attack}: {}", all(&output));
            let found: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(found, expected, "{attack}");
            // The run put its own entry back, a regular file.
            assert!(
                fs::symlink_metadata(red_entry).unwrap().is_file(),
                "{attack}"
            );
            for (entry, bytes) in clean_entries.iter().zip(&clean_bytes) {
                assert_eq!(&fs::read(entry).unwrap(), bytes, "{attack}");
            }
        }
    }
}

/// The cache is in the checkout, where a pull request writes. Entries are signed with a key
/// kept outside it, so a chart with a finding is never reported clean from a planted entry.
fn a_poisoned_render_cache_never_turns_a_chart_green() {
    let repository = CachedRepository::new();
    let root = repository.root.clone();
    poison_the_cache(
        &repository,
        &|| chart_with(&root, &[("pod.yaml", GOOD)]),
        &|| chart_with(&root, &[("pod.yaml", BAD)]),
    );
}

/// The same for an overlay: its patch sets the grace period the base's preStop sleep needs.
fn a_poisoned_render_cache_never_turns_an_overlay_green() {
    let repository = CachedRepository::new();
    let root = repository.root.clone();
    write(
        &root,
        "base/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: example/app:1.0\n    lifecycle:\n      preStop:\n        sleep:\n          seconds: 20\n",
    );
    write(&root, "base/kustomization.yaml", "resources: [pod.yaml]\n");
    write(
        &root,
        "prod/kustomization.yaml",
        "resources: [../base]\npatches:\n- path: grace.yaml\n",
    );
    let patch = |seconds: u32| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  terminationGracePeriodSeconds: {seconds}\n"
        )
    };
    poison_the_cache(
        &repository,
        &|| write(&root, "prod/grace.yaml", &patch(600)),
        &|| write(&root, "prod/grace.yaml", &patch(10)),
    );
}

/// A pull request that makes `.podcycle_cache` a link to a directory elsewhere (or a file)
/// gets nothing written there: the cache is not used, with a warning, and the check is the same.
fn the_render_cache_is_never_written_through_a_link() {
    let repository = CachedRepository::new();
    chart_with(&repository.root, &[("pod.yaml", BAD)]);
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path(), repository.cache()).unwrap();
    let output = repository.check(&[]);
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert!(
        stderr(&output).contains("renders are not cached:")
            && stderr(&output).contains("is a symbolic link"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    fs::remove_file(repository.cache()).unwrap();
    // A directory on the way that is a link, named with --cache-dir.
    symlink(outside.path(), repository.root.join("caches")).unwrap();
    let output = repository.check(&["--cache-dir", "caches/podcycle"]);
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert!(stderr(&output).contains("renders are not cached:"));
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    fs::write(repository.cache(), "not a directory").unwrap();
    let output = repository.check(&[]);
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert!(stderr(&output).contains("renders are not cached:"));
}

/// A chart stopped by a limit and a run with `--no-cache` leave no entry: each is rendered,
/// and reported, again on the next run. A chart Helm refuses keeps its refusal, which fails
/// the next run as it failed the first: a kept entry never turns red green.
fn what_is_not_rendered_is_not_cached() {
    let repository = CachedRepository::new();
    let root = &repository.root;
    chart_with(
        root,
        &[("pod.yaml", GOOD), ("zz.yaml", "{{ fail \"nope\" }}\n")],
    );
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let output = repository.check(&[]);
        assert_eq!(code(&output), 1, "{}", all(&output));
        assert!(stdout(&output).contains("render-error"), "{}", all(&output));
        assert_eq!(repository.entries().len(), 1, "the refusal is kept");
        outputs.push(all(&output));
    }
    assert_eq!(outputs[0], outputs[1]);
    // Stopped at the memory limit.
    write(
        root,
        "web/templates/zz.yaml",
        "{{ $s := repeat 67108864 \"x\" }}{{ $t := repeat 67108864 \"y\" }}{{ $u := cat $s $t $s $t }}{{ len $u }}\n",
    );
    let output = repository.check(&["--render-memory", "128", "--fail-on-unrendered"]);
    assert_eq!(code(&output), 1, "{}", all(&output));
    assert_eq!(repository.entries().len(), 1, "{}", all(&output));
    // Rendered, but with --no-cache: nothing kept.
    fs::remove_file(root.join("web/templates/zz.yaml")).unwrap();
    let output = repository.check(&["--no-cache"]);
    assert_eq!(code(&output), 0, "{}", all(&output));
    assert_eq!(repository.entries().len(), 1);
    let output = repository.check(&[]);
    assert_eq!(code(&output), 0, "{}", all(&output));
    assert_eq!(
        repository.entries().len(),
        3,
        "the refusal, the render, and that its lint found nothing"
    );
    let tag = fs::read_to_string(repository.cache().join("CACHEDIR.TAG")).unwrap();
    assert!(tag.starts_with("Signature: 8a477f597d28d172789f06886806bc55"));
    assert_eq!(
        fs::read_to_string(repository.cache().join(".gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
}

/// `release: --post-renderer=/bin/sh` went to `helm template` as a flag, and a template that is
/// both YAML and a shell script ran: it wrote outside the checkout. The release is now a
/// problem of the configuration, at its place, and nothing runs; a good release still renders.
fn a_release_name_is_never_a_flag_of_helms() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().canonicalize().unwrap();
    let marker = root.join("ran");
    chart_with(
        &root,
        &[(
            "script.yaml",
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: s}}\ndata:\n  s: |\n    true; touch '{}'; exit 0\n",
                marker.display()
            ),
        )],
    );
    write(
        &root,
        ".podcycle.yaml",
        "helm:\n  charts:\n  - path: web\n    release: --post-renderer=/bin/sh\n",
    );
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(&root)
            .args(["check", "--format", "json", "web"]),
    );
    let err = stderr(&output);
    assert_eq!(code(&output), 2, "{err}");
    assert!(err.contains(".podcycle.yaml:4:14"), "{err}");
    assert!(err.contains("is not a release name Helm takes"), "{err}");
    assert!(!marker.exists(), "the post-renderer ran");
    // Named on the command line, or as a namespace: refused before Helm runs.
    fs::remove_file(root.join(".podcycle.yaml")).unwrap();
    for flags in [
        ["--helm-release=--post-renderer=/bin/sh"],
        ["--helm-namespace=--post-renderer=/bin/sh"],
    ] {
        let output = within(
            LIMIT,
            podcycle()
                .current_dir(&root)
                .arg("check")
                .args(flags)
                .args(["--fail-on-unrendered", "web"]),
        );
        assert_eq!(code(&output), 1, "{}", all(&output));
        assert!(all(&output).contains("not rendered"), "{}", all(&output));
        assert!(!marker.exists(), "the post-renderer ran");
    }
    write(
        &root,
        ".podcycle.yaml",
        "helm:\n  charts:\n  - path: web\n    release: web.prod-1\n    namespace: shop\n",
    );
    let output = within(
        LIMIT,
        podcycle()
            .current_dir(&root)
            .args(["check", "--fail-on-unrendered", "web"]),
    );
    assert_eq!(code(&output), 0, "{}", all(&output));
}

/// `values: [/…/.docker/config.json]`, `[../…]` and `[.git/config]`, with a template that
/// prints its values, printed the file. Each is a problem of the configuration now.
fn values_files_come_from_the_repository_only() {
    let repository = Repository::new();
    let root = &repository.root;
    chart_with(root, &[("fail.yaml", "{{ fail (toJson .Values) }}\n")]);
    for (values, words) in [
        (
            repository.outside.join("config.json").display().to_string(),
            "outside the repository",
        ),
        (
            format!(
                "../{}/config.json",
                repository.outside.file_name().unwrap().to_string_lossy()
            ),
            "outside the repository",
        ),
        (".git/config".to_owned(), "inside a `.git` directory"),
    ] {
        write(
            root,
            ".podcycle.yaml",
            &format!("helm:\n  charts:\n  - path: web\n    values: [{values:?}]\n"),
        );
        let output = within(LIMIT, podcycle().current_dir(root).args(["check", "web"]));
        let text = all(&output);
        assert_eq!(code(&output), 2, "{values}: {text}");
        assert!(text.contains(words), "{values}: {text}");
        assert!(text.contains(".podcycle.yaml:4:"), "{values}: {text}");
        assert!(!text.contains(SECRET), "{values}: {text}");
    }
}

/// A chart whose Pod has an error, plus `{{ fail "dial tcp" }}`, was "not rendered: the
/// renderer tried to reach the network" and exited 0; a missing `connection refused.yaml` in
/// an overlay too. What a renderer that ran says decides nothing: both are findings.
fn a_message_that_names_the_network_is_still_a_finding() {
    let tree = tempfile::tempdir().unwrap();
    chart_with(
        tree.path(),
        &[
            ("pod.yaml", BAD),
            (
                "zz.yaml",
                "{{ fail \"dial tcp 127.0.0.1:80: connect: connection refused\" }}\n",
            ),
        ],
    );
    write(
        tree.path(),
        "app/kustomization.yaml",
        "resources: [pod.yaml, connection refused.yaml]\nlabels: [{pairs: {a: b}}]\n",
    );
    write(tree.path(), "app/pod.yaml", BAD);
    for input in ["web", "app"] {
        let output = within(
            LIMIT,
            podcycle()
                .current_dir(tree.path())
                .args(["check", "--format", "json", input]),
        );
        assert_eq!(code(&output), 1, "{input}: {}", all(&output));
        let findings: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
        assert!(
            findings.iter().any(|f| f["rule"] == "render-error"),
            "{input}: {findings:#?}"
        );
    }
}

/// `apiVersion: /builtin`, a `kind: List` and a generators directory with its own JSON patch on
/// `/files/0`, each with a ConfigMapGenerator of `cfg=.git/config` and a replacement into a
/// container name, printed the checkout's token under the recommended invocation. Refused now,
/// with nothing of `.git/config` printed.
fn plugin_configurations_spelled_otherwise_leak_nothing() {
    let generator = |api: &str| {
        format!(
            "apiVersion: {api}\nkind: ConfigMapGenerator\nmetadata: {{name: leak}}\noptions: {{disableNameSuffixHash: true}}\nfiles: [cfg=../.git/config]\n"
        )
    };
    let replacement = "replacements:\n- source: {kind: ConfigMap, name: leak, fieldPath: data.cfg}\n  targets:\n  - select: {kind: Pod}\n    fieldPaths: [spec.containers.0.name]\n";
    // Each case: its name, the overlay's kustomization, and its other files.
    type Files = Vec<(String, String)>;
    let cases: Vec<(&str, String, Files)> = vec![
        (
            "/builtin",
            format!("resources: [pod.yaml]\ngenerators: [g.yaml]\n{replacement}"),
            vec![("g.yaml".to_owned(), generator("/builtin"))],
        ),
        (
            "a List",
            format!("resources: [pod.yaml]\ngenerators: [g.yaml]\n{replacement}"),
            vec![(
                "g.yaml".to_owned(),
                format!(
                    "apiVersion: v1\nkind: List\nitems:\n- {}",
                    generator("builtin").replace('\n', "\n  ")
                ),
            )],
        ),
        (
            "a patched generators directory",
            format!("resources: [pod.yaml]\ngenerators: [gen]\n{replacement}"),
            vec![
                (
                    "gen/kustomization.yaml".to_owned(),
                    "resources: [g.yaml]\npatches:\n- target: {kind: ConfigMapGenerator}\n  patch: '[{\"op\": \"replace\", \"path\": \"/files/0\", \"value\": \"cfg=../../.git/config\"}]'\n".to_owned(),
                ),
                (
                    "gen/g.yaml".to_owned(),
                    "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\noptions: {disableNameSuffixHash: true}\nfiles: [cfg=ok.txt]\n".to_owned(),
                ),
                ("gen/ok.txt".to_owned(), "ok".to_owned()),
            ],
        ),
    ];
    for (name, kustomization, files) in cases {
        let repository = Repository::new();
        let root = &repository.root;
        write(root, "app/kustomization.yaml", &kustomization);
        write(root, "app/pod.yaml", GOOD);
        for (file, text) in &files {
            write(root, &format!("app/{file}"), text);
        }
        for isolated in [true, false] {
            let mut command = podcycle();
            command.current_dir(root).arg("check");
            if isolated {
                command.arg("--isolated");
            }
            let output = within(
                LIMIT,
                command.args(["--fail-on-unrendered", "--format", "json", "app"]),
            );
            let text = all(&output);
            assert!(!text.contains(SECRET), "{name}: {text}");
            assert_eq!(code(&output), 1, "{name}: {text}");
            assert!(text.contains("not rendered"), "{name}: {text}");
        }
    }
}

/// `transformers: [t.yaml]` with `t.yaml` an `apiVersion: /builtin` PatchTransformer of
/// `path: p.json`: changing only `p.json` to add a container named `Bad_Name` said "No problems
/// found" from the cache. The file the configuration loads is part of what the screen knows,
/// and so of the key.
fn a_file_a_plugin_configuration_loads_is_in_the_cache_key() {
    let repository = CachedRepository::new();
    let root = &repository.root;
    write(
        root,
        "app/kustomization.yaml",
        "resources: [pod.yaml]\ntransformers: [t.yaml]\n",
    );
    write(root, "app/pod.yaml", GOOD);
    write(
        root,
        "app/t.yaml",
        "apiVersion: /builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: p.json\ntarget: {kind: Pod}\n",
    );
    let patch = |name: &str| {
        format!(
            "[{{\"op\": \"add\", \"path\": \"/metadata/labels\", \"value\": {{\"patched\": \"yes\"}}}}, {{\"op\": \"add\", \"path\": \"/spec/containers/-\", \"value\": {{\"name\": \"{name}\", \"image\": \"busybox:1.36\"}}}}]"
        )
    };
    write(root, "app/p.json", &patch("extra"));
    let output = repository.check(&["app"]);
    assert_eq!(code(&output), 0, "{}", all(&output));
    write(root, "app/p.json", &patch("Bad_Name"));
    let output = repository.check(&["app"]);
    assert_eq!(code(&output), 1, "a stale render passed: {}", all(&output));
    assert!(stdout(&output).contains("Bad_Name"), "{}", all(&output));
}
