//! The source map from `helm template` output back to template lines.
//!
//! Each rendered document names its template in a `# Source:` header. Within it, every key
//! the output writes is matched to the template line that writes the same literal key at the
//! same path (by the template's indentation; inside `define` blocks, relative to the block),
//! with literal values agreeing. A key that no template line writes literally came from an
//! action — `{{ toYaml .Values.x | nindent 8 }}` under its parent's key — and is placed at that
//! action; a key inside a flow mapping of a literal line is found at its column. Where the
//! value came from a simple `.Values.a.b` reference, the values file that set it gets a
//! secondary label, on the value it set when the finding marks the value (as a plain file's
//! finding would), else on its key. What cannot be matched without guessing is said to be so:
//! the finding points at the object's `kind:` line, or only names the file.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::template::{Template, TemplateLine, action_body, values_path};
use super::{Chart, Dependency, StagedChart, archive_chart_name, dependencies_in};
use crate::diagnostics::{Diagnostic, Label, Placement, RenderOrigin, RenderTool};
use crate::render::rendered::{KeyLine, Part, document_at, field_at, key_lines, keys_of};
use crate::render::staged::{StagedFiles, normalise};
use crate::source::{SourceFile, Span};
use crate::yaml::{self, Document, NodeId};
use podcycle_path::PathSegment;

/// Where a chart of the tree is.
#[derive(Clone, Debug)]
enum Location {
    /// A directory of the stage.
    Dir(String),
    /// An archive Helm reads as is, as users name it: its templates are not read.
    Archive(String),
}

/// A chart of the tree being rendered: the chart itself and its vendored dependencies.
#[derive(Debug)]
struct TreeChart {
    /// How `# Source:` names the chart: `web`, `web/charts/redis`.
    prefix: String,
    location: Location,
    /// The chart names from the top chart down to this one (not including the top one): the
    /// keys under which a parent's values reach this chart's `.Values`.
    value_keys: Vec<String>,
}

/// A template or helper file of the tree, read and parsed.
#[derive(Debug)]
struct Loaded {
    file: Arc<SourceFile>,
    template: Template,
    /// Lines by the literal key they write.
    keys: HashMap<String, Vec<usize>>,
}

/// A values file and what it sets.
#[derive(Debug)]
struct ValuesFile {
    file: Arc<SourceFile>,
    document: Document,
    /// The keys under which this file sets the values of the chart `prefix` names.
    chart: String,
    key_prefix: Vec<String>,
}

/// Where a rendered key was written.
#[derive(Clone, Debug)]
struct Hit {
    template: usize,
    line: usize,
    /// The values path the line's value (or the action's output) comes from.
    values: Option<Vec<String>>,
    /// Set when the key came out of this action rather than the line's literal text.
    action: Option<Range<usize>>,
}

/// What was worked out for one rendered document.
#[derive(Debug, Default)]
struct DocumentMap {
    /// The template named by `# Source:`, when it could be read.
    source: Option<usize>,
    source_path: Option<String>,
    /// The chart whose `.Values` the document's template reads.
    chart: Option<usize>,
    lines: Vec<KeyLine>,
    hits: Vec<Option<Hit>>,
}

pub(crate) struct HelmMap {
    /// The chart directory as shown to users.
    input: String,
    chart_file: Arc<SourceFile>,
    tree: Vec<TreeChart>,
    templates: Vec<Loaded>,
    /// The templates loaded, by their key in the stage: however many spellings of a path the
    /// output uses, each file is parsed once.
    by_key: HashMap<String, usize>,
    /// What Helm was given: the only files the map reads.
    files: StagedFiles,
    /// Lines inside `define` blocks, in every template of the tree, by key.
    define_keys: HashMap<String, Vec<(usize, usize)>>,
    values: Vec<ValuesFile>,
    /// `# Source:` headers: where each starts, and the path it names.
    sources: Vec<(u32, String)>,
    /// The rendered stream's documents, parsed when the first finding is placed: output
    /// without findings is parsed once, by the lint.
    documents: Option<Vec<Document>>,
    maps: HashMap<usize, DocumentMap>,
    /// Files that do not exist on disk (templates inside chart archives), by name.
    virtual_files: HashMap<String, Arc<SourceFile>>,
}

impl HelmMap {
    /// Prepares the map for `chart`'s rendered output, from what Helm was given: the chart's
    /// stage, with the values files given after the chart's own.
    pub(crate) fn new(
        chart: &Chart,
        input: String,
        staged: StagedChart,
        rendered: &SourceFile,
    ) -> HelmMap {
        let StagedChart {
            files,
            chart: chart_dir,
            values,
        } = staged;
        let chart_key = format!("{chart_dir}/Chart.yaml");
        let chart_file = files
            .load(&chart_key)
            .unwrap_or_else(|| Arc::new(SourceFile::new(files.shown(&chart_key), "")));
        let mut map = HelmMap {
            input,
            chart_file,
            tree: Vec::new(),
            templates: Vec::new(),
            by_key: HashMap::new(),
            files,
            define_keys: HashMap::new(),
            values: Vec::new(),
            sources: source_headers(&rendered.text),
            documents: None,
            maps: HashMap::new(),
            virtual_files: HashMap::new(),
        };
        map.read_tree(chart, &chart_dir, &values);
        map
    }

