//! Kubernetes' formats for names and enumerated values, as its validation checks them, and how
//! rules speak of a container that has no name. Several rules check the same formats; they are
//! written once here.

use std::ops::RangeInclusive;

/// The ports Kubernetes accepts (`ValidatePortNumOrName`, `validateContainerPorts`).
pub(crate) const PORT_RANGE: RangeInclusive<i64> = 1..=65535;

pub(crate) use crate::text::ordinal_container;

/// Why `name` is not a DNS-1123 label (`IsDNS1123Label`), if it is not.
pub(crate) fn dns_label_problem(name: &str) -> Option<&'static str> {
    if name.len() > 63 {
        Some("it must be at most 63 characters long")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("it may contain only lowercase letters, digits and dashes")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("it must start and end with a letter or digit")
    } else {
        None
    }
}

/// Why `name` is not an IANA service name as Kubernetes checks it (`IsValidPortName`).
pub(crate) fn port_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 15 {
        Some("it must be 1 to 15 characters long")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("it may contain only lowercase letters, digits and dashes")
    } else if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        Some("it must contain at least one letter, so a quoted number is not a port number")
    } else if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        Some("dashes may not start or end it, nor stand next to each other")
    } else {
        None
    }
}

/// "; values are case-sensitive: `HTTP`" when `value` is an accepted value in another case.
pub(crate) fn upper_case_hint(value: &str) -> String {
    let upper = value.to_ascii_uppercase();
    let capitalised = value
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect::<String>();
    for candidate in [upper, capitalised] {
        if candidate != value
            && matches!(
                candidate.as_str(),
                "HTTP" | "HTTPS" | "Always" | "OnFailure" | "Never" | "TCP" | "UDP" | "SCTP"
            )
        {
            return format!("; values are case-sensitive: `{candidate}`");
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_names() {
        assert_eq!(dns_label_problem("web-1"), None);
        assert!(dns_label_problem("Web_1").is_some());
        assert!(dns_label_problem("-web").is_some());
        assert!(dns_label_problem(&"a".repeat(64)).is_some());
    }

    #[test]
    fn port_names() {
        for good in ["http", "metrics-1", "a", "h2c", "grpc-health"] {
            assert_eq!(port_name_problem(good), None, "{good}");
        }
        for bad in [
            "8080",
            "HTTP",
            "-http",
            "http-",
            "a--b",
            "sixteen-letters-",
            "",
            "web_port",
        ] {
            assert!(port_name_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn case_hints_name_the_accepted_spelling() {
        assert_eq!(
            upper_case_hint("http"),
            "; values are case-sensitive: `HTTP`"
        );
        assert_eq!(
            upper_case_hint("always"),
            "; values are case-sensitive: `Always`"
        );
        assert_eq!(upper_case_hint("HTTP"), "");
        assert_eq!(upper_case_hint("ftp"), "");
    }
}
