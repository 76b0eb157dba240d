//! The command line: `podcycle check`, `podcycle explain`, `podcycle rules`,
//! `podcycle rule NAME`.

mod check;
mod configs;
mod explain;
mod files;
mod init;
mod rules;
mod statistics;
mod values;
mod write_fixes;
mod write_ignores;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::explain::ExplainFormat;
use crate::report::Format;
pub(crate) use crate::settings::FailOn;

#[derive(Debug, Parser)]
#[command(
    name = "podcycle",
    version,
    about = "A Kubernetes manifest linter that understands the Pod lifecycle",
    long_about = "podcycle reads Pod and workload manifests, derives the order in which the kubelet \
starts and stops their containers, and reports what fails at deploy time or at runtime, at the \
exact line and column."
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lint files and directories (recursively); `-` reads standard input.
    Check(Box<CheckArgs>),
    /// Show the order in which the kubelet starts and stops each pod's containers, with the
    /// time budgets of probes, hooks and the grace period, and the findings of `check`.
    Explain(Box<ExplainArgs>),
    /// List every rule with its category and default severity.
    Rules(RulesArgs),
    /// Print one rule's documentation.
    Rule {
        /// The rule's name, e.g. `prestop-exceeds-grace-period`.
        name: String,
    },
    /// Run the language server on standard input and output, for editors.
    Lsp(LspArgs),
    /// Write a commented starter configuration, `.podcycle.yaml`.
    Init(InitArgs),
    /// Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Where to write it; `-` prints it instead.
    #[arg(default_value = ".podcycle.yaml")]
    pub(crate) path: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    pub(crate) force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Files or directories to lint; `-` reads standard input. Defaults to the current
    /// directory.
    pub(crate) paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Full)]
    pub(crate) format: Format,
    /// Rules or categories to run instead of the defaults (comma-separated; `all` for every
    /// rule).
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub(crate) select: Vec<String>,
    /// Rules or categories to run in addition to the selected ones.
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub(crate) extend_select: Vec<String>,
    /// Rules or categories not to run.
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub(crate) ignore: Vec<String>,
    /// Exit with 1 when a finding at or above this severity is reported [default: warning,
    /// or `fail-on` from the configuration].
    #[arg(long, value_enum)]
    pub(crate) fail_on: Option<FailOn>,
    /// The file name to report for standard input; the configuration nearest to it applies.
    /// Without paths, standard input is read; beside paths, give `-` too.
    #[arg(long, value_name = "NAME")]
    pub(crate) stdin_filename: Option<String>,
    /// Skip files and directories matching this glob while walking directories
    /// (repeatable). Files named on the command line are linted unless `--force-exclude` is
    /// given.
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// The Kubernetes version of the cluster, e.g. `1.29` or `1.35.2` (`v1.35.2` as `kubectl
    /// version` prints it): rules judge features by what this version has and enables by
    /// default. A minor alone means its newest patch release; give the patch where a default
    /// changed in one (MaxUnavailableStatefulSet: on in 1.35.0 to 1.35.3) [default:
    /// `kube-version` from the configuration, else the newest version modelled].
    #[arg(long, value_name = "X.Y[.Z]", value_parser = parse_kube_version)]
    pub(crate) kube_version: Option<crate::versions::KubeVersion>,
    /// The platforms that stop the cluster's pods (`gke-spot`, `aws-spot`, `azure-spot`,
    /// `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are
    /// judged against their notices, grace caps and drain timeouts [default: `platforms` from
    /// the configuration; pods that select Spot nodes are judged against that platform anyway].
    #[arg(long = "platform", value_name = "NAME,...", value_delimiter = ',', value_parser = parse_platform)]
    pub(crate) platforms: Vec<&'static crate::lifecycle::platforms::Platform>,
    /// Apply `--exclude` and the configuration's `exclude` to files named on the command
    /// line too (for pre-commit, which names every changed file).
    #[arg(long)]
    pub(crate) force_exclude: bool,
    /// Write the report to FILE instead of standard output; the summary and counts still go
    /// to standard error.
    #[arg(long, short, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Use this configuration file for every linted file instead of the nearest
    /// `.podcycle.yaml` above each.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub(crate) config: Option<PathBuf>,
    /// Ignore configuration files.
    #[arg(long)]
    pub(crate) no_config: bool,
    /// When to use colours in the full and concise formats [auto: on a terminal, unless
    /// `NO_COLOR`, `CLICOLOR=0` or `TERM=dumb`; `CLICOLOR_FORCE` forces them].
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    /// Read only the configuration named with `--config` (none without it), and honour no
    /// ignore files (`.gitignore`, `.ignore`): for CI on pull requests, where those files are
    /// part of the change under review.
    #[arg(long)]
    pub(crate) isolated: bool,
    /// List the files that would be linted, the charts and overlays that would be rendered, and
    /// what is skipped and why; lint nothing.
    #[arg(long)]
    pub(crate) show_files: bool,
    /// Exit with 1 when a chart or overlay could not be rendered [default: only one that a
    /// file named on the command line is checked through (a values file, a template, a patch);
    /// or `fail-on-unrendered` from the configuration].
    #[arg(
        long,
        help_heading = "Rendering",
        conflicts_with = "no_fail_on_unrendered"
    )]
    pub(crate) fail_on_unrendered: bool,
    /// Never exit with 1 because a chart or overlay could not be rendered, also when a named
    /// file is checked only through it (a repository that does not install helm); it is
    /// still said.
    #[arg(long, help_heading = "Rendering")]
    pub(crate) no_fail_on_unrendered: bool,
    #[command(flatten)]
    pub(crate) render: RenderArgs,
    /// Apply the fixes of the findings that have one, then report what is left. Only safe
    /// fixes, unless `--unsafe-fixes` is given; JSON files and standard input are not edited.
    #[arg(long, help_heading = "Fixing")]
    pub(crate) fix: bool,
    /// Print the changes `--fix` would make as a unified diff, and change nothing; exits
    /// with 1 when there are some.
    #[arg(long, help_heading = "Fixing", conflicts_with_all = ["add_ignore", "write_baseline"])]
    pub(crate) diff: bool,
    /// With `--fix` or `--diff`, also apply fixes that change behaviour beyond the finding
    /// (`podcycle rule NAME` says which).
    #[arg(long, help_heading = "Fixing")]
    pub(crate) unsafe_fixes: bool,
    /// Report only the findings not recorded in this baseline (written by
    /// `--write-baseline`).
    #[arg(long, value_name = "FILE", help_heading = "Adopting")]
    pub(crate) baseline: Option<PathBuf>,
    /// The directory the paths in the `--config` and `--baseline` files are relative to
    /// [default: each file's own directory]: for CI, which keeps the base branch's copies of
    /// them outside the checkout.
    #[arg(long, value_name = "DIR")]
    pub(crate) settings_root: Option<PathBuf>,
    /// Record the current findings in FILE, for `--baseline`, instead of reporting them.
    #[arg(long, value_name = "FILE", help_heading = "Adopting", conflicts_with_all = ["baseline", "fix", "add_ignore", "statistics"])]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Silence every current finding with a `# podcycle: ignore[rule] REASON` comment above
    /// its line (the reason is required: `--add-ignore "known before rollout"`).
    #[arg(long, value_name = "REASON", help_heading = "Adopting", conflicts_with_all = ["fix", "statistics"])]
    pub(crate) add_ignore: Option<String>,
    /// Print how many findings each rule has, and how many are fixable, instead of the
    /// findings (a table, or JSON with `--format json`).
    #[arg(long)]
    pub(crate) statistics: bool,
    /// Print the settings that apply to FILE — the configuration file they come from, the
    /// rules and their severities, the Kubernetes version — and exit.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff", "add_ignore", "write_baseline", "statistics"])]
    pub(crate) show_settings: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// Files or directories with manifests; `-` reads standard input. Defaults to the current
    /// directory.
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Explain only this object, written as kubectl does: `Deployment/web`, `deploy/web`.
    #[arg(long, value_name = "KIND/NAME")]
    pub(crate) object: Option<String>,
    /// Show only this container's part of the timeline, notes and findings.
    #[arg(long, value_name = "NAME")]
    pub(crate) container: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub(crate) format: ExplainFormat,
    /// Explain what the controllers do with each workload's pods instead: a Deployment's
    /// waves, a StatefulSet's ordinals, a DaemonSet's rounds, a Job's attempts, against their
    /// deadlines and disruption budgets.
    #[arg(long, conflicts_with = "container")]
    pub(crate) rollout: bool,
    /// The Kubernetes version of the cluster (`1.29`, `1.35.2`; a minor alone is its newest
    /// patch release), for the findings listed under each timeline and the rollout's counts
    /// [default: `kube-version` from the configuration, else the newest version modelled].
    #[arg(long, value_name = "X.Y[.Z]", value_parser = parse_kube_version)]
    pub(crate) kube_version: Option<crate::versions::KubeVersion>,
    /// The platforms that stop the cluster's pods (`gke-spot`, `aws-spot`, `azure-spot`,
    /// `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are
    /// judged against their notices, grace caps and drain timeouts [default: `platforms` from
    /// the configuration; pods that select Spot nodes are judged against that platform anyway].
    #[arg(long = "platform", value_name = "NAME,...", value_delimiter = ',', value_parser = parse_platform)]
    pub(crate) platforms: Vec<&'static crate::lifecycle::platforms::Platform>,
    /// Use this configuration file for every file instead of the nearest `.podcycle.yaml`
    /// above each.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub(crate) config: Option<PathBuf>,
    /// Ignore configuration files.
    #[arg(long)]
    pub(crate) no_config: bool,
    /// Read only the configuration named with `--config` (none without it), and render as
    /// `check --isolated` does: what is explained is not trusted.
    #[arg(long)]
    pub(crate) isolated: bool,
    #[command(flatten)]
    pub(crate) render: RenderArgs,
}