    /// Reads the chart at `dir` in the stage and the charts vendored in it, with the values
    /// files `values` (keys of the stage).
    fn read_tree(&mut self, top: &Chart, dir: &str, values: &[String]) {
        let mut pending = vec![(
            dir.to_owned(),
            top.name.clone(),
            top.dependencies.clone(),
            Vec::<String>::new(),
        )];
        while let Some((dir, prefix, dependencies, value_keys)) = pending.pop() {
            // Templates and helpers: every file under `templates/`.
            let templates: Vec<String> = self
                .files
                .under(&format!("{dir}/templates"))
                .map(str::to_owned)
                .collect();
            for key in templates {
                if let Some(index) = self.load(&key) {
                    let loaded = &self.templates[index];
                    for (line_index, line) in loaded.template.lines.iter().enumerate() {
                        if let (Some(_), Some((key, _))) = (&line.define, &line.key) {
                            self.define_keys
                                .entry(key.clone())
                                .or_default()
                                .push((index, line_index));
                        }
                    }
                }
            }
            self.add_values(&format!("{dir}/values.yaml"), &prefix, &[]);
            // A parent's values file sets this chart's values under its name.
            let mut ancestors: Vec<&TreeChart> = Vec::new();
            for candidate in &self.tree {
                if prefix.starts_with(&format!("{}/", candidate.prefix)) {
                    ancestors.push(candidate);
                }
            }
            let parent_values: Vec<(String, Vec<String>)> = ancestors
                .iter()
                .filter_map(|ancestor| match &ancestor.location {
                    Location::Dir(dir) => Some((
                        format!("{dir}/values.yaml"),
                        value_keys[ancestor.value_keys.len()..].to_vec(),
                    )),
                    Location::Archive(_) => None,
                })
                .collect();
            for (path, keys) in parent_values {
                self.add_values(&path, &prefix, &keys);
            }
            for key in values {
                self.add_values(key, &prefix, &value_keys);
            }
            self.tree.push(TreeChart {
                prefix: prefix.clone(),
                location: Location::Dir(dir.clone()),
                value_keys: value_keys.clone(),
            });
            for (name, location, child_dependencies) in self.vendored(&dir) {
                let shown = dependencies
                    .iter()
                    .find(|d| d.name == name)
                    .and_then(|d| d.alias.clone())
                    .unwrap_or(name);
                let child_prefix = format!("{prefix}/charts/{shown}");
                let mut child_keys = value_keys.clone();
                child_keys.push(shown);
                match location {
                    Location::Dir(dir) => {
                        pending.push((dir, child_prefix, child_dependencies, child_keys));
                    }
                    archive @ Location::Archive(_) => self.tree.push(TreeChart {
                        prefix: child_prefix,
                        location: archive,
                        value_keys: child_keys,
                    }),
                }
            }
        }
        // Longest prefixes first, so that a subchart wins over its parent.
        self.tree
            .sort_by_key(|chart| std::cmp::Reverse(chart.prefix.len()));
    }

    /// The charts vendored under `charts/` of the staged chart `dir`, in order: each one's
    /// name, where it is, and its dependencies. Read from the stage's list, as Helm was given
    /// them ([`super::vendored`] reads the same from the user's tree).
    fn vendored(&self, dir: &str) -> Vec<(String, Location, Vec<Dependency>)> {
        let charts = format!("{dir}/charts");
        let mut entries: Vec<&str> = self
            .files
            .under(&charts)
            .filter_map(|key| key[charts.len() + 1..].split('/').next())
            .collect();
        entries.dedup();
        let mut found = Vec::new();
        for entry in entries {
            let child = format!("{charts}/{entry}");
            let chart_yaml = format!("{child}/Chart.yaml");
            if self.files.contains(&chart_yaml) {
                let Some(metadata) = self.files.load(&chart_yaml).and_then(|f| yaml_value(&f))
                else {
                    continue;
                };
                let Some(name) = metadata.get("name").and_then(serde_json::Value::as_str) else {
                    continue;
                };
                found.push((
                    name.to_owned(),
                    Location::Dir(child),
                    dependencies_in(&metadata),
                ));
            } else if let Some(stem) = entry.strip_suffix(".tgz")
                && self.files.contains(&child)
            {
                found.push((
                    archive_chart_name(stem).to_owned(),
                    Location::Archive(self.files.shown(&child)),
                    Vec::new(),
                ));
            }
        }
        found
    }

