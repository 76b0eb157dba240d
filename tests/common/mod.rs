//! Helpers shared by the test harnesses.

use podcycle::settings::Settings;
use podcycle::versions::KubeVersion;

/// Applies a `--kube-version X.Y` written in the comments at the top of a fixture or doc
/// example (`# podcycle check --kube-version 1.28`), so cases can target a cluster version.
pub fn with_header_options(text: &str, settings: Settings) -> Settings {
    let header = text
        .lines()
        .take_while(|line| line.trim_start().starts_with('#'));
    for line in header {
        let mut words = line.split_whitespace();
        while let Some(word) = words.next() {
            if word == "--kube-version" {
                let version: KubeVersion = words
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("bad --kube-version in `{line}`"));
                return settings.with_kube_version(version);
            }
        }
    }
    settings
}
