//! Containers podcycle knows by name, image or program: the sidecars that other containers
//! depend on (service-mesh and database proxies, secret agents, log shippers) and server
//! images that keep running with their own command. This is the one list; the configuration's
//! `sidecars` patterns extend it, and docs/configuration.md shows it (generated, checked by a
//! test).
//!
//! A name or an image is a guess about what runs; `command` and `args` say what does, so they
//! decide first: an Istio `proxyv2` image run with no arguments prints its help and exits, and
//! one run with `pilot-agent wait` waits for another proxy and exits too.

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::argv::{Run, container_argv, resolve};
use crate::model::core::Container;

/// What a known container is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KnownKind {
    /// Runs beside the app, which depends on it.
    Sidecar,
    /// A server; not something other containers wait for.
    Server,
}

/// A well-known container.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct KnownContainer {
    /// What it is, for messages: `Istio proxy`.
    pub(crate) description: &'static str,
    pub(crate) kind: KnownKind,
    /// Container names that identify it.
    pub(crate) names: &'static [&'static str],
    /// Image repositories (without registry host, tag or digest) that identify it; matched
    /// against the end of the image's repository path (`nginx` against its last part).
    pub(crate) images: &'static [&'static str],
    /// Programs that run it in the foreground, by base name.
    pub(crate) programs: &'static [&'static str],
    /// The image's own entrypoint and command run it when the container sets neither
    /// `command` nor `args`.
    pub(crate) runs_by_default: bool,
    /// Arguments that make the program do something else and exit (`--version`, Istio's
    /// `pilot-agent wait`).
    pub(crate) exits_with: &'static [&'static str],
}

/// Arguments with which any of these programs prints something and exits.
const EXITS_WITH: &[&str] = &["-h", "--help", "help", "-v", "--version", "version"];

pub(crate) const KNOWN_CONTAINERS: &[KnownContainer] = &[
    KnownContainer {
        description: "Istio proxy",
        kind: KnownKind::Sidecar,
        names: &["istio-proxy"],
        images: &["istio/proxyv2", "istio/proxy_debug"],
        programs: &["pilot-agent"],
        runs_by_default: false,
        exits_with: &["wait", "request"],
    },
    KnownContainer {
        description: "Linkerd proxy",
        kind: KnownKind::Sidecar,
        names: &["linkerd-proxy"],
        images: &["linkerd/proxy"],
        programs: &["linkerd2-proxy"],
        runs_by_default: true,
        exits_with: &[],
    },
    KnownContainer {
        description: "Envoy proxy",
        kind: KnownKind::Sidecar,
        names: &["envoy", "envoy-proxy", "envoy-sidecar"],
        images: &["envoyproxy/envoy", "envoyproxy/envoy-distroless"],
        programs: &["envoy"],
        runs_by_default: true,
        exits_with: &[],
    },
    KnownContainer {
        description: "Cloud SQL Auth Proxy",
        kind: KnownKind::Sidecar,
        names: &["cloud-sql-proxy", "cloudsql-proxy"],
        images: &[
            "cloud-sql-connectors/cloud-sql-proxy",
            "cloudsql-docker/gce-proxy",
        ],
        programs: &["cloud-sql-proxy", "cloud_sql_proxy"],
        // Without an instance to connect to it reports the missing argument and exits.
        runs_by_default: false,
        exits_with: &[],
    },
    KnownContainer {
        description: "Vault Agent",
        kind: KnownKind::Sidecar,
        names: &["vault-agent"],
        images: &[],
        programs: &[],
        runs_by_default: false,
        exits_with: &["-exit-after-auth"],
    },
    KnownContainer {
        description: "Fluent Bit log shipper",
        kind: KnownKind::Sidecar,
        names: &["fluent-bit", "fluentbit"],
        images: &["fluent/fluent-bit"],
        programs: &["fluent-bit"],
        runs_by_default: true,
        exits_with: &["--dry-run"],
    },
    KnownContainer {
        description: "Fluentd log shipper",
        kind: KnownKind::Sidecar,
        names: &["fluentd"],
        images: &["fluent/fluentd"],
        programs: &["fluentd"],
        runs_by_default: true,
        exits_with: &["--dry-run"],
    },
    KnownContainer {
        description: "Filebeat log shipper",
        kind: KnownKind::Sidecar,
        names: &["filebeat"],
        images: &["beats/filebeat"],
        programs: &["filebeat"],
        runs_by_default: true,
        exits_with: &["test"],
    },
    KnownContainer {
        description: "Promtail log shipper",
        kind: KnownKind::Sidecar,
        names: &["promtail"],
        images: &["grafana/promtail"],
        programs: &["promtail"],
        runs_by_default: true,
        exits_with: &["-check-syntax", "-dry-run"],
    },
    server("nginx", &["nginx", "nginx-unprivileged"]),
    server("httpd", &["httpd"]),
    server("redis", &["redis"]),
    server("memcached", &["memcached"]),
    server("mongo", &["mongo"]),
    server("rabbitmq", &["rabbitmq"]),
    server("traefik", &["traefik"]),
    server("caddy", &["caddy"]),
];