    /// The template at `key` in the stage, read and parsed once.
    fn load(&mut self, key: &str) -> Option<usize> {
        if let Some(&index) = self.by_key.get(key) {
            return Some(index);
        }
        let file = self.files.load(key)?;
        let text = &file.text;
        let template = Template::parse(text);
        let mut keys: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, line) in template.lines.iter().enumerate() {
            if let Some((key, _)) = &line.key {
                keys.entry(key.clone()).or_default().push(index);
            }
        }
        self.templates.push(Loaded {
            file,
            template,
            keys,
        });
        let index = self.templates.len() - 1;
        self.by_key.insert(key.to_owned(), index);
        Some(index)
    }

    fn add_values(&mut self, key: &str, chart: &str, key_prefix: &[String]) {
        let Some(file) = self.files.load(key) else {
            return;
        };
        let mut documents = yaml::parse_stream(&file.text);
        if documents.is_empty() {
            return;
        }
        let document = documents.swap_remove(0);
        self.values.push(ValuesFile {
            file,
            document,
            chart: chart.to_owned(),
            key_prefix: key_prefix.to_vec(),
        });
    }

    /// Moves a finding from the rendered output to the file that wrote it.
    /// The rendered stream's documents (parsed by [`HelmMap::place`] before any use).
    fn documents(&self) -> &[Document] {
        self.documents.as_deref().unwrap_or_default()
    }

    /// The files the map reads.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn staged_files(&self) -> &StagedFiles {
        &self.files
    }

    pub(crate) fn place(
        &mut self,
        rendered: &SourceFile,
        mut diagnostic: Diagnostic,
    ) -> (Arc<SourceFile>, Diagnostic) {
        diagnostic.fixes.clear();
        if self.documents.is_none() {
            self.documents = Some(yaml::parse_stream(&rendered.text));
        }
        let mut rendered_info = RenderOrigin {
            tool: RenderTool::Helm,
            input: self.input.clone(),
            placement: Placement::Exact,
            command: RenderTool::Helm.command(),
        };
        let Some(document) = document_at(self.documents(), diagnostic.span.start) else {
            rendered_info.placement = Placement::File;
            diagnostic.span = Span::empty(0);
            diagnostic.labels.clear();
            diagnostic.rendered = Some(rendered_info);
            return (Arc::clone(&self.chart_file), diagnostic);
        };
        self.ensure(document, rendered);
        let primary = self.map_span(document, rendered, diagnostic.span);
        let (file, span, values_paths) = match primary {
            Some((template, span, values)) => {
                let file = Arc::clone(&self.templates[template].file);
                (file, span, values.into_iter().collect::<Vec<_>>())
            }
            None => {
                let (file, span, placement) = self.fallback(document, &diagnostic);
                rendered_info.placement = placement;
                (file, span, Vec::new())
            }
        };
        let mut labels = Vec::new();
        let mut unplaced = Vec::new();
        let mut label_values = Vec::new();
        for label in std::mem::take(&mut diagnostic.labels) {
            match self.map_span(document, rendered, label.span) {
                Some((template, span, values)) => {
                    let other = &self.templates[template].file;
                    let file_of_label = (other.path != file.path).then(|| Arc::clone(other));
                    if let Some(values) = values {
                        label_values.push((values, label.span));
                    }
                    labels.push(Label {
                        span,
                        message: label.message,
                        file: file_of_label,
                    });
                }
                None => unplaced.push(label.message),
            }
        }
        // Values files: where the primary's value and each label's value were set.
        let mut seen = Vec::new();
        for (values, rendered_span) in values_paths
            .into_iter()
            .map(|v| (v, diagnostic.span))
            .chain(label_values)
        {
            if seen.contains(&values) {
                continue;
            }
            if let Some(label) = self.values_label(document, rendered, &values, rendered_span) {
                labels.push(label);
            }
            seen.push(values);
        }
        for message in unplaced {
            diagnostic.notes.push(format!(
                "{message} (in the rendered output; podcycle cannot place it in the chart)"
            ));
        }
        diagnostic.notes.extend(self.unplaced_source(document));
        diagnostic.span = span;
        diagnostic.labels = labels;
        diagnostic.rendered = Some(rendered_info);
        (file, diagnostic)
    }

    /// Where a finding goes when its field cannot be placed: the `kind:` line of the object in
    /// its template, or else the template (or the chart) as a whole.
    fn fallback(
        &mut self,
        document: usize,
        diagnostic: &Diagnostic,
    ) -> (Arc<SourceFile>, Span, Placement) {
        let map = &self.maps[&document];
        let Some(template) = map.source else {
            // A template inside an archive is named as the archive; whatever else the output
            // names is not a file podcycle reads: the finding is about the chart.
            let archive = map
                .source_path
                .as_deref()
                .and_then(|p| self.archive_path(p));
            let file = match archive {
                Some(shown) => self.virtual_file(shown),
                None => Arc::clone(&self.chart_file),
            };
            return (file, Span::empty(0), Placement::File);
        };
        let loaded = &self.templates[template];
        let kind = diagnostic.object.as_ref().map(|o| o.kind.as_str());
        let kind_line = loaded
            .keys
            .get("kind")
            .into_iter()
            .flatten()
            .find(|&&line| {
                let line = &loaded.template.lines[line];
                line.define.is_none()
                    && line.path.len() == 1
                    && line.value.as_ref().is_some_and(|v| {
                        Some(loaded.file.text[v.clone()].trim_matches(['"', '\''])) == kind
                    })
            });
        match kind_line {
            Some(&line) => {
                let key = loaded.template.lines[line]
                    .key
                    .as_ref()
                    .map(|(_, r)| r.clone());
                let range = key.unwrap_or(loaded.template.lines[line].range.clone());
                (
                    Arc::clone(&loaded.file),
                    Span::new(range.start, range.end),
                    Placement::Object,
                )
            }
            None => (Arc::clone(&loaded.file), Span::empty(0), Placement::File),
        }
    }

    fn virtual_file(&mut self, shown: String) -> Arc<SourceFile> {
        Arc::clone(
            self.virtual_files
                .entry(shown.clone())
                .or_insert_with(|| Arc::new(SourceFile::new(shown, ""))),
        )
    }

    /// `web/charts/redis/templates/x.yaml` in an archive: `charts/web/charts/redis-1.0.tgz`.
    fn archive_path(&self, source: &str) -> Option<String> {
        self.tree.iter().find_map(|chart| match &chart.location {
            Location::Archive(shown) if source.starts_with(&format!("{}/", chart.prefix)) => {
                Some(shown.clone())
            }
            _ => None,
        })
    }

    /// The staged template a `# Source:` path names. The header is the output's, which the
    /// chart writes as it likes (`{{ print "# Source: web/templates/../../../x" }}`): it is
    /// read as text, normalised within its chart, and only a template the stage holds is
    /// taken — never a path resolved on the file system.
    fn source_file(&self, source: &str) -> Option<String> {
        self.tree.iter().find_map(|chart| {
            let rest = source.strip_prefix(&format!("{}/", chart.prefix))?;
            let Location::Dir(dir) = &chart.location else {
                return None;
            };
            let within = normalise(rest)?;
            if !within.starts_with("templates/") {
                return None;
            }
            let key = format!("{dir}/{within}");
            self.files.contains(&key).then_some(key)
        })
    }

    /// What to say of a finding whose document names a source podcycle does not read: the
    /// place the output claims is not one of the templates Helm was given.
    fn unplaced_source(&self, document: usize) -> Option<String> {
        let map = &self.maps[&document];
        let named = map.source_path.as_deref()?;
        if map.source.is_some() || self.archive_path(named).is_some() {
            return None;
        }
        Some(format!(
            "the output says `{}` wrote this, which is none of the chart's templates podcycle gave Helm, so podcycle did not read it",
            crate::render::printable(&truncated(named))
        ))
    }

    fn chart_of_source(&self, source: &str) -> Option<usize> {
        self.tree
            .iter()
            .position(|chart| source.starts_with(&format!("{}/", chart.prefix)))
    }

    /// Works out the hits of a rendered document, once.
    fn ensure(&mut self, document: usize, rendered: &SourceFile) {
        if self.maps.contains_key(&document) {
            return;
        }
        let start = self.documents()[document].span.start;
        let end = self
            .documents()
            .get(document + 1)
            .map_or(u32::MAX, |d| d.span.start);
        // The header is a comment at the top of the document (before its first node).
        // Helm writes `---` and `# Source: …` before each document: the last header before the
        // next document is this one's.
        let _ = start;
        let source_path = self
            .sources
            .iter()
            .rev()
            .find(|(at, _)| *at < end)
            .map(|(_, path)| path.clone());
        let source = source_path
            .as_deref()
            .and_then(|path| self.source_file(path))
            .and_then(|key| self.load(&key));
        let chart = source_path.as_deref().and_then(|p| self.chart_of_source(p));
        let lines = key_lines(&self.documents()[document], rendered);
        let hits = self.match_lines(source, chart, &lines, rendered);
        self.maps.insert(
            document,
            DocumentMap {
                source,
                source_path,
                chart,
                lines,
                hits,
            },
        );
    }

    /// Matches every rendered key to the line that wrote it (see the module's documentation).
    fn match_lines(
        &self,
        source: Option<usize>,
        chart: Option<usize>,
        lines: &[KeyLine],
        rendered: &SourceFile,
    ) -> Vec<Option<Hit>> {
        let mut hits: Vec<Option<Hit>> = vec![None; lines.len()];
        let mut occurrences: HashMap<(String, Vec<String>), usize> = HashMap::new();
        for (index, line) in lines.iter().enumerate() {
            let keys: Vec<String> = line.keys().into_iter().map(str::to_owned).collect();
            let occurrence = {
                let count = occurrences
                    .entry((line.key.clone(), keys.clone()))
                    .or_default();
                *count += 1;
                *count - 1
            };
            let value_text = line
                .value_span
                .map(|span| rendered.text[span.range()].to_owned());
            let mut best: Vec<(usize, usize)> = Vec::new();
            let mut best_score = 0;
            let candidates = source
                .into_iter()
                .flat_map(|t| {
                    self.templates[t]
                        .keys
                        .get(&line.key)
                        .into_iter()
                        .flatten()
                        .map(move |&l| (t, l))
                })
                .chain(
                    self.define_keys
                        .get(&line.key)
                        .into_iter()
                        .flatten()
                        .copied(),
                );
            for (template, line_index) in candidates {
                let candidate = &self.templates[template].template.lines[line_index];
                let Some(score) = score(
                    candidate,
                    &self.templates[template].file.text,
                    &keys,
                    value_text.as_deref(),
                    Some(template) == source && candidate.define.is_none(),
                ) else {
                    continue;
                };
                if score > best_score {
                    best_score = score;
                    best.clear();
                }
                if score == best_score && !best.contains(&(template, line_index)) {
                    best.push((template, line_index));
                }
            }
            let chosen = match best.len() {
                0 => None,
                1 => Some(best[0]),
                // Several lines write this key at this path (two literal containers): the
                // n-th occurrence in the output is the n-th in the template.
                _ => best.get(occurrence).copied(),
            };
            hits[index] = match chosen {
                Some((template, line_index)) => {
                    let candidate = &self.templates[template].template.lines[line_index];
                    Some(Hit {
                        template,
                        line: line_index,
                        values: line_values(candidate, &self.templates[template].file.text),
                        action: None,
                    })
                }
                None => self.written_by_action(chart, lines, &hits, index),
            };
        }
        hits
    }

    /// A key no template line writes literally: the action under (or on) its parent's line
    /// that wrote it.
    fn written_by_action(
        &self,
        chart: Option<usize>,
        lines: &[KeyLine],
        hits: &[Option<Hit>],
        index: usize,
    ) -> Option<Hit> {
        let line = &lines[index];
        let (parent, parent_hit) = (0..index).rev().find_map(|i| {
            let candidate = &lines[i];
            let is_ancestor =
                candidate.path.len() < line.path.len() && line.path.starts_with(&candidate.path);
            is_ancestor.then_some((candidate, hits[i].as_ref()))
        })?;
        let parent_hit = parent_hit?;
        let relative: Vec<String> = keys_of(&line.path[parent.path.len()..])
            .into_iter()
            .map(str::to_owned)
            .collect();
        let extend = |values: &Option<Vec<String>>| {
            values.as_ref().map(|v| {
                let mut path = v.clone();
                path.extend(relative.iter().cloned());
                path
            })
        };
        if parent_hit.action.is_some() {
            return Some(Hit {
                values: extend(&parent_hit.values),
                ..parent_hit.clone()
            });
        }
        let loaded = &self.templates[parent_hit.template];
        let text = &loaded.file.text;
        let parent_line = &loaded.template.lines[parent_hit.line];
        // `key: {{ toYaml .Values.x | nindent 8 }}`: the action on the parent's own line.
        if let Some(value) = &parent_line.value {
            let actions: Vec<&Range<usize>> = parent_line
                .actions
                .iter()
                .filter(|a| a.start >= value.start && emits(&text[(*a).clone()]))
                .collect();
            if let [action] = actions[..] {
                let values = values_path(action_body(&text[action.clone()]), &parent_line.dot);
                return Some(Hit {
                    template: parent_hit.template,
                    line: parent_hit.line,
                    values: extend(&values),
                    action: Some(action.clone()),
                });
            }
        }
        // The actions of the parent's block: the lines after it, up to the next key that is
        // not deeper than the parent's.
        let mut emitting: Vec<(usize, Range<usize>, Option<Vec<String>>)> = Vec::new();
        for (line_index, candidate) in loaded
            .template
            .lines
            .iter()
            .enumerate()
            .skip(parent_hit.line + 1)
        {
            if candidate.define != parent_line.define {
                break;
            }
            if candidate.key.is_some() && candidate.column <= parent_line.column {
                break;
            }
            if !candidate.only_actions {
                continue;
            }
            for action in &candidate.actions {
                let body = &text[action.clone()];
                if emits(body) {
                    let values = values_path(action_body(body), &candidate.dot);
                    emitting.push((line_index, action.clone(), extend(&values)));
                }
            }
        }
        let chosen = match emitting.len() {
            0 => return None,
            1 => emitting.pop(),
            // Several actions fill the block: the one whose values hold the key, if only one does.
            _ => {
                let holding: Vec<_> = emitting
                    .into_iter()
                    .filter(|(_, _, values)| {
                        values
                            .as_ref()
                            .is_some_and(|v| self.values_file_for(chart, v).is_some())
                    })
                    .collect();
                if holding.len() == 1 {
                    holding.into_iter().next()
                } else {
                    None
                }
            }
        }?;
        Some(Hit {
            template: parent_hit.template,
            line: chosen.0,
            values: chosen.2,
            action: Some(chosen.1),
        })
    }

    /// Where in which template a span of the rendered output was written, and the values path
    /// behind it.
    fn map_span(
        &self,
        document: usize,
        rendered: &SourceFile,
        span: Span,
    ) -> Option<(usize, Span, Option<Vec<String>>)> {
        let map = &self.maps[&document];
        let line_number = rendered.lines.line_of(span.start as usize);
        let on_line: Vec<usize> = map
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.line == line_number)
            .map(|(i, _)| i)
            .collect();
        let index = on_line
            .iter()
            .copied()
            .find(|&i| {
                let line = &map.lines[i];
                contains(line.key_span, span.start)
                    || line.value_span.is_some_and(|v| contains(v, span.start))
            })
            .or_else(|| on_line.first().copied());
        if let Some(index) = index {
            let line = &map.lines[index];
            let Some(hit) = map.hits[index].as_ref() else {
                return self.on_literal_line(map, rendered, &on_line, span);
            };
            let loaded = &self.templates[hit.template];
            let template_line = &loaded.template.lines[hit.line];
            let range = match &hit.action {
                Some(action) => action.clone(),
                None => column_range(
                    template_line,
                    &loaded.file.text,
                    &rendered.text[span.range()],
                    contains(line.key_span, span.start),
                ),
            };
            return Some((
                hit.template,
                Span::new(range.start, range.end),
                hit.values.clone(),
            ));
        }
        // A line without a key (a list item, a block scalar's line): find the same text in the
        // block of the nearest key above it.
        let column = span.start as usize - rendered.lines.line_start(line_number);
        let (_, hit) = map
            .lines
            .iter()
            .zip(&map.hits)
            .rev()
            .find(|(l, _)| l.key_span.start < span.start && l.column < column)?;
        let hit = hit.as_ref()?;
        let loaded = &self.templates[hit.template];
        if let Some(action) = &hit.action {
            return Some((
                hit.template,
                Span::new(action.start, action.end),
                hit.values.clone(),
            ));
        }
        let wanted = line_text(&rendered.text, rendered, line_number)
            .trim()
            .trim_start_matches("- ")
            .trim();
        if wanted.is_empty() {
            return None;
        }
        let parent = &loaded.template.lines[hit.line];
        let block: Vec<&TemplateLine> = loaded
            .template
            .lines
            .iter()
            .skip(hit.line + 1)
            .take_while(|candidate| candidate.key.is_none() || candidate.column > parent.column)
            .collect();
        for candidate in &block {
            let text = &loaded.file.text[candidate.range.clone()];
            if let Some(at) = text.find(wanted) {
                let start = candidate.range.start + at;
                return Some((hit.template, Span::new(start, start + wanted.len()), None));
            }
        }
        // A list item an action wrote part of (`- --port={{ .Values.port }}`): the one item of
        // the block whose literal text the rendered item has, in order; several that could
        // have written it are not told apart.
        let written: Vec<(&TemplateLine, Range<usize>)> = block
            .iter()
            .filter_map(|candidate| {
                let item = list_item(candidate, &loaded.file.text)?;
                writes_item(candidate, &loaded.file.text, item.clone(), wanted)
                    .then_some((*candidate, item))
            })
            .collect();
        let [(candidate, item)] = written.as_slice() else {
            return None;
        };
        let actions: Vec<&Range<usize>> = candidate
            .actions
            .iter()
            .filter(|a| emits(&loaded.file.text[(*a).clone()]))
            .collect();
        Some(match actions.as_slice() {
            [action] => (
                hit.template,
                Span::new(action.start, action.end),
                values_path(
                    action_body(&loaded.file.text[(*action).clone()]),
                    &candidate.dot,
                ),
            ),
            _ => (hit.template, Span::new(item.start, item.end), None),
        })
    }

    /// A key the template's lines do not name, inside a flow collection of a literal line
    /// (`httpGet: {path: /ready, port: http}`): Helm wrote the line as it is, so the span is
    /// at the same place in the template's line as in the rendered one.
    fn on_literal_line(
        &self,
        map: &DocumentMap,
        rendered: &SourceFile,
        on_line: &[usize],
        span: Span,
    ) -> Option<(usize, Span, Option<Vec<String>>)> {
        let line_number = rendered.lines.line_of(span.start as usize);
        let rendered_line = line_text(&rendered.text, rendered, line_number);
        let rendered_start = rendered.lines.line_start(line_number);
        let hit = on_line
            .iter()
            .filter_map(|&i| map.hits[i].as_ref())
            .find(|hit| {
                let loaded = &self.templates[hit.template];
                let template_line = &loaded.template.lines[hit.line];
                hit.action.is_none()
                    && template_line.actions.is_empty()
                    && loaded.file.text[template_line.range.clone()].trim() == rendered_line.trim()
            })?;
        let template_line = &self.templates[hit.template].template.lines[hit.line];
        let template_text = &self.templates[hit.template].file.text[template_line.range.clone()];
        // The same text after each line's indentation.
        let indent = |text: &str| text.len() - text.trim_start().len();
        let lead = indent(rendered_line);
        let body = lead + rendered_line.trim().len();
        let from = span.start as usize - rendered_start;
        if !(lead..=body).contains(&from) {
            return None;
        }
        let to = (span.end as usize - rendered_start).clamp(from, body);
        // A helper's line may be indented less than the output it writes into.
        let at = template_line.range.start + indent(template_text);
        Some((
            hit.template,
            Span::new(at + (from - lead), at + (to - lead)),
            None,
        ))
    }

    /// The values file with the highest precedence that sets `path` for a chart's templates.
    fn values_file_for(
        &self,
        chart: Option<usize>,
        path: &[String],
    ) -> Option<(usize, NodeId, Option<Span>)> {
        let prefix = chart.map(|c| self.tree[c].prefix.as_str());
        self.values
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, values)| prefix.is_none_or(|p| values.chart == p))
            .find_map(|(index, values)| {
                let root = values.document.root?;
                let full: Vec<PathSegment> = values
                    .key_prefix
                    .iter()
                    .chain(path)
                    .map(|k| PathSegment::Key(k.clone()))
                    .collect();
                let located = yaml::lookup(&values.document, root, &full);
                located
                    .complete
                    .then_some((index, located.node, located.key))
            })
    }

    fn values_label(
        &self,
        document: usize,
        rendered: &SourceFile,
        path: &[String],
        rendered_span: Span,
    ) -> Option<Label> {
        let chart = self.maps[&document].chart;
        let (index, node, key) = self.values_file_for(chart, path)?;
        let values = &self.values[index];
        let rendered_document = &self.documents()[document];
        let field = field_at(rendered_document, rendered_span);
        // A scalar must be the value that was rendered (a `default` may have written another);
        // a mapping or list was formatted in, and an empty one wrote nothing a finding is in.
        let scalar = values.document.scalar(node);
        if let Some(scalar) = &scalar {
            let rendered_value = rendered_document.root.and_then(|root| {
                let located = yaml::lookup(rendered_document, root, &field.path);
                located.complete.then_some(located.node)
            });
            let rendered_value = rendered_value
                .and_then(|n| rendered_document.scalar(n))
                .map(|s| s.value);
            let agrees = rendered_value == Some(scalar.value)
                || rendered.text[rendered_span.range()].trim_matches(['"', '\'']) == scalar.value;
            if !agrees {
                return None;
            }
        } else if values.document.mapping(node).is_some_and(<[_]>::is_empty)
            || values.document.sequence(node).is_some_and(<[_]>::is_empty)
        {
            return None;
        }
        // The same part as in the rendered output: a finding at a value labels the value that
        // was set, one at a key (or a block formatted in) the key that set it.
        let at_value = scalar.is_some() && field.part == Part::Value;
        let span = match key {
            Some(key) if !at_value => key,
            _ => values.document.node(node).span,
        };
        Some(Label {
            span,
            message: format!("`.Values.{}` is set here", path.join(".")),
            file: Some(Arc::clone(&values.file)),
        })
    }
}

