//! Suppressions: comments and annotations that silence named rules where they apply, and the
//! problems with the suppressions themselves, which `unused-suppression` reports.
//!
//! - `comment`: `# podcycle: ignore[rule-a, rule-b] reason` at the end of a line applies to
//!   the outermost mapping entry or list item that starts on that line, with everything under
//!   it; alone on its line, to the one that starts on the next line with YAML on it (`scope`).
//!   `# podcycle: ignore-file[rule] reason` applies to the whole document it is in.
//! - `annotation`: `podcycle.io/ignore: "rule-a,rule-b"`, with `podcycle.io/ignore-reason`,
//!   applies to the object that carries it; so does kube-linter's
//!   `ignore-check.kube-linter.io/<check>` for the rules in `annotation::KUBE_LINTER_EQUIVALENTS`.
//!
//! A diagnostic is silenced when its primary span starts where a suppression of its rule
//! applies. A reason that is only a placeholder (`TODO: reason`, what an editor's quick fix
//! writes) silences all the same and is reported until it is replaced.

mod annotation;
mod comment;
mod scope;

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::model::AnyObject;
use crate::rules::{ALL_RULES, Rule};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use crate::suggest::did_you_mean_help;
use crate::yaml::Document;

pub(crate) use annotation::{IGNORE_ANNOTATION, KUBE_LINTER_ANNOTATION_PREFIX};
pub(crate) use comment::COMMENT_PREFIX;
pub use comment::REASON_PLACEHOLDER;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Comment,
    Annotation,
    KubeLinter,
}

/// A rule name in a suppression.
#[derive(Debug)]
struct Named {
    name: String,
    /// Where the name is written.
    span: Span,
    /// The rules it names: one, several for a former name, none for an unknown one.
    rules: &'static [&'static Rule],
    used: bool,
}

#[derive(Debug)]
struct Suppression {
    origin: Origin,
    /// Where it applies; `None` for the whole document.
    scope: Option<Span>,
    names: Vec<Named>,
}

/// Whether a scope covers an offset: an empty scope covers the offset where it is.
fn covers(scope: Option<Span>, at: u32) -> bool {
    scope.is_none_or(|scope| scope.start <= at && (at < scope.end || at == scope.start))
}

/// Something to report about a suppression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SuppressionProblem {
    pub(crate) span: Span,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

impl SuppressionProblem {
    fn new(span: Span, message: impl Into<String>, help: impl Into<String>) -> Self {
        SuppressionProblem {
            span,
            message: message.into(),
            help: Some(help.into()),
        }
    }
}

/// The suppressions of one document.
#[derive(Debug, Default)]
pub(crate) struct Suppressions {
    active: Vec<Suppression>,
    /// Problems found while reading them: unreadable comments, missing reasons, placeholders.
    problems: Vec<SuppressionProblem>,
}

impl Suppressions {
    /// Reads the suppression comments of `document` and the annotations of its `objects`.
    pub(crate) fn read(
        file: &SourceFile,
        document: &Document,
        objects: &[AnyObject],
    ) -> Suppressions {
        let mut suppressions = Suppressions::default();
        let mut scopes = None;
        for comment in &document.comments {
            let Some(directive) = comment::parse_comment(comment) else {
                continue;
            };
            match directive {
                Err(problem) => suppressions.problems.push(problem),
                Ok(directive) => {
                    let scope = if directive.whole_document {
                        None
                    } else {
                        let scopes = scopes.get_or_insert_with(|| scope::Scopes::of(document));
                        Some(scope::comment_scope(file, scopes, comment.span))
                    };
                    if let Some(span) = directive.placeholder {
                        suppressions
                            .problems
                            .push(comment::placeholder_problem(span));
                    }
                    suppressions.active.push(Suppression {
                        origin: Origin::Comment,
                        scope,
                        names: directive.names,
                    });
                }
            }
        }
        annotation::read(
            file,
            document,
            objects,
            &mut suppressions.active,
            &mut suppressions.problems,
        );
        suppressions
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.active.is_empty() && self.problems.is_empty()
    }