const fn server(description: &'static str, images: &'static [&'static str]) -> KnownContainer {
    KnownContainer {
        description,
        kind: KnownKind::Server,
        names: &[],
        images,
        programs: &[],
        runs_by_default: true,
        exits_with: &[],
    }
}

impl KnownContainer {
    /// Whether `image` is one of this container's repositories.
    pub(crate) fn has_image(&self, image: &str) -> bool {
        let repository = image_repository(image);
        self.images.iter().any(|known| {
            if known.contains('/') {
                repository == *known || repository.ends_with(&format!("/{known}"))
            } else {
                repository.rsplit('/').next() == Some(*known)
            }
        })
    }

    /// Whether these arguments make the program exit at once.
    pub(super) fn exits_with_args<S: AsRef<str>>(&self, args: &[S]) -> bool {
        args.iter().any(|arg| {
            let arg = arg.as_ref();
            EXITS_WITH.contains(&arg) || self.exits_with.contains(&arg)
        })
    }

    fn runs_program(&self, program: &str) -> bool {
        self.programs.contains(&program)
    }
}

/// The known sidecars, for documentation: one Markdown bullet each, with the names, images
/// and programs that identify it.
pub(crate) fn known_sidecars_markdown() -> String {
    let code = |items: &[&str]| {
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    for known in KNOWN_CONTAINERS
        .iter()
        .filter(|k| k.kind == KnownKind::Sidecar)
    {
        let mut by = Vec::new();
        if !known.names.is_empty() {
            by.push(format!("named {}", code(known.names)));
        }
        if !known.images.is_empty() {
            by.push(format!("image {}", code(known.images)));
        }
        if !known.programs.is_empty() {
            by.push(format!("program {}", code(known.programs)));
        }
        out.push_str(&format!("- {}: {}\n", known.description, by.join("; ")));
    }
    out
}

/// A known program running in the foreground of `argv`: the program itself, or a top-level
/// command of its shell script. With the program's arguments.
pub(super) fn foreground_program(argv: &[&str]) -> Option<(&'static KnownContainer, Vec<String>)> {
    let find = |name: &str| KNOWN_CONTAINERS.iter().find(|k| k.runs_program(name));
    let owned = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect();
    match resolve(argv)? {
        Run::Program { name, args, .. } => find(name).map(|k| (k, owned(args))),
        Run::Script { script, .. } => super::shell::script_foreground(script, |words| {
            let (&first, rest) = words.split_first()?;
            find(super::argv::basename(first)).map(|k| (k, owned(rest)))
        }),
    }
}

/// The well-known sidecar a container is. Its `command` and `args` decide first: a known
/// sidecar program in the foreground is that sidecar, unless its arguments make it exit; with
/// `args` alone, the image's entrypoint runs them; with neither, the image's own command
/// runs, which for some images (Istio's `proxyv2`) is not the proxy. When the command shows
/// nothing known, the container's name still says what it is meant to be; its image does not.
pub(crate) fn recognise(container: &Container) -> Option<&'static KnownContainer> {
    let sidecars = || {
        KNOWN_CONTAINERS
            .iter()
            .filter(|k| k.kind == KnownKind::Sidecar)
    };
    let by_name = sidecars().find(|k| k.names.contains(&container.name.as_str()));
    let by_image = container
        .image
        .as_deref()
        .and_then(|image| sidecars().find(|k| k.has_image(image)));
    if let Some((argv, _)) = container_argv(container) {
        if let Some((known, args)) = foreground_program(&argv) {
            return (known.kind == KnownKind::Sidecar && !known.exits_with_args(&args))
                .then_some(known);
        }
        return by_name;
    }
    let args = container.args.as_deref().unwrap_or_default();
    if args.is_empty() {
        // The image's own command runs.
        return match by_image {
            Some(image) => image.runs_by_default.then_some(by_name.unwrap_or(image)),
            None => by_name,
        };
    }
    // The image's entrypoint runs the arguments.
    let known = by_name.or(by_image)?;
    (!known.exits_with_args(args)).then_some(known)
}

/// What counts as a sidecar by name or image: the built-in list, then the configured patterns.
#[derive(Clone, Debug, Default)]
pub struct Sidecars {
    extra: Vec<SidecarPattern>,
}

impl Sidecars {
    pub(crate) fn new(extra: Vec<SidecarPattern>) -> Sidecars {
        Sidecars { extra }
    }

    /// What the container is, when it is a sidecar by name or image.
    pub(crate) fn recognise(&self, container: &Container) -> Option<&str> {
        if let Some(known) = recognise(container) {
            return Some(known.description);
        }
        let repository = container.image.as_deref().map(image_repository);
        self.extra
            .iter()
            .find(|pattern| {
                pattern.names.is_match(&container.name)
                    || repository.is_some_and(|repo| pattern.images.is_match(repo))
            })
            .map(|pattern| pattern.description.as_str())
    }
}

/// Configured container-name and image patterns (globs) that identify a sidecar.
#[derive(Clone)]
pub(crate) struct SidecarPattern {
    description: String,
    names: GlobSet,
    images: GlobSet,
    /// The patterns as written, which the compiled sets do not give back.
    written: (Vec<String>, Vec<String>),
}

/// The pattern as configured: what tells two patterns apart (the settings' fingerprint).
impl std::fmt::Debug for SidecarPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SidecarPattern")
            .field("description", &self.description)
            .field("names", &self.written.0)
            .field("images", &self.written.1)
            .finish()
    }
}

