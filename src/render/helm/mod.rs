//! Helm charts: reading `Chart.yaml`, checking that dependencies are vendored or in the
//! repository, running `helm template`, and the source map from its output back to template
//! lines.

mod map;
pub(crate) mod template;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub(crate) use map::HelmMap;

use super::Tools;
use super::cache;
use super::failure::{self, Verdict};
use super::files::{ReadTextError, is_file, read_text};
use super::process::{Failure, run};
use super::sandbox::Access;
use super::stage;
use crate::versions::KubeVersion;
use crate::yaml;

/// What `Chart.yaml` (and a v1 chart's `requirements.yaml`) says.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    pub(crate) dir: PathBuf,
    pub(crate) name: String,
    /// `type: library`: templates for other charts, not installable on its own.
    pub(crate) library: bool,
    pub(crate) dependencies: Vec<Dependency>,
}

#[derive(Clone, Debug)]
pub(crate) struct Dependency {
    pub(crate) name: String,
    pub(crate) alias: Option<String>,
    /// `repository`: a chart repository's URL, `oci://…`, or `file://DIR` for a chart directory.
    pub(crate) repository: Option<String>,
    /// `version`: a version or a constraint.
    pub(crate) version: Option<String>,
}

impl Dependency {
    /// The directory of a `file://` dependency, as Helm resolves it
    /// (`internal/resolver/resolver.go`, `GetLocalPath`: the text after `file://`, joined to the
    /// chart's directory unless it starts with `/`).
    pub(crate) fn local_dir(&self, chart_dir: &Path) -> Option<PathBuf> {
        let path = self.repository.as_deref()?.strip_prefix("file://")?;
        Some(if path.starts_with('/') {
            PathBuf::from(path)
        } else {
            chart_dir.join(path)
        })
    }
}

/// How one chart is rendered.
#[derive(Clone, Debug, Default)]
pub(crate) struct HelmOptions {
    /// `helm template RELEASE`; Helm's own default is `release-name`.
    pub(crate) release: Option<String>,
    pub(crate) namespace: Option<String>,
    /// Values files after the chart's `values.yaml`, in order.
    pub(crate) values: Vec<PathBuf>,
    pub(crate) kube_version: Option<KubeVersion>,
}