#[derive(Debug, Args)]
pub(crate) struct LspArgs {
    /// The workspace is not trusted: render nothing, and take no editor setting that changes
    /// what runs (the configuration file, rendering). Editors start the server this way in a
    /// workspace the user has not trusted.
    #[arg(long)]
    pub(crate) isolated: bool,
}

/// How charts and overlays are rendered: the same for `check` and `explain`.
#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// Do not render Helm charts or build Kustomize overlays (each is reported as not rendered).
    #[arg(long, help_heading = "Rendering")]
    pub(crate) no_render: bool,
    /// Show what each renderer printed on standard error (Helm's and Kustomize's warnings) in
    /// full, instead of a count per renderer.
    #[arg(long, help_heading = "Rendering")]
    pub(crate) verbose: bool,
    /// The `helm` executable [default: `helm` on PATH].
    #[arg(long, value_name = "PATH", help_heading = "Rendering")]
    pub(crate) helm: Option<PathBuf>,
    /// The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH].
    #[arg(long, value_name = "PATH", help_heading = "Rendering")]
    pub(crate) kustomize: Option<PathBuf>,
    /// Stop a renderer that runs longer than this.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        help_heading = "Rendering"
    )]
    pub(crate) render_timeout: u64,
    /// Stop rendering when the run has spent this long on it, over all its charts and
    /// overlays; what is left is reported as not rendered.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        help_heading = "Rendering"
    )]
    pub(crate) render_budget: u64,
    /// Stop a renderer that uses more memory than this.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = 1024,
        value_parser = clap::value_parser!(u64).range(64..=1_048_576),
        help_heading = "Rendering"
    )]
    pub(crate) render_memory: u64,
    /// A values file for every chart rendered in this run, after the chart's own `values.yaml`
    /// and those the configuration names (repeatable).
    #[arg(long, value_name = "FILE", help_heading = "Rendering")]
    pub(crate) helm_values: Vec<PathBuf>,
    /// The release name charts are rendered with [default: from the configuration, else
    /// Helm's `release-name`].
    #[arg(long, value_name = "NAME", help_heading = "Rendering")]
    pub(crate) helm_release: Option<String>,
    /// The namespace charts are rendered for [default: from the configuration].
    #[arg(long, value_name = "NAMESPACE", help_heading = "Rendering")]
    pub(crate) helm_namespace: Option<String>,
    /// Render every chart and overlay again instead of reusing renders kept from earlier runs
    /// (also `PODCYCLE_NO_CACHE=1`).
    #[arg(long, help_heading = "Rendering")]
    pub(crate) no_cache: bool,
    /// Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else
    /// `.podcycle_cache` at the repository's root].
    #[arg(long, value_name = "DIR", help_heading = "Rendering")]
    pub(crate) cache_dir: Option<PathBuf>,
}