/// How well a template line matches a rendered key; `None` when it cannot have written it.
fn score(
    candidate: &TemplateLine,
    text: &str,
    keys: &[String],
    value: Option<&str>,
    in_source: bool,
) -> Option<usize> {
    // The template's path must be the tail of the rendered one.
    if candidate.path.len() > keys.len() || !keys.ends_with(&candidate.path) {
        return None;
    }
    // A top-level line of the document's own template writes the whole path.
    if in_source && candidate.path.len() != keys.len() {
        return None;
    }
    let mut score = candidate.path.len() * 4 + usize::from(in_source) * 2;
    if let Some(template_value) = &candidate.value {
        let written = &text[template_value.clone()];
        let literal = !candidate
            .actions
            .iter()
            .any(|a| a.start >= template_value.start);
        match value {
            Some(value) if literal => {
                if strip_comment(written).trim_matches(['"', '\''])
                    != value.trim_matches(['"', '\''])
                {
                    return None;
                }
                score += 1;
            }
            Some(value) if !literal_parts_agree(candidate, text, template_value, value) => {
                return None;
            }
            Some(_) => {}
            // A literal inline value where the output has a block: another line.
            None if literal && !written.starts_with(['|', '>', '[', '{', '&', '*', '#']) => {
                return None;
            }
            None => {}
        }
    }
    Some(score)
}