/// Why a release name is not one Helm takes, if it is not: Helm's own check
/// (`pkg/chartutil/validate_name.go`, `ValidateReleaseName`: at most 53 characters matching
/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`). podcycle checks it
/// before anything runs: a name is given to `helm template` as an argument, and one that starts
/// with `-` would be read as a flag (`--post-renderer=/bin/sh`).
pub(crate) fn invalid_release(name: &str) -> Option<String> {
    const MAX: usize = 53;
    if name.is_empty() {
        return Some("a release name cannot be empty".to_owned());
    }
    if name.len() > MAX {
        return Some(format!(
            "the release name is {} characters long; Helm takes at most {MAX}",
            name.len()
        ));
    }
    let labels_fine = name.split('.').all(dns_label);
    (!labels_fine).then(|| {
        format!(
            "`{}` is not a release name Helm takes: lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit",
            crate::render::printable(name)
        )
    })
}

/// Why a namespace is not a valid namespace name, if it is not: a DNS-1123 label, as the API
/// server checks it (`k8s.io/apimachinery/pkg/api/validation/generic.go`,
/// `ValidateNamespaceName`, through `IsDNS1123Label` in `pkg/util/validation/validation.go`: at
/// most 63 characters matching `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`).
pub(crate) fn invalid_namespace(name: &str) -> Option<String> {
    const MAX: usize = 63;
    if name.len() > MAX {
        return Some(format!(
            "the namespace is {} characters long; a namespace name has at most {MAX}",
            name.len()
        ));
    }
    (!dns_label(name)).then(|| {
        format!(
            "`{}` is not a namespace name: lowercase letters, digits and `-`, starting and ending with a letter or digit",
            crate::render::printable(name)
        )
    })
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn dns_label(label: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    label.starts_with(alphanumeric)
        && label.ends_with(alphanumeric)
        && label.chars().all(|c| alphanumeric(c) || c == '-')
}

/// Whether a directory holds a chart.
pub(crate) fn is_chart(dir: &Path) -> bool {
    is_file(&dir.join("Chart.yaml"))
}

/// The chart directory a template file belongs to: the parent of the `templates/` directory
/// it is in (at any depth), when that parent has a `Chart.yaml`.
pub(crate) fn chart_of_template(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|dir| dir.file_name() == Some(OsStr::new("templates")))
        .and_then(Path::parent)
        .filter(|chart| is_chart(chart))
        .map(Path::to_owned)
}

/// Why a chart's `Chart.yaml` (or `requirements.yaml`) was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChartError {
    #[error(transparent)]
    Yaml(#[from] YamlFileError),
    #[error("Chart.yaml has no `name`")]
    NoName,
}

/// Why a YAML file was not read as a value.
#[derive(Debug, thiserror::Error)]
pub(crate) enum YamlFileError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: ReadTextError,
    },
    /// Not valid YAML, or YAML with no JSON value (a key that is not a string).
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

pub(crate) fn read_chart(dir: &Path) -> Result<Chart, ChartError> {
    let metadata = read_yaml_value(&dir.join("Chart.yaml"))?;
    let name = metadata
        .get("name")
        .and_then(Value::as_str)
        .ok_or(ChartError::NoName)?
        .to_owned();
    let library = metadata.get("type").and_then(Value::as_str) == Some("library");
    let mut dependencies = dependencies_in(&metadata);
    let requirements = dir.join("requirements.yaml");
    if dependencies.is_empty() && is_file(&requirements) {
        dependencies = dependencies_in(&read_yaml_value(&requirements)?);
    }
    Ok(Chart {
        dir: dir.to_owned(),
        name,
        library,
        dependencies,
    })
}

pub(super) fn dependencies_in(value: &Value) -> Vec<Dependency> {
    value
        .get("dependencies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            Some(Dependency {
                name: entry.get("name")?.as_str()?.to_owned(),
                alias: text("alias"),
                repository: text("repository"),
                version: text("version"),
            })
        })
        .collect()
}

/// Reads a YAML file's first document as JSON.
pub(crate) fn read_yaml_value(path: &Path) -> Result<Value, YamlFileError> {
    let invalid = |message: String| YamlFileError::Invalid {
        path: path.to_owned(),
        message,
    };
    let text = read_text(path).map_err(|source| YamlFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    let documents = yaml::parse_stream(&text);
    let Some(document) = documents.first() else {
        return Ok(Value::Null);
    };
    if let Some(error) = document.errors.first() {
        return Err(invalid(error.message.clone()));
    }
    let Some(root) = document.root else {
        return Ok(Value::Null);
    };
    yaml::to_json(document, root).map_err(|e| invalid(e.message))
}

/// The names of the charts vendored under a chart's `charts/` directory: directories that
/// hold a chart, and archives Helm reads as they are.
pub(crate) fn vendored(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir.join("charts")) else {
        return found;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if is_chart(&path) {
            if let Ok(chart) = read_chart(&path) {
                found.push(chart.name);
            }
        } else if path.extension() == Some(OsStr::new("tgz")) {
            let stem = path.file_stem().and_then(OsStr::to_str).unwrap_or_default();
            found.push(archive_chart_name(stem).to_owned());
        }
    }
    found
}

/// The chart a vendored archive holds, by its file's stem: `name-1.2.3.tgz` holds `name`,
/// everything before the first `-` that starts a version.
pub(super) fn archive_chart_name(stem: &str) -> &str {
    stem.char_indices()
        .filter(|&(i, c)| c == '-' && stem[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
        .map(|(i, _)| &stem[..i])
        .next()
        .unwrap_or(stem)
}

/// Dependencies that are neither vendored nor in the repository (`file://`): Helm would need
/// to download them, which podcycle never lets it do.
pub(crate) fn missing_dependencies(chart: &Chart) -> Vec<String> {
    let vendored = vendored(&chart.dir);
    chart
        .dependencies
        .iter()
        .filter(|dependency| !vendored.contains(&dependency.name))
        .filter(|dependency| dependency.local_dir(&chart.dir).is_none())
        .map(|dependency| dependency.name.clone())
        .collect()
}

