//! Whether the work in a pod stops a helper that runs beside it: the shutdown idioms of Jobs
//! whose helpers are regular containers, written before native sidecars (or for clusters
//! without them).
//!
//! Only what the manifest shows counts, in the command of another container in `containers`:
//! - a call to the helper's `/quitquitquit` endpoint — Istio's `pilot-agent request POST
//!   quitquitquit`, or `curl`/`wget` with a POST (istio/istio `pilot/cmd/pilot-agent/status`,
//!   `handleQuit`, answers anything else with 405), or for the Cloud SQL Auth Proxy started
//!   with `--quitquitquit` (without the flag the endpoint does not exist) any `curl`/`wget` of
//!   it, as in the proxy's own `examples/k8s-sidecar/job_with_shutdown_hook.yaml`;
//! - with `shareProcessNamespace: true`, which lets one container signal another's processes,
//!   a `kill`, `pkill` or `killall` that names the helper's program (`pkill cloud_sql_proxy`,
//!   `kill $(pidof envoy)`).
//!
//! A quit call written in the work's code rather than its command is not seen. Where the work
//! runs a script of its own (`. /scripts/init.sh`, `bash /scripts/init.sh`), usually mounted
//! from a ConfigMap, and the pod is set up for it to stop the helper — the Cloud SQL Auth Proxy
//! started with `--quitquitquit`, or `shareProcessNamespace: true` — the script may well stop
//! it: nothing in the manifest says the helper outlives the work, so it counts as stopped.

use super::argv::{Run, SHELLS, basename, container_argv, resolve};
use super::shell::{self, without_prefixes};
use super::sidecars::{KnownContainer, recognise};
use crate::model::core::{Container, PodSpec};

/// How `helper` is stopped by another container in `containers`, for messages; `None` when
/// nothing in the manifest stops it.
pub(crate) fn stopped_by_work(spec: &PodSpec, helper: &Container) -> Option<String> {
    let known = recognise(helper);
    let shares_processes = spec.share_process_namespace == Some(true);
    let programs = helper_programs(helper, known);
    spec.containers
        .iter()
        .filter(|work| work.name != helper.name)
        .find_map(|work| {
            let commands = commands(work)?;
            commands.iter().enumerate().find_map(|(index, words)| {
                if let Some(known) = known.filter(|known| quits(helper, known, words)) {
                    return Some(format!(
                        "`{}` asks the {} to quit",
                        work.name, known.description
                    ));
                }
                let program = basename(words.first()?);
                if !shares_processes || !matches!(program, "kill" | "pkill" | "killall") {
                    return None;
                }
                // `kill $(pidof x)`: the substitution is the next command of the script.
                let substituted = commands
                    .get(index + 1)
                    .filter(|_| words.last().is_some_and(|w| w == "$"));
                (names_any(&words[1..], &programs)
                    || substituted.is_some_and(|next| names_any(next, &programs)))
                .then(|| {
                    format!(
                        "`{}` signals it with `{program}` (`shareProcessNamespace: true`)",
                        work.name
                    )
                })
            })
        })
        .or_else(|| stopped_by_a_script(spec, helper, known, shares_processes))
}

/// When the pod is set up for the work to stop `helper` and another container runs a script of
/// its own, which the manifest does not show: how, for messages.
fn stopped_by_a_script(
    spec: &PodSpec,
    helper: &Container,
    known: Option<&KnownContainer>,
    shares_processes: bool,
) -> Option<String> {
    let set_up = if shares_processes {
        "`shareProcessNamespace: true`".to_owned()
    } else if known.is_some_and(|k| k.description == "Cloud SQL Auth Proxy") && quit_flag(helper) {
        format!("`{}` runs with `--quitquitquit`", helper.name)
    } else {
        return None;
    };
    let (work, script) = spec
        .containers
        .iter()
        .filter(|work| work.name != helper.name)
        .find_map(|work| Some((work, runs_a_script(work)?)))?;
    Some(format!(
        "`{}` runs `{script}`, which the manifest does not show, and {set_up}",
        work.name
    ))
}

/// The script file a container runs, when its command runs one (`. /scripts/init.sh`,
/// `source init.sh`, `bash /scripts/init.sh`, `/scripts/init.sh`).
fn runs_a_script(container: &Container) -> Option<String> {
    commands(container)?.into_iter().find_map(|words| {
        let (program, args) = words.split_first()?;
        let sourced =
            matches!(program.as_str(), "." | "source") || SHELLS.contains(&basename(program));
        match args.first() {
            Some(file) if sourced && !file.starts_with('-') => Some(file.clone()),
            _ => program.ends_with(".sh").then(|| program.clone()),
        }
    })
}

