//! Containers in `containers` that are sidecars by convention: service-mesh and database
//! proxies, secret agents and log shippers that other containers depend on.

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

/// Whether a container is certain to keep running rather than exit: a well-known sidecar, or
/// a command that sleeps forever (`sleep infinity`).
pub fn keeps_running(container: &Container) -> bool {
    if recognise(container).is_some() {
        return true;
    }
    let Some(command) = &container.command else {
        return false;
    };
    let mut full = command.clone();
    full.extend(container.args.iter().flatten().cloned());
    super::exec_sleep(&full) == Some(super::ExecSleep::Forever)
}

/// `docker.io/istio/proxyv2:1.22@sha256:…` → `docker.io/istio/proxyv2`.
fn image_repository(image: &str) -> &str {
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
}