fn strip_comment(value: &str) -> &str {
    match value.find(" #") {
        Some(at) => value[..at].trim_end(),
        None => value,
    }
}

/// Whether the literal text around a value's actions appears, in order, in the rendered value.
fn literal_parts_agree(
    line: &TemplateLine,
    text: &str,
    value: &Range<usize>,
    rendered: &str,
) -> bool {
    let mut at = value.start;
    let mut position = 0;
    for action in line.actions.iter().filter(|a| a.start >= value.start) {
        let part = text[at..action.start].trim_matches(['"', '\'']);
        if !part.is_empty() {
            match rendered[position..].find(part) {
                Some(found) => position += found + part.len(),
                None => return false,
            }
        }
        at = action.end;
    }
    let rest = text[at.min(value.end)..value.end].trim_matches(['"', '\'']);
    rest.is_empty() || rendered[position..].contains(rest)
}

/// The values path of a line's value, when it is one simple reference.
fn line_values(line: &TemplateLine, text: &str) -> Option<Vec<String>> {
    let value = line.value.as_ref()?;
    let actions: Vec<&Range<usize>> = line
        .actions
        .iter()
        .filter(|a| a.start >= value.start)
        .collect();
    let [action] = actions[..] else {
        return None;
    };
    values_path(action_body(&text[action.clone()]), &line.dot)
}