/// Whether the Cloud SQL Auth Proxy runs with its quit endpoint on.
fn quit_flag(helper: &Container) -> bool {
    helper
        .command
        .iter()
        .chain(&helper.args)
        .flatten()
        .any(|a| a == "--quitquitquit" || a == "--quitquitquit=true")
}

/// When another container in `containers` mentions `quitquitquit` without a call that
/// [`stopped_by_work`] reads as stopping `helper`: what such a call looks like, for a note.
pub(crate) fn quit_not_called(spec: &PodSpec, helper: &Container) -> Option<String> {
    let work = spec
        .containers
        .iter()
        .filter(|work| work.name != helper.name)
        .find(|work| {
            work.command
                .iter()
                .chain(&work.args)
                .flatten()
                .any(|arg| arg.contains("quitquitquit"))
        })?;
    let call = match recognise(helper).map(|k| k.description) {
        Some("Istio proxy") => {
            "a `curl` or `wget` POST to `/quitquitquit` (the endpoint refuses other methods), or `pilot-agent request POST quitquitquit`"
        }
        Some("Cloud SQL Auth Proxy") => {
            "a `curl` or `wget` of `/quitquitquit`, with the proxy run with `--quitquitquit` (without it there is no such endpoint)"
        }
        _ => "a call podcycle reads only for the Istio proxy and the Cloud SQL Auth Proxy",
    };
    Some(format!(
        "`{}` mentions `quitquitquit`, but none of its commands stops `{}`: that takes {call}",
        work.name, helper.name
    ))
}

fn names_any(words: &[String], programs: &[String]) -> bool {
    words
        .iter()
        .any(|w| programs.iter().any(|p| w.contains(p.as_str())))
}

/// Whether `words` ask the helper, a known sidecar, to quit through its endpoint.
fn quits(helper: &Container, known: &KnownContainer, words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let endpoint = |a: &String| a.contains("/quitquitquit");
    match known.description {
        "Istio proxy" => match basename(program) {
            // pilot-agent's `request` sends to Envoy's admin port, whose quitquitquit stops
            // Envoy, and pilot-agent exits with it.
            "pilot-agent" => {
                args.first().is_some_and(|a| a == "request")
                    && args.iter().any(|a| a.eq_ignore_ascii_case("POST"))
                    && args
                        .iter()
                        .any(|a| a.trim_start_matches('/') == "quitquitquit")
            }
            _ => http_call(program, args).is_some_and(|post| post) && args.iter().any(endpoint),
        },
        "Cloud SQL Auth Proxy" => {
            quit_flag(helper) && http_call(program, args).is_some() && args.iter().any(endpoint)
        }
        _ => false,
    }
}

/// For `curl` and `wget`: whether the request is a POST. `None` for other programs.
fn http_call(program: &str, args: &[String]) -> Option<bool> {
    let post = |a: &str| a.eq_ignore_ascii_case("POST");
    match basename(program) {
        "curl" => Some(args.iter().enumerate().any(|(i, a)| {
            let next = args.get(i + 1).is_some_and(|n| post(n));
            ((a == "-X" || a == "--request") && next)
                || a.strip_prefix("-X").is_some_and(post)
                || a.strip_prefix("--request=").is_some_and(post)
                || matches!(a.as_str(), "-d" | "--json" | "-F" | "--form")
                || a.starts_with("--data")
        })),
        "wget" => Some(args.iter().enumerate().any(|(i, a)| {
            a.starts_with("--post-data")
                || a.starts_with("--post-file")
                || a.strip_prefix("--method=").is_some_and(post)
                || (a == "--method" && args.get(i + 1).is_some_and(|n| post(n)))
        })),
        _ => None,
    }
}

/// The programs a helper runs, by base name: its known programs and those its command
/// shows.
fn helper_programs(helper: &Container, known: Option<&KnownContainer>) -> Vec<String> {
    let mut programs: Vec<String> = known
        .map(|k| k.programs.iter().map(|p| (*p).to_owned()).collect())
        .unwrap_or_default();
    programs.extend(
        commands(helper)
            .into_iter()
            .flatten()
            .filter_map(|words| words.first().map(|w| basename(w).to_owned())),
    );
    // A shell or a very short name would match unrelated words.
    programs.retain(|p| p.len() > 2 && !SHELLS.contains(&p.as_str()));
    programs
}