    /// Removes the diagnostics a suppression silences, and remembers which suppressions did.
    ///
    /// Linear in the diagnostics and suppressions: the suppressions of each rule are grouped by
    /// the place they cover and swept with the diagnostics in order of position, so that each
    /// diagnostic meets only the places around it (40,000 suppression comments made every
    /// diagnostic look at all of them).
    pub(crate) fn silence(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        if self.active.is_empty() {
            return;
        }
        // Per rule, the places its suppressions cover, each once, with the names that make it.
        let mut places: HashMap<&'static str, Vec<Place>> = HashMap::new();
        let mut index: HashMap<(&'static str, Option<Span>), usize> = HashMap::new();
        for (s, suppression) in self.active.iter().enumerate() {
            for (n, named) in suppression.names.iter().enumerate() {
                for rule in named.rules {
                    let of_rule = places.entry(rule.name).or_default();
                    let at = *index
                        .entry((rule.name, suppression.scope))
                        .or_insert_with(|| {
                            of_rule.push(Place {
                                scope: suppression.scope,
                                names: Vec::new(),
                                used: false,
                            });
                            of_rule.len() - 1
                        });
                    of_rule[at].names.push((s, n));
                }
            }
        }
        let mut sweeps: HashMap<&'static str, Sweep> = places
            .into_iter()
            .map(|(rule, mut places)| {
                // The whole document first, then by start.
                places.sort_by_key(|p| p.scope.map(|s| (s.start, s.end)));
                (rule, Sweep::new(places))
            })
            .collect();

        let mut order: Vec<usize> = (0..diagnostics.len()).collect();
        order.sort_by_key(|&i| diagnostics[i].span.start);
        let mut silenced = vec![false; diagnostics.len()];
        for i in order {
            if let Some(sweep) = sweeps.get_mut(diagnostics[i].rule) {
                silenced[i] = sweep.cover(diagnostics[i].span.start);
            }
        }
        for place in sweeps.into_values().flat_map(|s| s.places) {
            if place.used {
                for (s, n) in place.names {
                    self.active[s].names[n].used = true;
                }
            }
        }
        let mut silenced = silenced.into_iter();
        diagnostics.retain(|_| !silenced.next().unwrap_or(false));
    }

    /// What is wrong with the suppressions, after [`Suppressions::silence`]. A rule that is
    /// not enabled is never reported unused, and neither is any rule when `complete` is false
    /// (the document could not be read whole, so its rules did not all run).
    pub(crate) fn problems(&self, settings: &Settings, complete: bool) -> Vec<SuppressionProblem> {
        let mut problems = self.problems.clone();
        for suppression in &self.active {
            if suppression.origin == Origin::KubeLinter {
                continue;
            }
            for named in &suppression.names {
                match named.rules {
                    [] => problems.push(unknown_rule(named)),
                    rules
                        if complete
                            && !named.used
                            && rules.iter().any(|rule| {
                                rule.name != crate::rules::UNUSED_SUPPRESSION.name
                                    && settings.enabled(rule.name).is_some()
                            }) =>
                    {
                        let help = if suppression.names.len() == 1 {
                            "remove the suppression".to_owned()
                        } else {
                            format!("remove `{}` from the list", named.name)
                        };
                        problems.push(SuppressionProblem::new(
                            named.span,
                            format!("suppression of `{}` silences nothing", named.name),
                            help,
                        ));
                    }
                    _ => {}
                }
            }
        }
        problems
    }
}

/// A place one rule's suppressions cover, and the names (suppression, name) that cover it.
struct Place {
    scope: Option<Span>,
    names: Vec<(usize, usize)>,
    used: bool,
}

/// One rule's places, met in order of position.
struct Sweep {
    places: Vec<Place>,
    /// The places not reached yet start here.
    next: usize,
    /// Places reached that may still cover later positions.
    open: Vec<usize>,
}

impl Sweep {
    fn new(places: Vec<Place>) -> Sweep {
        Sweep {
            places,
            next: 0,
            open: Vec::new(),
        }
    }

    /// Whether a place covers `at`, marking those that do; `at` never decreases between calls.
    fn cover(&mut self, at: u32) -> bool {
        while let Some(place) = self.places.get(self.next)
            && place.scope.is_none_or(|s| s.start <= at)
        {
            self.open.push(self.next);
            self.next += 1;
        }
        let places = &self.places;
        // A place that ends at or before `at` covers nothing further on (unless it is empty and
        // `at` is where it is).
        self.open
            .retain(|&p| places[p].scope.is_none_or(|s| s.end > at || s.start == at));
        let mut covered = false;
        for &p in &self.open {
            if covers(self.places[p].scope, at) {
                self.places[p].used = true;
                covered = true;
            }
        }
        covered
    }
}

fn unknown_rule(named: &Named) -> SuppressionProblem {
    let names: Vec<&str> = ALL_RULES.iter().map(|r| r.name).collect();
    let help = match did_you_mean_help(&named.name, &names) {
        Some(suggestion) => suggestion,
        None if crate::rules::Category::from_name(&named.name).is_some() => {
            "suppressions name rules, not categories; `podcycle rules` lists them".to_owned()
        }
        None => "`podcycle rules` lists the rules".to_owned(),
    };
    SuppressionProblem::new(
        named.span,
        format!("unknown rule `{}` in suppression", named.name),
        help,
    )
}