/// The byte range of a template line's list item after `- `, when the line is one that holds
/// an action writing output and no key.
fn list_item(line: &TemplateLine, text: &str) -> Option<Range<usize>> {
    if line.key.is_some() || !line.actions.iter().any(|a| emits(&text[a.clone()])) {
        return None;
    }
    let content = &text[line.range.clone()];
    let lead = content.len() - content.trim_start().len();
    let after_dash = content[lead..].strip_prefix("- ")?;
    let start = line.range.start + content.len() - after_dash.len();
    Some(start..start + after_dash.trim_end().len())
}

/// Whether the list item `item` of a template line can have written `rendered`: its literal
/// text, between the actions (which may write anything), in order, and nothing else.
fn writes_item(line: &TemplateLine, text: &str, item: Range<usize>, rendered: &str) -> bool {
    let mut literals: Vec<&str> = Vec::new();
    let mut from = item.start;
    for action in line.actions.iter().filter(|a| item.contains(&a.start)) {
        literals.push(&text[from..action.start]);
        from = action.end.min(item.end);
    }
    literals.push(&text[from..item.end]);
    let rendered = rendered.trim_matches(['"', '\'']);
    let literals: Vec<&str> = literals
        .iter()
        .map(|l| l.trim_matches(['"', '\'']))
        .collect();
    let (Some(first), Some(last)) = (literals.first(), literals.last()) else {
        return false;
    };
    if literals.len() == 1 {
        return *first == rendered;
    }
    let Some(mut rest) = rendered.strip_prefix(first) else {
        return false;
    };
    let Some(without_last) = rest.strip_suffix(last) else {
        return false;
    };
    rest = without_last;
    for literal in &literals[1..literals.len() - 1] {
        match rest.find(literal) {
            Some(at) => rest = &rest[at + literal.len()..],
            None => return false,
        }
    }
    true
}