/// The commands a container runs, each as its words: the commands of its inline script, or
/// its one program. `None` when the manifest does not show what it runs.
fn commands(container: &Container) -> Option<Vec<Vec<String>>> {
    let (argv, _) = container_argv(container)?;
    let owned = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    Some(match resolve(&argv)? {
        Run::Program { index, .. } => vec![owned(&argv[index..])],
        Run::Script { script, .. } => {
            let tokens = shell::tokenize(script)?;
            shell::simple_commands(&tokens)
                .iter()
                .map(|c| owned(&without_prefixes(&c.words)))
                .collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::stopped_by_work;
    use crate::lifecycle::tests::pod;

    /// How the second container of a pod whose first runs `script` is stopped.
    fn stopped(script: &str, helper: &str, shares: bool) -> Option<String> {
        let spec = format!(
            r#"{{"shareProcessNamespace": {shares}, "containers": [
                {{"name": "work", "image": "example/work", "command": ["sh", "-c", {script:?}]}},
                {helper}]}}"#
        );
        let (_, spec) = pod(&spec);
        stopped_by_work(&spec, &spec.containers[1])
    }

    const ISTIO: &str =
        r#"{"name": "istio-proxy", "image": "istio/proxyv2:1.22.0", "args": ["proxy", "sidecar"]}"#;
    const CLOUD_SQL: &str = r#"{"name": "proxy", "image": "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2", "args": ["--quitquitquit", "db"]}"#;
    const SHIPPER: &str =
        r#"{"name": "ship", "image": "busybox", "command": ["sh", "-c", "tail -F /log/out"]}"#;

    #[test]
    fn istio_quits_on_a_post_only() {
        for script in [
            "run; curl -X POST localhost:15020/quitquitquit",
            "run && curl -fsS -XPOST http://127.0.0.1:15020/quitquitquit",
            "run; curl --request=POST http://127.0.0.1:15020/quitquitquit",
            "run; wget --method=POST -O- http://127.0.0.1:15020/quitquitquit",
            "run; pilot-agent request POST quitquitquit",
        ] {
            assert!(stopped(script, ISTIO, false).is_some(), "{script}");
        }
        for script in [
            "run; curl http://127.0.0.1:15020/quitquitquit",
            "run; echo curl -X POST",
            "run; pilot-agent request GET quitquitquit",
        ] {
            assert_eq!(stopped(script, ISTIO, false), None, "{script}");
        }
    }

    #[test]
    fn the_cloud_sql_proxy_quits_only_with_its_flag() {
        let script = "run; curl http://localhost:9091/quitquitquit";
        assert!(stopped(script, CLOUD_SQL, false).is_some());
        let without = CLOUD_SQL.replace("\"--quitquitquit\", ", "");
        assert_eq!(stopped(script, &without, false), None);
    }

    #[test]
    fn a_signal_needs_a_shared_process_namespace_and_the_helper_s_program() {
        for script in [
            "run; pkill tail",
            "run; killall -INT tail",
            "run; kill $(pidof tail)",
            "run; kill -TERM $(pgrep -f 'tail -F')",
        ] {
            assert!(stopped(script, SHIPPER, true).is_some(), "{script}");
            assert_eq!(stopped(script, SHIPPER, false), None, "{script}");
        }
        assert_eq!(stopped("run; pkill envoy", SHIPPER, true), None);
        assert_eq!(stopped("run; kill 1", SHIPPER, true), None);
        assert_eq!(stopped("run; kill $(pidof envoy)", SHIPPER, true), None);
    }

    /// A script the manifest does not show counts only where the pod is set up for the work to
    /// stop the helper: the proxy's quit flag, or a shared process namespace.
    #[test]
    fn a_script_of_the_work_counts_where_the_pod_is_set_up_for_it() {
        for script in [
            ". /scripts/init.sh db",
            "source /scripts/init.sh",
            "bash /scripts/init.sh",
            "/scripts/init.sh",
        ] {
            assert!(stopped(script, CLOUD_SQL, false).is_some(), "{script}");
            assert!(stopped(script, SHIPPER, true).is_some(), "{script}");
            assert_eq!(stopped(script, SHIPPER, false), None, "{script}");
            let without = CLOUD_SQL.replace("\"--quitquitquit\", ", "");
            assert_eq!(stopped(script, &without, false), None, "{script}");
        }
        assert_eq!(stopped("run; echo done", CLOUD_SQL, false), None);
        assert_eq!(stopped("run; echo done", SHIPPER, true), None);
    }
}
