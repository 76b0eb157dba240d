
use builtin;
use str;

set edit:completion:arg-completer[podcycle] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'podcycle'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'podcycle'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Lint files and directories (recursively); `-` reads standard input'
            cand explain 'Show the order in which the kubelet starts and stops each pod''s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`'
            cand rules 'List every rule with its category and default severity'
            cand rule 'Print one rule''s documentation'
            cand lsp 'Run the language server on standard input and output, for editors'
            cand init 'Write a commented starter configuration, `.podcycle.yaml`'
            cand completions 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'podcycle;check'= {
            cand --format 'Output format'
            cand --select 'Rules or categories to run instead of the defaults (comma-separated; `all` for every rule)'
            cand --extend-select 'Rules or categories to run in addition to the selected ones'
            cand --ignore 'Rules or categories not to run'
            cand --fail-on 'Exit with 1 when a finding at or above this severity is reported [default: warning, or `fail-on` from the configuration]'
            cand --stdin-filename 'The file name to report for standard input; the configuration nearest to it applies. Without paths, standard input is read; beside paths, give `-` too'
            cand --exclude 'Skip files and directories matching this glob while walking directories (repeatable). Files named on the command line are linted unless `--force-exclude` is given'
            cand --kube-version 'The Kubernetes version of the cluster, e.g. `1.29` or `1.35.2` (`v1.35.2` as `kubectl version` prints it): rules judge features by what this version has and enables by default. A minor alone means its newest patch release; give the patch where a default changed in one (MaxUnavailableStatefulSet: on in 1.35.0 to 1.35.3) [default: `kube-version` from the configuration, else the newest version modelled]'
            cand --platform 'The platforms that stop the cluster''s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]'
            cand -o 'Write the report to FILE instead of standard output; the summary and counts still go to standard error'
            cand --output 'Write the report to FILE instead of standard output; the summary and counts still go to standard error'
            cand --config 'Use this configuration file for every linted file instead of the nearest `.podcycle.yaml` above each'
            cand --color 'When to use colours in the full and concise formats [auto: on a terminal, unless `NO_COLOR`, `CLICOLOR=0` or `TERM=dumb`; `CLICOLOR_FORCE` forces them]'
            cand --helm 'The `helm` executable [default: `helm` on PATH]'
            cand --kustomize 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]'
            cand --render-timeout 'Stop a renderer that runs longer than this'
            cand --render-budget 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered'
            cand --render-memory 'Stop a renderer that uses more memory than this'
            cand --helm-values 'A values file for every chart rendered in this run, after the chart''s own `values.yaml` and those the configuration names (repeatable)'
            cand --helm-release 'The release name charts are rendered with [default: from the configuration, else Helm''s `release-name`]'
            cand --helm-namespace 'The namespace charts are rendered for [default: from the configuration]'
            cand --cache-dir 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository''s root]'
            cand --baseline 'Report only the findings not recorded in this baseline (written by `--write-baseline`)'
            cand --settings-root 'The directory the paths in the `--config` and `--baseline` files are relative to [default: each file''s own directory]: for CI, which keeps the base branch''s copies of them outside the checkout'
            cand --write-baseline 'Record the current findings in FILE, for `--baseline`, instead of reporting them'
            cand --add-ignore 'Silence every current finding with a `# podcycle: ignore[rule] REASON` comment above its line (the reason is required: `--add-ignore "known before rollout"`)'
            cand --show-settings 'Print the settings that apply to FILE — the configuration file they come from, the rules and their severities, the Kubernetes version — and exit'
            cand --force-exclude 'Apply `--exclude` and the configuration''s `exclude` to files named on the command line too (for pre-commit, which names every changed file)'
            cand --no-config 'Ignore configuration files'
            cand --isolated 'Read only the configuration named with `--config` (none without it), and honour no ignore files (`.gitignore`, `.ignore`): for CI on pull requests, where those files are part of the change under review'
            cand --show-files 'List the files that would be linted, the charts and overlays that would be rendered, and what is skipped and why; lint nothing'
            cand --fail-on-unrendered 'Exit with 1 when a chart or overlay could not be rendered [default: only one that a file named on the command line is checked through (a values file, a template, a patch); or `fail-on-unrendered` from the configuration]'
            cand --no-fail-on-unrendered 'Never exit with 1 because a chart or overlay could not be rendered, also when a named file is checked only through it (a repository that does not install helm); it is still said'
            cand --no-render 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)'
            cand --verbose 'Show what each renderer printed on standard error (Helm''s and Kustomize''s warnings) in full, instead of a count per renderer'
            cand --no-cache 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)'
            cand --fix 'Apply the fixes of the findings that have one, then report what is left. Only safe fixes, unless `--unsafe-fixes` is given; JSON files and standard input are not edited'
            cand --diff 'Print the changes `--fix` would make as a unified diff, and change nothing; exits with 1 when there are some'
            cand --unsafe-fixes 'With `--fix` or `--diff`, also apply fixes that change behaviour beyond the finding (`podcycle rule NAME` says which)'
            cand --statistics 'Print how many findings each rule has, and how many are fixable, instead of the findings (a table, or JSON with `--format json`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'podcycle;explain'= {
            cand --object 'Explain only this object, written as kubectl does: `Deployment/web`, `deploy/web`'
            cand --container 'Show only this container''s part of the timeline, notes and findings'
            cand --format 'Output format'
            cand --kube-version 'The Kubernetes version of the cluster (`1.29`, `1.35.2`; a minor alone is its newest patch release), for the findings listed under each timeline and the rollout''s counts [default: `kube-version` from the configuration, else the newest version modelled]'
            cand --platform 'The platforms that stop the cluster''s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]'
            cand --config 'Use this configuration file for every file instead of the nearest `.podcycle.yaml` above each'
            cand --helm 'The `helm` executable [default: `helm` on PATH]'
            cand --kustomize 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]'
            cand --render-timeout 'Stop a renderer that runs longer than this'
            cand --render-budget 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered'
            cand --render-memory 'Stop a renderer that uses more memory than this'
            cand --helm-values 'A values file for every chart rendered in this run, after the chart''s own `values.yaml` and those the configuration names (repeatable)'
            cand --helm-release 'The release name charts are rendered with [default: from the configuration, else Helm''s `release-name`]'
            cand --helm-namespace 'The namespace charts are rendered for [default: from the configuration]'
            cand --cache-dir 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository''s root]'
            cand --rollout 'Explain what the controllers do with each workload''s pods instead: a Deployment''s waves, a StatefulSet''s ordinals, a DaemonSet''s rounds, a Job''s attempts, against their deadlines and disruption budgets'
            cand --no-config 'Ignore configuration files'
            cand --isolated 'Read only the configuration named with `--config` (none without it), and render as `check --isolated` does: what is explained is not trusted'
            cand --no-render 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)'
            cand --verbose 'Show what each renderer printed on standard error (Helm''s and Kustomize''s warnings) in full, instead of a count per renderer'
            cand --no-cache 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'podcycle;rules'= {
            cand --format 'format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'podcycle;rule'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'podcycle;lsp'= {
            cand --isolated 'The workspace is not trusted: render nothing, and take no editor setting that changes what runs (the configuration file, rendering). Editors start the server this way in a workspace the user has not trusted'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'podcycle;init'= {
            cand --force 'Replace an existing file'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'podcycle;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'podcycle;help'= {
            cand check 'Lint files and directories (recursively); `-` reads standard input'
            cand explain 'Show the order in which the kubelet starts and stops each pod''s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`'
            cand rules 'List every rule with its category and default severity'
            cand rule 'Print one rule''s documentation'
            cand lsp 'Run the language server on standard input and output, for editors'
            cand init 'Write a commented starter configuration, `.podcycle.yaml`'
            cand completions 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'podcycle;help;check'= {
        }
        &'podcycle;help;explain'= {
        }
        &'podcycle;help;rules'= {
        }
        &'podcycle;help;rule'= {
        }
        &'podcycle;help;lsp'= {
        }
        &'podcycle;help;init'= {
        }
        &'podcycle;help;completions'= {
        }
        &'podcycle;help;help'= {
        }
    ]
    $completions[$command]
}