/// Whether an action writes output (rather than steering: `if`, `end`, `with`, …).
fn emits(action: &str) -> bool {
    let body = action_body(action);
    let word = body.split_whitespace().next().unwrap_or_default();
    !(matches!(
        word,
        "if" | "else" | "end" | "with" | "range" | "define" | "block" | "break" | "continue"
    ) || body.starts_with("/*")
        || body.starts_with('$') && body.contains(":=")
        || body.starts_with('$') && body.contains(" = "))
}

/// The columns of a template line that correspond to a rendered key or value.
fn column_range(line: &TemplateLine, text: &str, rendered: &str, is_key: bool) -> Range<usize> {
    if let (true, Some((_, key))) = (is_key, &line.key) {
        return key.clone();
    }
    let token = rendered.lines().next().unwrap_or_default().trim();
    let search_from = line.key.as_ref().map_or(line.range.start, |(_, k)| k.end);
    if !token.is_empty() {
        let mut at = search_from;
        while let Some(found) = text[at..line.range.end].find(token) {
            let start = at + found;
            let end = start + token.len();
            if !line.actions.iter().any(|a| a.start < end && start < a.end) {
                return start..end;
            }
            at = start + 1;
        }
    }
    if let Some(value) = &line.value {
        if let Some(action) = line.actions.iter().find(|a| a.start >= value.start) {
            return action.clone();
        }
        return value.clone();
    }
    line.key
        .as_ref()
        .map_or(line.range.clone(), |(_, k)| k.clone())
}

fn contains(span: Span, offset: u32) -> bool {
    span.start <= offset && offset < span.end.max(span.start + 1)
}

fn line_text<'a>(text: &'a str, file: &SourceFile, line: usize) -> &'a str {
    let start = file.lines.line_start(line);
    let end = file.lines.content_end(text, line);
    &text[start..end]
}

/// `# Source: web/templates/deployment.yaml` headers: the offset of each, and the path.
fn source_headers(text: &str) -> Vec<(u32, String)> {
    let mut headers = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("# Source: ") {
            headers.push((
                u32::try_from(offset).unwrap_or(u32::MAX),
                path.trim_end().to_owned(),
            ));
        }
        offset += line.len();
    }
    headers
}

/// The first document of a staged YAML file, as JSON (a `Chart.yaml`).
fn yaml_value(file: &SourceFile) -> Option<serde_json::Value> {
    let documents = yaml::parse_stream(&file.text);
    let document = documents.first()?;
    yaml::to_json(document, document.root?).ok()
}

/// A path the output names, short enough for a note.
fn truncated(path: &str) -> String {
    const MOST: usize = 200;
    match path.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}…", &path[..at]),
        None => path.to_owned(),
    }
}

