
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'podcycle' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'podcycle'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'podcycle' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint files and directories (recursively); `-` reads standard input')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Show the order in which the kubelet starts and stops each pod''s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List every rule with its category and default severity')
            [CompletionResult]::new('rule', 'rule', [CompletionResultType]::ParameterValue, 'Print one rule''s documentation')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server on standard input and output, for editors')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented starter configuration, `.podcycle.yaml`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'podcycle;check' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--select', '--select', [CompletionResultType]::ParameterName, 'Rules or categories to run instead of the defaults (comma-separated; `all` for every rule)')
            [CompletionResult]::new('--extend-select', '--extend-select', [CompletionResultType]::ParameterName, 'Rules or categories to run in addition to the selected ones')
            [CompletionResult]::new('--ignore', '--ignore', [CompletionResultType]::ParameterName, 'Rules or categories not to run')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with 1 when a finding at or above this severity is reported [default: warning, or `fail-on` from the configuration]')
            [CompletionResult]::new('--stdin-filename', '--stdin-filename', [CompletionResultType]::ParameterName, 'The file name to report for standard input; the configuration nearest to it applies. Without paths, standard input is read; beside paths, give `-` too')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Skip files and directories matching this glob while walking directories (repeatable). Files named on the command line are linted unless `--force-exclude` is given')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version of the cluster, e.g. `1.29` or `1.35.2` (`v1.35.2` as `kubectl version` prints it): rules judge features by what this version has and enables by default. A minor alone means its newest patch release; give the patch where a default changed in one (MaxUnavailableStatefulSet: on in 1.35.0 to 1.35.3) [default: `kube-version` from the configuration, else the newest version modelled]')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'The platforms that stop the cluster''s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output; the summary and counts still go to standard error')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output; the summary and counts still go to standard error')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file for every linted file instead of the nearest `.podcycle.yaml` above each')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours in the full and concise formats [auto: on a terminal, unless `NO_COLOR`, `CLICOLOR=0` or `TERM=dumb`; `CLICOLOR_FORCE` forces them]')
            [CompletionResult]::new('--helm', '--helm', [CompletionResultType]::ParameterName, 'The `helm` executable [default: `helm` on PATH]')
            [CompletionResult]::new('--kustomize', '--kustomize', [CompletionResultType]::ParameterName, 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]')
            [CompletionResult]::new('--render-timeout', '--render-timeout', [CompletionResultType]::ParameterName, 'Stop a renderer that runs longer than this')
            [CompletionResult]::new('--render-budget', '--render-budget', [CompletionResultType]::ParameterName, 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered')
            [CompletionResult]::new('--render-memory', '--render-memory', [CompletionResultType]::ParameterName, 'Stop a renderer that uses more memory than this')
            [CompletionResult]::new('--helm-values', '--helm-values', [CompletionResultType]::ParameterName, 'A values file for every chart rendered in this run, after the chart''s own `values.yaml` and those the configuration names (repeatable)')
            [CompletionResult]::new('--helm-release', '--helm-release', [CompletionResultType]::ParameterName, 'The release name charts are rendered with [default: from the configuration, else Helm''s `release-name`]')
            [CompletionResult]::new('--helm-namespace', '--helm-namespace', [CompletionResultType]::ParameterName, 'The namespace charts are rendered for [default: from the configuration]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository''s root]')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Report only the findings not recorded in this baseline (written by `--write-baseline`)')
            [CompletionResult]::new('--settings-root', '--settings-root', [CompletionResultType]::ParameterName, 'The directory the paths in the `--config` and `--baseline` files are relative to [default: each file''s own directory]: for CI, which keeps the base branch''s copies of them outside the checkout')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Record the current findings in FILE, for `--baseline`, instead of reporting them')
            [CompletionResult]::new('--add-ignore', '--add-ignore', [CompletionResultType]::ParameterName, 'Silence every current finding with a `# podcycle: ignore[rule] REASON` comment above its line (the reason is required: `--add-ignore "known before rollout"`)')
            [CompletionResult]::new('--show-settings', '--show-settings', [CompletionResultType]::ParameterName, 'Print the settings that apply to FILE — the configuration file they come from, the rules and their severities, the Kubernetes version — and exit')
            [CompletionResult]::new('--force-exclude', '--force-exclude', [CompletionResultType]::ParameterName, 'Apply `--exclude` and the configuration''s `exclude` to files named on the command line too (for pre-commit, which names every changed file)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore configuration files')
            [CompletionResult]::new('--isolated', '--isolated', [CompletionResultType]::ParameterName, 'Read only the configuration named with `--config` (none without it), and honour no ignore files (`.gitignore`, `.ignore`): for CI on pull requests, where those files are part of the change under review')
            [CompletionResult]::new('--show-files', '--show-files', [CompletionResultType]::ParameterName, 'List the files that would be linted, the charts and overlays that would be rendered, and what is skipped and why; lint nothing')
            [CompletionResult]::new('--fail-on-unrendered', '--fail-on-unrendered', [CompletionResultType]::ParameterName, 'Exit with 1 when a chart or overlay could not be rendered [default: only one that a file named on the command line is checked through (a values file, a template, a patch); or `fail-on-unrendered` from the configuration]')
            [CompletionResult]::new('--no-fail-on-unrendered', '--no-fail-on-unrendered', [CompletionResultType]::ParameterName, 'Never exit with 1 because a chart or overlay could not be rendered, also when a named file is checked only through it (a repository that does not install helm); it is still said')
            [CompletionResult]::new('--no-render', '--no-render', [CompletionResultType]::ParameterName, 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show what each renderer printed on standard error (Helm''s and Kustomize''s warnings) in full, instead of a count per renderer')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Apply the fixes of the findings that have one, then report what is left. Only safe fixes, unless `--unsafe-fixes` is given; JSON files and standard input are not edited')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print the changes `--fix` would make as a unified diff, and change nothing; exits with 1 when there are some')
            [CompletionResult]::new('--unsafe-fixes', '--unsafe-fixes', [CompletionResultType]::ParameterName, 'With `--fix` or `--diff`, also apply fixes that change behaviour beyond the finding (`podcycle rule NAME` says which)')
            [CompletionResult]::new('--statistics', '--statistics', [CompletionResultType]::ParameterName, 'Print how many findings each rule has, and how many are fixable, instead of the findings (a table, or JSON with `--format json`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'podcycle;explain' {
            [CompletionResult]::new('--object', '--object', [CompletionResultType]::ParameterName, 'Explain only this object, written as kubectl does: `Deployment/web`, `deploy/web`')
            [CompletionResult]::new('--container', '--container', [CompletionResultType]::ParameterName, 'Show only this container''s part of the timeline, notes and findings')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version of the cluster (`1.29`, `1.35.2`; a minor alone is its newest patch release), for the findings listed under each timeline and the rollout''s counts [default: `kube-version` from the configuration, else the newest version modelled]')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'The platforms that stop the cluster''s pods (`gke-spot`, `aws-spot`, `azure-spot`, `cluster-autoscaler`, ...; docs/platforms.md), comma-separated: shutdown plans are judged against their notices, grace caps and drain timeouts [default: `platforms` from the configuration; pods that select Spot nodes are judged against that platform anyway]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file for every file instead of the nearest `.podcycle.yaml` above each')
            [CompletionResult]::new('--helm', '--helm', [CompletionResultType]::ParameterName, 'The `helm` executable [default: `helm` on PATH]')
            [CompletionResult]::new('--kustomize', '--kustomize', [CompletionResultType]::ParameterName, 'The `kustomize` (or `kubectl`) executable [default: `kustomize`, else `kubectl`, on PATH]')
            [CompletionResult]::new('--render-timeout', '--render-timeout', [CompletionResultType]::ParameterName, 'Stop a renderer that runs longer than this')
            [CompletionResult]::new('--render-budget', '--render-budget', [CompletionResultType]::ParameterName, 'Stop rendering when the run has spent this long on it, over all its charts and overlays; what is left is reported as not rendered')
            [CompletionResult]::new('--render-memory', '--render-memory', [CompletionResultType]::ParameterName, 'Stop a renderer that uses more memory than this')
            [CompletionResult]::new('--helm-values', '--helm-values', [CompletionResultType]::ParameterName, 'A values file for every chart rendered in this run, after the chart''s own `values.yaml` and those the configuration names (repeatable)')
            [CompletionResult]::new('--helm-release', '--helm-release', [CompletionResultType]::ParameterName, 'The release name charts are rendered with [default: from the configuration, else Helm''s `release-name`]')
            [CompletionResult]::new('--helm-namespace', '--helm-namespace', [CompletionResultType]::ParameterName, 'The namespace charts are rendered for [default: from the configuration]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Where renders are kept between runs [default: `PODCYCLE_CACHE_DIR`, else `.podcycle_cache` at the repository''s root]')
            [CompletionResult]::new('--rollout', '--rollout', [CompletionResultType]::ParameterName, 'Explain what the controllers do with each workload''s pods instead: a Deployment''s waves, a StatefulSet''s ordinals, a DaemonSet''s rounds, a Job''s attempts, against their deadlines and disruption budgets')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore configuration files')
            [CompletionResult]::new('--isolated', '--isolated', [CompletionResultType]::ParameterName, 'Read only the configuration named with `--config` (none without it), and render as `check --isolated` does: what is explained is not trusted')
            [CompletionResult]::new('--no-render', '--no-render', [CompletionResultType]::ParameterName, 'Do not render Helm charts or build Kustomize overlays (each is reported as not rendered)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show what each renderer printed on standard error (Helm''s and Kustomize''s warnings) in full, instead of a count per renderer')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every chart and overlay again instead of reusing renders kept from earlier runs (also `PODCYCLE_NO_CACHE=1`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'podcycle;rules' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'podcycle;rule' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'podcycle;lsp' {
            [CompletionResult]::new('--isolated', '--isolated', [CompletionResultType]::ParameterName, 'The workspace is not trusted: render nothing, and take no editor setting that changes what runs (the configuration file, rendering). Editors start the server this way in a workspace the user has not trusted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'podcycle;init' {
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'podcycle;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'podcycle;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Lint files and directories (recursively); `-` reads standard input')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Show the order in which the kubelet starts and stops each pod''s containers, with the time budgets of probes, hooks and the grace period, and the findings of `check`')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'List every rule with its category and default severity')
            [CompletionResult]::new('rule', 'rule', [CompletionResultType]::ParameterValue, 'Print one rule''s documentation')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server on standard input and output, for editors')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a commented starter configuration, `.podcycle.yaml`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the shell completion script for SHELL (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'podcycle;help;check' {
            break
        }
        'podcycle;help;explain' {
            break
        }
        'podcycle;help;rules' {
            break
        }
        'podcycle;help;rule' {
            break
        }
        'podcycle;help;lsp' {
            break
        }
        'podcycle;help;init' {
            break
        }
        'podcycle;help;completions' {
            break
        }
        'podcycle;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
