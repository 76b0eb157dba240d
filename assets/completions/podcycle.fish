# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_podcycle_global_optspecs
    string join \n h/help V/version
end

function __fish_podcycle_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_podcycle_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_podcycle_using_subcommand
    set -l cmd (__fish_podcycle_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c podcycle -n "__fish_podcycle_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c podcycle -n "__fish_podcycle_needs_command" -s V -l version -d 'Print version'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "check" -d 'Lint files and directories (recursively); `-` reads standard input'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "explain" -d 'Show the order in which the kubelet starts and stops each pod\'s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "rules" -d 'List every rule with its category and default severity'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "rule" -d 'Print one rule\'s documentation'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "lsp" -d 'Run the language server on standard input and output, for editors'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "init" -d 'Write a commented starter configuration, `.podcycle.yaml`'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "completions" -d 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)'
complete -c podcycle -n "__fish_podcycle_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l format -d 'Output format' -r -f -a "full\t'source snippets with labels and help, like rustc (the default)'
concise\t'one line per finding: `file:line:col: severity[rule] message`'
json\t'a JSON array of findings (see docs/output.md)'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
github\t'GitHub Actions workflow commands, shown as annotations'
junit\t'JUnit XML: a test suite per file, a test case per object'
gitlab\t'GitLab Code Quality JSON, for merge request widgets'"
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l select -d 'Rules or categories to run instead of the defaults (comma-separated; `all` for every rule)' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l extend-select -d 'Rules or categories to run in addition to the selected ones' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l ignore -d 'Rules or categories not to run' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l fail-on -d 'Exit with 1 when a finding at or above this severity is reported [default: warning, or `fail-on` from the configuration]' -r -f -a "error\t''
warning\t''
info\t''
never\t''"
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l stdin-filename -d 'The file name to report for standard input; the configuration nearest to it applies. Without paths, standard input is read; beside paths, give `-` too' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l exclude -d 'Skip files and directories matching this glob while walking directories (repeatable). Files named on the command line are linted unless `--force-exclude` is given' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l kube-version -d 'The Kubernetes version of the cluster, e.g. `1.29` or `1.35.2` (`v1.35.2` as `kubectl version` prints it): rules judge features by what this version has and enables by default. A minor alone means its newest patch release; give the patch where a default changed in one (MaxUnavailableStatefulSet: on in 1.35.0 to 1.35.3) [default: `kube-version` from the configuration, else the newest version modelled]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l platform -d 'The platforms that stop the cluster\'s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -s o -l output -d 'Write the report to FILE instead of standard output; the summary and counts still go to standard error' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l config -d 'Use this configuration file for every linted file instead of the nearest `.podcycle.yaml` above each' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l color -d 'When to use colours in the full and concise formats [auto: on a terminal, unless `NO_COLOR`, `CLICOLOR=0` or `TERM=dumb`; `CLICOLOR_FORCE` forces them]' -r -f -a "auto\t''
always\t''
never\t''"
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l helm -d 'The `helm` executable [default: `helm` on PATH]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l kustomize -d 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l render-timeout -d 'Stop a renderer that runs longer than this' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l render-budget -d 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l render-memory -d 'Stop a renderer that uses more memory than this' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l helm-values -d 'A values file for every chart rendered in this run, after the chart\'s own `values.yaml` and those the configuration names (repeatable)' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l helm-release -d 'The release name charts are rendered with [default: from the configuration, else Helm\'s `release-name`]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l helm-namespace -d 'The namespace charts are rendered for [default: from the configuration]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l cache-dir -d 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository\'s root]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l baseline -d 'Report only the findings not recorded in this baseline (written by `--write-baseline`)' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l settings-root -d 'The directory the paths in the `--config` and `--baseline` files are relative to [default: each file\'s own directory]: for CI, which keeps the base branch\'s copies of them outside the checkout' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l write-baseline -d 'Record the current findings in FILE, for `--baseline`, instead of reporting them' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l add-ignore -d 'Silence every current finding with a `# podcycle: ignore[rule] REASON` comment above its line (the reason is required: `--add-ignore "known before rollout"`)' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l show-settings -d 'Print the settings that apply to FILE — the configuration file they come from, the rules and their severities, the Kubernetes version — and exit' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l force-exclude -d 'Apply `--exclude` and the configuration\'s `exclude` to files named on the command line too (for pre-commit, which names every changed file)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l no-config -d 'Ignore configuration files'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l isolated -d 'Read only the configuration named with `--config` (none without it), and honour no ignore files (`.gitignore`, `.ignore`): for CI on pull requests, where those files are part of the change under review'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l show-files -d 'List the files that would be linted, the charts and overlays that would be rendered, and what is skipped and why; lint nothing'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l fail-on-unrendered -d 'Exit with 1 when a chart or overlay could not be rendered [default: only one that a file named on the command line is checked through (a values file, a template, a patch); or `fail-on-unrendered` from the configuration]'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l no-fail-on-unrendered -d 'Never exit with 1 because a chart or overlay could not be rendered, also when a named file is checked only through it (a repository that does not install helm); it is still said'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l no-render -d 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l verbose -d 'Show what each renderer printed on standard error (Helm\'s and Kustomize\'s warnings) in full, instead of a count per renderer'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l no-cache -d 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l fix -d 'Apply the fixes of the findings that have one, then report what is left. Only safe fixes, unless `--unsafe-fixes` is given; JSON files and standard input are not edited'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l diff -d 'Print the changes `--fix` would make as a unified diff, and change nothing; exits with 1 when there are some'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l unsafe-fixes -d 'With `--fix` or `--diff`, also apply fixes that change behaviour beyond the finding (`podcycle rule NAME` says which)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -l statistics -d 'Print how many findings each rule has, and how many are fixable, instead of the findings (a table, or JSON with `--format json`)'
complete -c podcycle -n "__fish_podcycle_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l object -d 'Explain only this object, written as kubectl does: `Deployment/web`, `deploy/web`' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l container -d 'Show only this container\'s part of the timeline, notes and findings' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l format -d 'Output format' -r -f -a "text\t'a timeline for the terminal'
json\t'the JSON schema of docs/explain.md'
mermaid\t'Markdown with Mermaid Gantt charts, for GitHub issues and pull requests'"
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l kube-version -d 'The Kubernetes version of the cluster (`1.29`, `1.35.2`; a minor alone is its newest patch release), for the findings listed under each timeline and the rollout\'s counts [default: `kube-version` from the configuration, else the newest version modelled]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l platform -d 'The platforms that stop the cluster\'s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l config -d 'Use this configuration file for every file instead of the nearest `.podcycle.yaml` above each' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l helm -d 'The `helm` executable [default: `helm` on PATH]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l kustomize -d 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l render-timeout -d 'Stop a renderer that runs longer than this' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l render-budget -d 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l render-memory -d 'Stop a renderer that uses more memory than this' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l helm-values -d 'A values file for every chart rendered in this run, after the chart\'s own `values.yaml` and those the configuration names (repeatable)' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l helm-release -d 'The release name charts are rendered with [default: from the configuration, else Helm\'s `release-name`]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l helm-namespace -d 'The namespace charts are rendered for [default: from the configuration]' -r
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l cache-dir -d 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository\'s root]' -r -F
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l rollout -d 'Explain what the controllers do with each workload\'s pods instead: a Deployment\'s waves, a StatefulSet\'s ordinals, a DaemonSet\'s rounds, a Job\'s attempts, against their deadlines and disruption budgets'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l no-config -d 'Ignore configuration files'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l isolated -d 'Read only the configuration named with `--config` (none without it), and render as `check --isolated` does: what is explained is not trusted'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l no-render -d 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l verbose -d 'Show what each renderer printed on standard error (Helm\'s and Kustomize\'s warnings) in full, instead of a count per renderer'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -l no-cache -d 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)'
complete -c podcycle -n "__fish_podcycle_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c podcycle -n "__fish_podcycle_using_subcommand rules" -l format -r -f -a "text\t''
json\t''"
complete -c podcycle -n "__fish_podcycle_using_subcommand rules" -s h -l help -d 'Print help'
complete -c podcycle -n "__fish_podcycle_using_subcommand rule" -s h -l help -d 'Print help'
complete -c podcycle -n "__fish_podcycle_using_subcommand lsp" -l isolated -d 'The workspace is not trusted: render nothing, and take no editor setting that changes what runs (the configuration file, rendering). Editors start the server this way in a workspace the user has not trusted'
complete -c podcycle -n "__fish_podcycle_using_subcommand lsp" -s h -l help -d 'Print help'
complete -c podcycle -n "__fish_podcycle_using_subcommand init" -l force -d 'Replace an existing file'
complete -c podcycle -n "__fish_podcycle_using_subcommand init" -s h -l help -d 'Print help'
complete -c podcycle -n "__fish_podcycle_using_subcommand completions" -s h -l help -d 'Print help'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "check" -d 'Lint files and directories (recursively); `-` reads standard input'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "explain" -d 'Show the order in which the kubelet starts and stops each pod\'s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "rules" -d 'List every rule with its category and default severity'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "rule" -d 'Print one rule\'s documentation'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "lsp" -d 'Run the language server on standard input and output, for editors'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "init" -d 'Write a commented starter configuration, `.podcycle.yaml`'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "completions" -d 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)'
complete -c podcycle -n "__fish_podcycle_using_subcommand help; and not __fish_seen_subcommand_from check explain rules rule lsp init completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