impl std::fmt::Debug for HelmMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HelmMap")
            .field("input", &self.input)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Enforcement, Severity};
    use crate::render::staged::StageList;
    use std::path::{Path, PathBuf};

    /// A chart `web` staged with `files` (relative to the chart), beside a file outside it.
    fn staged_chart(files: &[(&str, &str)]) -> (tempfile::TempDir, Chart, StagedChart) {
        let dir = tempfile::tempdir().unwrap();
        let mut list = StageList::default();
        for (path, text) in files {
            let relative = Path::new("chart/web").join(path);
            let target = dir.path().join(&relative);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, text).unwrap();
            list.copied(&relative, text.as_bytes());
        }
        std::fs::write(dir.path().join("outside.yaml"), "kind: Pod  # secret\n").unwrap();
        let files = StagedFiles::new(
            &list,
            dir.path(),
            None,
            vec![("chart/web".to_owned(), PathBuf::from("charts/web"))],
        );
        let chart = Chart {
            dir: PathBuf::from("charts/web"),
            name: "web".to_owned(),
            library: false,
            dependencies: Vec::new(),
        };
        let staged = StagedChart {
            files,
            chart: "chart/web".to_owned(),
            values: Vec::new(),
        };
        (dir, chart, staged)
    }

    /// A finding at `needle`'s first occurrence after `from` in the rendered stream.
    fn finding_at(rendered: &SourceFile, from: usize, needle: &str) -> Diagnostic {
        let at = from + rendered.text[from..].find(needle).unwrap();
        Diagnostic::new(
            "test",
            Severity::Warning,
            Enforcement::Decoder,
            Span::new(at, at + needle.len()),
            "m".to_owned(),
        )
    }

    /// Forty spellings of one template in `# Source:` headers: the template is read and parsed
    /// once, and every finding lands in it.
    #[test]
    fn a_template_is_loaded_once_whatever_spelling_names_it() {
        let template = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: x\n";
        let (_dir, chart, staged) = staged_chart(&[
            ("Chart.yaml", "name: web\n"),
            ("templates/pod.yaml", template),
            ("templates/other.yaml", "kind: ConfigMap\n"),
        ]);
        let mut text = String::new();
        let mut spelling = "templates/pod.yaml".to_owned();
        for _ in 0..40 {
            text.push_str(&format!("---\n# Source: web/{spelling}\n{template}"));
            spelling = format!("templates/../{spelling}");
        }
        let rendered = SourceFile::new("web (rendered)", text);
        let mut map = HelmMap::new(&chart, "charts/web".to_owned(), staged, &rendered);
        let mut from = 0;
        for _ in 0..40 {
            let diagnostic = finding_at(&rendered, from, "image: x");
            from = diagnostic.span.end as usize;
            let (file, placed) = map.place(&rendered, diagnostic);
            assert_eq!(file.path, "charts/web/templates/pod.yaml");
            assert_eq!(placed.rendered.unwrap().placement, Placement::Exact);
        }
        // Chart.yaml and the two templates, each once.
        assert_eq!(map.files.loads(), 3);
        assert_eq!(map.templates.len(), 2);
    }

    /// A header that climbs out of the chart, is absolute, or names a template the stage does
    /// not hold is not opened: the finding is about the chart, and says why.
    #[test]
    fn a_header_naming_anything_but_a_staged_template_is_not_read() {
        let template = "kind: Pod\nmetadata:\n  name: p\n";
        for header in [
            "web/templates/../../../outside.yaml",
            "web/templates/../../../../../../../../../../etc/passwd",
            "/etc/passwd",
            "web//etc/passwd",
            "web/templates/missing.yaml",
            "web/values.yaml",
        ] {
            let (_dir, chart, staged) = staged_chart(&[
                ("Chart.yaml", "name: web\n"),
                ("values.yaml", "a: 1\n"),
                ("templates/pod.yaml", template),
            ]);
            let text = format!("---\n# Source: {header}\n{template}");
            let rendered = SourceFile::new("web (rendered)", text);
            let mut map = HelmMap::new(&chart, "charts/web".to_owned(), staged, &rendered);
            let (file, placed) = map.place(&rendered, finding_at(&rendered, 0, "name: p"));
            assert_eq!(file.path, "charts/web/Chart.yaml", "{header}");
            assert!(!file.text.contains("secret"), "{header}");
            assert!(
                placed
                    .notes
                    .iter()
                    .any(|n| n.contains("none of the chart's templates podcycle gave Helm")),
                "{header}: {:?}",
                placed.notes
            );
        }
    }

    #[test]
    fn a_list_item_is_written_by_its_literal_text_and_actions() {
        let text = "args:\n  - --verbose\n  - --port={{ .Values.port }}\n  - \"{{ .Values.a }}-{{ .Values.b }}x\"\n  {{- if .Values.debug }}\n  - {{ .Values.level | quote }}\n";
        let template = Template::parse(text);
        let line = |n: usize| &template.lines[n];
        let writes = |n: usize, rendered: &str| {
            list_item(line(n), text).is_some_and(|item| writes_item(line(n), text, item, rendered))
        };
        assert_eq!(list_item(line(1), text), None, "no action");
        assert_eq!(
            list_item(line(4), text),
            None,
            "an action that writes nothing"
        );
        let item = list_item(line(2), text).unwrap();
        assert_eq!(&text[item], "--port={{ .Values.port }}");
        assert!(writes(2, "--port=9000"));
        assert!(!writes(2, "--verbose"));
        assert!(!writes(2, "--port"), "the literal text is all there");
        assert!(writes(3, "1-2x"));
        assert!(writes(3, "\"1-2x\""));
        assert!(!writes(3, "12x"), "the literal between the actions");
        assert!(!writes(3, "1-2"), "the literal after them");
        assert!(writes(5, "anything"), "one action writes any item");
    }
}