/// The `file://` dependencies that are not vendored, to be copied into the chart's `charts/`
/// as `helm dependency build` does (`pkg/downloader/manager.go`: `downloadAll` hands a
/// `file://` dependency to `tarFromLocalDir`, which loads the directory with
/// `loader.LoadDir`, checks its version against the constraint and saves it as
/// `charts/NAME-VERSION.tgz`; no network is involved). A directory under `charts/` is loaded as
/// a subchart as an archive is (`pkg/chart/loader/load.go`, `LoadFiles`), so the copy is a
/// directory. Each is staged by the rules of the chart itself ([`stage`]): a dependency outside
/// the repository, or in `.git`, is refused, and only the files git tracks are copied. One
/// difference remains: Helm applies the dependency's own `.helmignore` when it packages it, and
/// the parent's when it loads a directory under `charts/`.
///
/// Why the chart cannot be rendered, when a dependency is not a chart directory or its
/// version does not satisfy an exact `version:` (a range is left unchecked).
pub(crate) fn local_dependencies(chart: &Chart) -> Result<Vec<stage::ChartDependency>, String> {
    let vendored = vendored(&chart.dir);
    let mut staged: Vec<stage::ChartDependency> = Vec::new();
    for dependency in &chart.dependencies {
        if vendored.contains(&dependency.name) {
            continue;
        }
        let Some(dir) = dependency.local_dir(&chart.dir) else {
            continue;
        };
        let shown = super::display(&dir);
        let repository = dependency.repository.as_deref().unwrap_or_default();
        if !is_chart(&dir) {
            return Err(format!(
                "dependency `{}` (`{}`): {shown} is not a chart directory (no Chart.yaml)",
                dependency.name,
                super::printable(repository)
            ));
        }
        let version = read_yaml_value(&dir.join("Chart.yaml"))
            .ok()
            .and_then(|metadata| metadata.get("version")?.as_str().map(str::to_owned));
        if let (Some(wanted), Some(version)) = (&dependency.version, &version)
            && exact_version(wanted).is_some()
            && exact_version(wanted) != exact_version(version)
        {
            return Err(format!(
                "dependency `{}` at version {} does not satisfy the constraint {} (`helm dependency build` refuses it)",
                dependency.name,
                super::printable(version),
                super::printable(wanted)
            ));
        }
        if staged.iter().any(|d| d.name == dependency.name) {
            // Aliases of one chart: `helm dependency build` saves it once.
            continue;
        }
        staged.push(stage::ChartDependency {
            dir,
            name: dependency.name.clone(),
            shown,
        });
    }
    Ok(staged)
}

/// Why the chart in `dir` cannot be rendered, when that is known without rendering it: its
/// `Chart.yaml` does not read, a dependency is neither vendored nor in the repository, or a
/// `file://` one is not a chart (what [`crate::render::render`] says of it).
pub(crate) fn cannot_render(dir: &Path) -> Option<String> {
    let chart = match read_chart(dir) {
        Ok(chart) => chart,
        Err(error) => return Some(error.to_string()),
    };
    let missing = missing_dependencies(&chart);
    if !missing.is_empty() {
        return Some(super::unvendored(&missing));
    }
    local_dependencies(&chart).err()
}

/// `MAJOR.MINOR.PATCH` of a version written exactly (`1.2.3`, `v1.2.3`), which Helm's
/// constraints (Masterminds' semver) read as `=1.2.3`; `None` for a range or anything else.
fn exact_version(text: &str) -> Option<[u64; 3]> {
    let text = text.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts = text.split('.').map(|part| part.parse::<u64>().ok());
    let version = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(version)
}

/// What `helm template` printed for a chart.
pub(crate) struct HelmOutput {
    pub(crate) text: String,
    /// Its warnings on standard error, temporary paths replaced by the user's.
    pub(crate) warnings: Vec<String>,
    /// What Helm was given, the only files the source map reads.
    pub(crate) staged: StagedChart,
}

/// The files of a chart's stage, and where in it the chart and the values files are.
#[derive(Debug)]
pub(crate) struct StagedChart {
    pub(crate) files: super::staged::StagedFiles,
    /// The chart's directory in the stage.
    pub(crate) chart: String,
    /// The values files given after the chart's own, in order.
    pub(crate) values: Vec<String>,
}