impl SidecarPattern {
    /// Image patterns match the repository without tag or digest, at its end, as the built-in
    /// ones do: `mesh/proxy` matches `registry.example.com/mesh/proxy:1.2`. A pattern that does
    /// not compile is returned with the error.
    pub(crate) fn new(
        description: Option<&str>,
        names: &[String],
        images: &[String],
    ) -> Result<SidecarPattern, (String, globset::Error)> {
        let compile = |patterns: &mut dyn Iterator<Item = (String, String)>| {
            let mut builder = GlobSetBuilder::new();
            for (written, glob) in patterns {
                builder.add(Glob::new(&glob).map_err(|e| (written, e))?);
            }
            builder.build().map_err(|e| (String::new(), e))
        };
        let written = (names.to_vec(), images.to_vec());
        let names = compile(&mut names.iter().map(|n| (n.clone(), n.clone())))?;
        let images = compile(
            &mut images
                .iter()
                .flat_map(|i| [(i.clone(), i.clone()), (i.clone(), format!("*/{i}"))]),
        )?;
        Ok(SidecarPattern {
            description: description.unwrap_or("configured sidecar").to_owned(),
            names,
            images,
            written,
        })
    }
}

/// `docker.io/istio/proxyv2:1.22@sha256:…` → `docker.io/istio/proxyv2`.
pub(super) fn image_repository(image: &str) -> &str {
    let without_digest = image.split('@').next().unwrap_or(image);
    // A colon after the last slash starts the tag; one before it belongs to a registry port.
    match without_digest.rfind(':') {
        Some(colon) if !without_digest[colon..].contains('/') => &without_digest[..colon],
        _ => without_digest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(name: &str, image: &str) -> Container {
        Container {
            name: name.to_owned(),
            image: Some(image.to_owned()),
            ..Container::default()
        }
    }

    fn with_argv(mut c: Container, command: &[&str], args: &[&str]) -> Container {
        let owned =
            |v: &[&str]| (!v.is_empty()).then(|| v.iter().map(|s| (*s).to_owned()).collect());
        c.command = owned(command);
        c.args = owned(args);
        c
    }

    #[test]
    fn recognises_by_name_or_image() {
        let described = |c: Container| recognise(&c).map(|k| k.description);
        assert_eq!(
            described(container("istio-proxy", "x")),
            Some("Istio proxy")
        );
        assert_eq!(
            described(container("p", "registry:5000/envoyproxy/envoy@sha256:abc")),
            Some("Envoy proxy")
        );
        assert_eq!(described(container("web", "nginx:1.25")), None);
        assert_eq!(described(container("app", "example.com/myproxyv2:1")), None);
    }

    #[test]
    fn command_and_args_decide_before_the_image() {
        let described = |c: Container| recognise(&c).map(|k| k.description);
        // Istio's proxy image without arguments prints its help and exits.
        assert_eq!(
            described(container("mesh", "docker.io/istio/proxyv2:1.22.0")),
            None
        );
        let proxy = with_argv(
            container("mesh", "istio/proxyv2:1.22"),
            &[],
            &["proxy", "sidecar"],
        );
        assert_eq!(described(proxy), Some("Istio proxy"));
        let wait = with_argv(
            container("mesh", "istio/proxyv2:1.22"),
            &["pilot-agent", "wait"],
            &[],
        );
        assert_eq!(described(wait), None);
        // A script that runs the proxy in the foreground is the proxy, whatever the image.
        let script = with_argv(
            container("edge", "example/base:1"),
            &[
                "sh",
                "-c",
                "cp /cfg /etc/envoy.yaml && exec envoy -c /etc/envoy.yaml",
            ],
            &[],
        );
        assert_eq!(described(script), Some("Envoy proxy"));
        // The Cloud SQL proxy image needs an instance to run.
        assert_eq!(
            described(container(
                "db",
                "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0"
            )),
            None
        );
        let connected = with_argv(
            container("db", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0"),
            &[],
            &["--port=5432", "project:region:db"],
        );
        assert_eq!(described(connected), Some("Cloud SQL Auth Proxy"));
        let version = with_argv(
            container("envoy", "envoyproxy/envoy:v1.31"),
            &[],
            &["--version"],
        );
        assert_eq!(described(version), None);
        // An unknown command: the name still says what the container is meant to be.
        let named = with_argv(container("envoy", "example/edge:1"), &["/start.sh"], &[]);
        assert_eq!(described(named), Some("Envoy proxy"));
        let image_only = with_argv(
            container("edge", "envoyproxy/envoy:v1"),
            &["/start.sh"],
            &[],
        );
        assert_eq!(described(image_only), None);
    }

    #[test]
    fn configured_patterns_extend_the_built_in_list() {
        let sidecars = Sidecars::new(vec![
            SidecarPattern::new(
                Some("mesh proxy"),
                &["*-agent".to_owned()],
                &["mesh/proxy".to_owned()],
            )
            .unwrap(),
        ]);
        let recognised = |name: &str, image: &str| sidecars.recognise(&container(name, image));
        assert_eq!(recognised("vault-agent", "x"), Some("Vault Agent"));
        assert_eq!(recognised("log-agent", "x"), Some("mesh proxy"));
        assert_eq!(
            recognised("p", "registry.example.com:5000/mesh/proxy:1.2"),
            Some("mesh proxy")
        );
        assert_eq!(recognised("p", "mesh/proxy@sha256:abc"), Some("mesh proxy"));
        assert_eq!(recognised("p", "other/mesh/proxyx:1"), None);
        assert_eq!(recognised("web", "nginx:1.25"), None);
        assert!(
            Sidecars::default()
                .recognise(&container("log-agent", "x"))
                .is_none()
        );
        assert!(SidecarPattern::new(None, &["a[".to_owned()], &[]).is_err());
    }

    #[test]
    fn the_documented_list_names_every_sidecar() {
        let markdown = known_sidecars_markdown();
        for known in KNOWN_CONTAINERS
            .iter()
            .filter(|k| k.kind == KnownKind::Sidecar)
        {
            assert!(markdown.contains(known.description));
        }
        assert!(!markdown.contains("nginx"));
    }
}