impl RenderArgs {
    /// The renderers and their limits; `untrusted` with `--isolated`.
    fn rendering(&self, untrusted: bool) -> crate::run::Rendering {
        crate::run::Rendering {
            untrusted,
            disabled: self.no_render,
            verbose: self.verbose,
            helm: self.helm.clone(),
            kustomize: self.kustomize.clone(),
            timeout: std::time::Duration::from_secs(self.render_timeout),
            budget: std::time::Duration::from_secs(self.render_budget),
            memory: self.render_memory << 20,
            cache: self.cache(),
        }
    }

    /// Where renders are kept: `--no-cache` (or `PODCYCLE_NO_CACHE`) for nowhere, else
    /// `--cache-dir`, `PODCYCLE_CACHE_DIR`, the repository's `.podcycle_cache`.
    fn cache(&self) -> crate::run::CacheChoice {
        let no_cache = std::env::var_os("PODCYCLE_NO_CACHE")
            .is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
        if self.no_cache || no_cache {
            return crate::run::CacheChoice::Off;
        }
        let from_env = std::env::var_os("PODCYCLE_CACHE_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        match self.cache_dir.clone().or(from_env) {
            Some(dir) => crate::run::CacheChoice::Dir(dir),
            None => crate::run::CacheChoice::AtRoot,
        }
    }