/// Runs `helm template` on a private copy of the chart ([`stage`]), with copies of the values
/// files; `shown` is the chart as users name it.
pub(crate) fn render(
    helm: &Path,
    chart: &Chart,
    shown: &str,
    options: &HelmOptions,
    tools: &Tools,
) -> Result<HelmOutput, Verdict> {
    // Checked wherever the options come from (configuration, command line, editor): nothing
    // of them may become a flag of Helm's.
    let release = options.release.as_deref().unwrap_or("release-name");
    if let Some(problem) = invalid_release(release) {
        return Err(Verdict::NotRendered(problem));
    }
    if let Some(problem) = options.namespace.as_deref().and_then(invalid_namespace) {
        return Err(Verdict::NotRendered(problem));
    }
    let dependencies = local_dependencies(chart).map_err(Verdict::NotRendered)?;
    let staged = stage::stage_with_dependencies(
        &chart.dir,
        shown,
        &options.values,
        &dependencies,
        &tools.listings,
        tools.untrusted,
    )
    .map_err(|error| Verdict::NotRendered(error.to_string()))?;
    let mut args: Vec<std::ffi::OsString> = vec!["template".into()];
    if let Some(namespace) = &options.namespace {
        args.push(format!("--namespace={namespace}").into());
    }
    for values in &staged.values {
        args.push("--values".into());
        args.push(values.clone().into_os_string());
    }
    if let Some(version) = options.kube_version {
        args.push("--kube-version".into());
        args.push(version.semver().into());
    }
    // Everything after `--` is positional, whatever it starts with.
    args.push("--".into());
    args.push(release.into());
    args.push(staged.chart.clone().into_os_string());
    // The key: the copy's digest, and the arguments with the copy's paths named as users
    // name them (the temporary directory differs from run to run).
    let key = tools.cache.as_ref().map(|cache| {
        let mut key = cache.key("helm");
        key.program(helm)
            .field(staged.digest)
            .field(shown)
            .field(super::sandbox::confinement().key());
        for arg in &args {
            key.field(staged.clean(&arg.to_string_lossy()));
        }
        key.finish()
    });
    let chart_file = chart.dir.join("Chart.yaml");
    let judge = |failed: &Failure| {
        let verdict = failure::helm(failed, &chart.dir, &|text| staged.clean(text));
        super::staged::refusal_within(
            verdict,
            &staged.files(&chart.dir, &options.values),
            &chart_file,
        )
    };
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let entry = cache::through(
        tools.cache.as_ref().zip(key.as_ref()),
        &staged.base,
        || {
            // Helm reads the copy and nothing else.
            let access = Access {
                read: vec![staged.base.clone()],
                write: Vec::new(),
            };
            run(
                helm,
                &args,
                &staged.chart,
                &access,
                &tools.limits,
                &tools.budget,
            )
        },
        &|text| staged.clean(text),
        &judge,
    )?;
    Ok(HelmOutput {
        text: entry.text,
        warnings: entry.warnings,
        staged: StagedChart {
            files: staged.files(&chart.dir, &options.values),
            chart: staged.chart_key(),
            values: staged.values_keys(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Helm's `ValidateReleaseName` and the API server's namespace names: what would be a flag
    /// (`--post-renderer=/bin/sh`) is neither.
    #[test]
    fn release_names_and_namespaces_are_checked_as_helm_and_kubernetes_do() {
        for good in ["release-name", "web", "a.b-c", "0x", &"a".repeat(53)] {
            assert_eq!(invalid_release(good), None, "{good}");
        }
        for bad in [
            "--post-renderer=/bin/sh",
            "-x",
            "",
            "Web",
            "web-",
            "a..b",
            "a b",
            "web_1",
            &"a".repeat(54),
        ] {
            assert!(invalid_release(bad).is_some(), "{bad}");
        }
        for good in ["default", "kube-system", "a", &"a".repeat(63)] {
            assert_eq!(invalid_namespace(good), None, "{good}");
        }
        for bad in ["--kubeconfig=/x", "", "a.b", "Shop", "-a", &"a".repeat(64)] {
            assert!(invalid_namespace(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn templates_belong_to_their_chart() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("web");
        std::fs::create_dir_all(chart.join("templates/sub")).unwrap();
        std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: web\nversion: 1.0.0\ndependencies:\n- name: redis\n  version: 1.x\n- name: common\n  alias: lib\n").unwrap();
        assert_eq!(
            chart_of_template(&chart.join("templates/sub/deploy.yaml")),
            Some(chart.clone())
        );
        assert_eq!(chart_of_template(&chart.join("values.yaml")), None);
        let read = read_chart(&chart).unwrap();
        assert_eq!(read.name, "web");
        assert_eq!(read.dependencies[1].alias.as_deref(), Some("lib"));
        assert_eq!(missing_dependencies(&read), ["redis", "common"]);
        std::fs::create_dir_all(chart.join("charts/common")).unwrap();
        std::fs::write(
            chart.join("charts/common/Chart.yaml"),
            "name: common\ntype: library\n",
        )
        .unwrap();
        std::fs::write(chart.join("charts/redis-17.3.1.tgz"), "").unwrap();
        assert!(missing_dependencies(&read).is_empty());
    }
}
