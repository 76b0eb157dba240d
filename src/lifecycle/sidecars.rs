//! Containers in `containers` that are sidecars by convention: service-mesh and database
//! proxies, secret agents and log shippers that other containers depend on. The built-in list
//! is extended by the `sidecars` patterns of the configuration.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::model::core::Container;

/// A well-known sidecar.
#[derive(Debug, PartialEq, Eq)]
pub struct KnownSidecar {
    /// What it is, for messages.
    pub description: &'static str,
    /// Container names that identify it.
    names: &'static [&'static str],
    /// Image repositories (without registry host, tag or digest) that identify it; matched
    /// against the end of the image's repository path.
    images: &'static [&'static str],
}

pub const KNOWN_SIDECARS: &[KnownSidecar] = &[
    KnownSidecar {
        description: "Istio proxy",
        names: &["istio-proxy"],
        images: &["istio/proxyv2", "istio/proxy_debug"],
    },
    KnownSidecar {
        description: "Linkerd proxy",
        names: &["linkerd-proxy"],
        images: &["linkerd/proxy"],
    },
    KnownSidecar {
        description: "Envoy proxy",
        names: &["envoy", "envoy-proxy", "envoy-sidecar"],
        images: &["envoyproxy/envoy", "envoyproxy/envoy-distroless"],
    },
    KnownSidecar {
        description: "Cloud SQL Auth Proxy",
        names: &["cloud-sql-proxy", "cloudsql-proxy"],
        images: &[
            "cloud-sql-connectors/cloud-sql-proxy",
            "cloudsql-docker/gce-proxy",
        ],
    },
    KnownSidecar {
        description: "Vault Agent",
        names: &["vault-agent"],
        images: &[],
    },
    KnownSidecar {
        description: "Fluent Bit log shipper",
        names: &["fluent-bit", "fluentbit"],
        images: &["fluent/fluent-bit"],
    },
    KnownSidecar {
        description: "Fluentd log shipper",
        names: &["fluentd"],
        images: &["fluent/fluentd"],
    },
    KnownSidecar {
        description: "Filebeat log shipper",
        names: &["filebeat"],
        images: &["beats/filebeat"],
    },
    KnownSidecar {
        description: "Promtail log shipper",
        names: &["promtail"],
        images: &["grafana/promtail"],
    },
];

/// What counts as a sidecar by name or image: the built-in list, then the configured patterns.
#[derive(Clone, Debug, Default)]
pub struct Sidecars {
    extra: Vec<SidecarPattern>,
}

impl Sidecars {
    pub fn new(extra: Vec<SidecarPattern>) -> Sidecars {
        Sidecars { extra }
    }

    /// What the container is, when it is a sidecar by name or image.
    pub fn recognise(&self, container: &Container) -> Option<&str> {
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
#[derive(Clone, Debug)]
pub struct SidecarPattern {
    description: String,
    names: GlobSet,
    images: GlobSet,
}

impl SidecarPattern {
    /// Image patterns match the repository without tag or digest, at its end, as the built-in
    /// ones do: `mesh/proxy` matches `registry.example.com/mesh/proxy:1.2`. A pattern that does
    /// not compile is returned with the error.
    pub fn new(
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
        })
    }
}

/// The well-known sidecar a container is, judged by its name or image.
pub fn recognise(container: &Container) -> Option<&'static KnownSidecar> {
    let repository = container.image.as_deref().map(image_repository);
    KNOWN_SIDECARS.iter().find(|known| {
        known.names.contains(&container.name.as_str())
            || repository.is_some_and(|repo| {
                known
                    .images
                    .iter()
                    .any(|image| repo == *image || repo.ends_with(&format!("/{image}")))
            })
    })
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

    #[test]
    fn recognises_by_name_or_image() {
        let described = |c: Container| recognise(&c).map(|k| k.description);
        assert_eq!(
            described(container("istio-proxy", "x")),
            Some("Istio proxy")
        );
        assert_eq!(
            described(container("mesh", "docker.io/istio/proxyv2:1.22.0")),
            Some("Istio proxy")
        );
        assert_eq!(
            described(container(
                "db",
                "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0"
            )),
            Some("Cloud SQL Auth Proxy")
        );
        assert_eq!(
            described(container("p", "registry:5000/envoyproxy/envoy@sha256:abc")),
            Some("Envoy proxy")
        );
        assert_eq!(described(container("web", "nginx:1.25")), None);
        assert_eq!(described(container("app", "example.com/myproxyv2:1")), None);
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
}