    /// `--helm-release`, `--helm-namespace`, `--helm-values`.
    fn helm_overrides(&self) -> crate::run::HelmOverrides {
        crate::run::HelmOverrides {
            release: self.helm_release.clone(),
            namespace: self.helm_namespace.clone(),
            values: self.helm_values.clone(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub(crate) struct RulesArgs {
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    pub(crate) format: RulesFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RulesFormat {
    Text,
    Json,
}

/// Exit codes: nothing at or above the fail level, findings at or above it, usage or I/O
/// error. `explain` exits with 1 when it finds no pod spec to explain.
pub(crate) const EXIT_CLEAN: u8 = 0;
pub(crate) const EXIT_FINDINGS: u8 = 1;
pub(crate) const EXIT_ERROR: u8 = 2;

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help and version on stdout with code 0, and usage errors with code 2.
        Err(error) => error.exit(),
    };
    let result = match cli.command {
        Command::Check(args) => match &args.show_settings {
            Some(file) => check::show_settings(&args, file),
            None => check::run(&args),
        },
        Command::Explain(args) => explain::run(&args),
        Command::Rules(args) => rules::list(args.format),
        Command::Rule { name } => rules::show(&name),
        Command::Lsp(args) => crate::lsp::run_stdio(args.isolated),
        Command::Init(args) => init::run(&args),
        Command::Completions { shell } => completions(shell),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`podcycle check | head`) is not an error worth a message.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_CLEAN),
        Err(error) => {
            let _ = eprint_line(format_args!("podcycle: error: {error}"));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Prints the completion script for `shell`, generated from the command-line definition.
fn completions(shell: clap_complete::Shell) -> io::Result<u8> {
    let mut out = io::stdout().lock();
    write_completions(shell, &mut out)?;
    out.flush()?;
    Ok(EXIT_CLEAN)
}

/// The completion script for `shell`; the tests compare it with the committed copies.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) -> io::Result<()> {
    use clap::CommandFactory;
    let mut command = Cli::command();
    // Generated in memory: clap_complete panics when its writer fails, and a closed pipe
    // (`podcycle completions bash | head`) is not worth a panic.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "podcycle", &mut script);
    out.write_all(&script)
}

fn parse_platform(text: &str) -> Result<&'static crate::lifecycle::platforms::Platform, String> {
    use crate::lifecycle::platforms;
    platforms::platform(text).ok_or_else(|| {
        let known: Vec<&str> = platforms::names().collect();
        format!(
            "unknown platform `{text}`; the platforms are {}",
            known.join(", ")
        )
    })
}

fn parse_kube_version(
    text: &str,
) -> Result<crate::versions::KubeVersion, crate::versions::BadKubeVersion> {
    text.parse()
}

/// Whether to colour what goes to `stream` when `--color auto`: the conventions anstream reads
/// (`NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR=0`, `TERM=dumb`, CI), and a terminal.
fn colors(stream: &impl anstream::stream::RawStream) -> bool {
    anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never
}

/// Colour for messages on stderr (configuration errors), by the same flag.
fn stderr_colors(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => colors(&io::stderr()),
    }
}

/// Prints a usage-level error and returns the exit code for it.
fn usage_error(message: &str) -> u8 {
    let _ = eprint_line(format_args!("podcycle: error: {message}"));
    EXIT_ERROR
}

/// Writes one line on standard error with control characters escaped: messages carry file
/// names from the repository and names from manifests (see [`crate::escape`]).
fn eprint_line(line: std::fmt::Arguments<'_>) -> io::Result<()> {
    let line = line.to_string();
    writeln!(io::stderr(), "{}", crate::escape::escape_controls(&line))
}

/// Lints `text` as `path` and renders it as the full format without colour; returns each
/// diagnostic's (line, severity, rule) too. Shared by the fixture and snapshot tests.
#[cfg(feature = "testing")]
pub fn render_for_tests(
    path: &str,
    text: &str,
    settings: &crate::settings::Settings,
) -> (Vec<(usize, String, String)>, String) {
    let plan = crate::run::FilePlan::new(settings.clone(), crate::lint::FileRole::Manifest);
    let report = crate::run::lint_bytes(
        path.to_owned(),
        text.as_bytes().to_vec(),
        &plan,
        &mut |_| {},
    );
    let located = report
        .diagnostics
        .iter()
        .map(|d| {
            (
                report.file.line_col(d.span.start).line,
                d.severity.to_string(),
                d.rule.to_owned(),
            )
        })
        .collect();
    let mut out = Vec::new();
    crate::report::write(
        &mut out,
        Format::Full,
        std::slice::from_ref(&report),
        &crate::report::Options::default(),
    )
    .expect("writing to memory");
    (located, String::from_utf8_lossy(&out).into_owned())
}

/// Explains `text` as `path` in `format`, the way `podcycle explain` does (all objects, all
/// containers) with the default settings. Shared by the snapshot tests and the docs test.
#[cfg(feature = "testing")]
pub fn explain_for_tests(path: &str, text: &str, format: ExplainFormat) -> String {
    explain::explain_text(
        path,
        text,
        &crate::settings::Settings::default(),
        format,
        false,
    )
}

/// What `podcycle explain --rollout` prints for `text` read as `path`, with `settings`.
#[cfg(feature = "testing")]
pub fn explain_rollout_for_tests(
    path: &str,
    text: &str,
    format: ExplainFormat,
    settings: &crate::settings::Settings,
) -> String {
    explain::explain_text(path, text, settings, format, true)
}

/// [`explain_for_tests`] with the given settings (a `--kube-version`, say).
#[cfg(feature = "testing")]
pub fn explain_for_tests_with(
    path: &str,
    text: &str,
    format: ExplainFormat,
    settings: &crate::settings::Settings,
) -> String {
    explain::explain_text(path, text, settings, format, false)
}
