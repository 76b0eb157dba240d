//! The objects of one scope — a file, a rendered chart or overlay — that shape how its workloads
//! roll out and drain beyond their own spec: PodDisruptionBudgets, HorizontalPodAutoscalers, and
//! the workloads they are matched to, each with where it is.
//!
//! Matching follows Kubernetes:
//! - a PodDisruptionBudget covers the pods of its namespace that its selector selects
//!   (`pkg/registry/core/pod/storage/eviction.go`, `getPodDisruptionBudgets`; the disruption
//!   controller's `getPodsForPdb`), a missing selector none and an empty one all of them in
//!   `policy/v1` (client-go `listers/policy/v1/poddisruptionbudget_expansion.go`), none in
//!   `policy/v1beta1`; a workload's pods carry its template's labels;
//! - a HorizontalPodAutoscaler scales the object its `scaleTargetRef` names in its own namespace
//!   (`pkg/controller/podautoscaler/horizontal.go`, `reconcileAutoscaler`: the group and kind of
//!   the reference, its name, the HPA's namespace); where two or more name the same object,
//!   each finds the pods of the other (`selectorTracker.HPAsMatchingPods`) and stops with
//!   `AmbiguousSelector`: none of them scales it.
//!
//! A namespace left out on either side is taken to be the same one, as for Services: a chart or
//! an overlay applies its objects to one namespace.
//!
//! A file's part of a scope is read document by document as it is linted
//! (`Scope::add_document`, `Scope::read_part`); a scope of many files is the union of theirs
//! ([`Scope::union`]), which the rules read the same way. Matching is a join, done once per
//! scope: budgets with equal selectors form one group, matched once; the workloads' distinct
//! label sets are indexed by namespace and label, so a selector looks only at the label sets
//! that carry one of its labels; what a group's workloads add up to is counted once, and each
//! budget is judged from that ([`Scope::judgement`]). The cost is linear in the objects plus
//! the matches, never the product of budgets and workloads.

pub(crate) mod budget;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use podcycle_k8s::k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec;
use podcycle_k8s::k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec;
use podcycle_k8s::{Controller, TypeError};

use super::custom::{self, PodTemplateKinds};
use super::path::{FieldPath, PathSegment};
use super::selector;
use super::tree::ObjectTree;
use super::{AnyObject, ObjectRef, WorkloadKind, object_ref, objects};
use crate::source::{SourceFile, Span};
use crate::versions::KubeVersion;
use crate::yaml::{self, Comments, Document, lookup};
use budget::{BudgetJudgement, Selection, judge_budget};

/// Where an object of the scope is: its file, the document and the object's path in it, and
/// the line of its `metadata.name` (or of the object itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub(crate) file: Arc<str>,
    pub(crate) document: usize,
    /// Path from the document root to the object: empty, or `items[3]` inside a `List`.
    pub(crate) prefix: FieldPath,
    pub(crate) span: Span,
    pub(crate) line: usize,
}

impl Placed {
    /// `web.yaml:12`.
    pub(crate) fn display(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// How many pods a workload keeps, for a budget that counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PodCount {
    /// `spec.replicas`, written or defaulted (1).
    Replicas { replicas: i32, written: bool },
    /// One per node the DaemonSet runs on: a number the manifest does not tell.
    PerNode,
    /// A bare Pod: one.
    One,
    /// A Job's pods come and go; a custom kind's count is its controller's.
    Unknown,
}

/// How the disruption controller finds the scale of a workload's pods, for a budget with a
/// percentage or `maxUnavailable` (`pkg/controller/disruption/disruption.go`,
/// `getExpectedScale` and its `finders`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScaleLookup {
    /// Deployments, ReplicaSets, ReplicationControllers and StatefulSets: their `spec.replicas`.
    Replicas,
    /// DaemonSets, Jobs and CronJobs have no `scale` subresource: `getScaleController` fails
    /// ("does not implement the scale subresource") and the budget allows no disruption.
    NoScale,
    /// A bare Pod has no controller: it is left out of the count (`unmanagedPods`).
    Unmanaged,
    /// A custom kind: through its `scale` subresource, if it has one.
    Custom,
}

/// A workload of the scope, as budgets and autoscalers see it.
#[derive(Clone, Debug)]
pub struct ScopedWorkload {
    pub(crate) object: ObjectRef,
    /// The built-in kind, or for a custom kind the one whose rules its pods follow.
    pub kind: WorkloadKind,
    pub custom: bool,
    /// The labels of the pods of each of its pod templates.
    pub(crate) pod_labels: Vec<BTreeMap<String, String>>,
    pub(crate) pods: PodCount,
    pub(crate) scale: ScaleLookup,
    pub(crate) at: Placed,
}

/// A PodDisruptionBudget of the scope.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    pub(crate) object: ObjectRef,
    /// `policy/v1beta1`, where an empty selector selects nothing.
    pub(crate) beta: bool,
    /// Its spec, or why it could not be read.
    pub(crate) spec: Result<PodDisruptionBudgetSpec, TypeError>,
    pub(crate) at: Placed,
}

/// A HorizontalPodAutoscaler of the scope.
#[derive(Clone, Debug)]
pub(crate) struct Autoscaler {
    pub(crate) object: ObjectRef,
    pub(crate) spec: Result<HorizontalPodAutoscalerSpec, TypeError>,
    pub(crate) at: Placed,
}

impl Autoscaler {
    /// `minReplicas` after defaults (1, `SetDefaults_HorizontalPodAutoscaler`), and
    /// `maxReplicas`, when the spec could be read.
    pub(crate) fn replicas(&self) -> Option<(i32, i32)> {
        let spec = self.spec.as_ref().ok()?;
        Some((spec.min_replicas.unwrap_or(1), spec.max_replicas))
    }
}

/// The objects of a scope, and how they are matched.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    workloads: Vec<ScopedWorkload>,
    budgets: Vec<Budget>,
    autoscalers: Vec<Autoscaler>,
    /// Custom resources of kinds podcycle does not know, whose operators may create pods it
    /// cannot see (a database cluster, a message queue).
    opaque: Vec<ObjectRef>,
    index: Index,
    /// Each budget judged, and each group's budgets as rollouts list them, once, when first
    /// asked for.
    judged: OnceLock<Judged>,
}

/// The labels of a pod template.
type Labels = BTreeMap<String, String>;

/// A PodDisruptionBudget over a workload's pods, judged.
#[derive(Clone, Debug)]
pub(crate) struct CoveringBudget {
    pub(crate) object: ObjectRef,
    pub(crate) at: Placed,
    /// Shared by every workload the budget covers.
    pub(crate) judgement: Arc<BudgetJudgement>,
}

/// Budgets with equal selectors (and namespace), matched as one.
#[derive(Clone, Debug, Default)]
struct Group {
    /// The budgets, by position.
    members: Vec<usize>,
    /// The workloads whose pods they cover, by position, in order.
    covered: Vec<usize>,
}

/// Every budget judged, and every group as a list of judged budgets.
#[derive(Clone, Debug)]
struct Judged {
    budgets: Vec<Arc<BudgetJudgement>>,
    groups: Vec<Arc<[CoveringBudget]>>,
}

/// Who matches whom, by position in the scope's lists.
#[derive(Clone, Debug, Default)]
struct Index {
    /// The budgets grouped by equal selectors.
    groups: Vec<Group>,
    /// For each budget, its group.
    group_of: Vec<usize>,
    /// For each workload, the groups whose budgets cover its pods.
    covering: Vec<Vec<usize>>,
    /// For each distinct namespace and label set of the workloads' pods, the groups that
    /// cover it.
    by_labels: HashMap<(Option<String>, Labels), Vec<usize>>,
    /// For each workload, the autoscaler that scales it.
    autoscaler: Vec<Option<usize>>,
    /// The autoscalers by the group (`extensions` read as `apps`), kind and name they target.
    autoscalers_by_target: BTreeMap<(String, String, String), Vec<usize>>,
    /// The budgets and autoscalers by file and document, so that linting a document finds its
    /// own without a search of the scope.
    by_document: HashMap<(Arc<str>, usize), Vec<ScopeMember>>,
}

/// A budget or an autoscaler, by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeMember {
    Budget(usize),
    Autoscaler(usize),
}

/// The group of a target's `apiVersion`: `extensions` served the same Deployments, ReplicaSets
/// and DaemonSets as `apps`.
fn target_group(api_version: &str) -> &str {
    match group(api_version) {
        "extensions" => "apps",
        other => other,
    }
}

/// Whether objects of an API group and kind are known not to create pods of their own:
/// Kubernetes' own groups (the core group, a name without a dot, or one under `k8s.io`), and
/// the monitoring and certificate resources charts most often carry — but for the Prometheus
/// Operator's servers, whose pods its StatefulSets run (prometheus-operator
/// `pkg/prometheus/server/statefulset.go`, `pkg/alertmanager/statefulset.go`,
/// `pkg/thanos/statefulset.go`, `pkg/prometheus/agent/statefulset.go` and `daemonset.go`,
/// `makeStatefulSet`).
fn creates_no_pods(group: &str, kind: &str) -> bool {
    if group == "monitoring.coreos.com" {
        return !matches!(
            kind,
            "Prometheus" | "Alertmanager" | "ThanosRuler" | "PrometheusAgent"
        );
    }
    !group.contains('.')
        || group.ends_with(".k8s.io")
        || matches!(group, "cert-manager.io" | "acme.cert-manager.io")
}

/// Whether two namespaces are the same; a namespace left out on either side is taken to be.
fn same_namespace(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// The group of an `apiVersion` (`apps` in `apps/v1`, empty for `v1`).
fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// Whether an object's text may hold what a scope is made of, so that files without any are
/// not read twice.
pub(crate) fn may_hold_scope(text: &str) -> bool {
    crate::text::contains(text, "PodDisruptionBudget")
        || crate::text::contains(text, "HorizontalPodAutoscaler")
}

impl Scope {
    /// The scope of one file: its budgets and autoscalers and its workloads (the built-in
    /// kinds, and the custom kinds of `kinds`). Nothing is read from a file that has no
    /// budget or autoscaler. The lint reads a file's scope from its own trees
    /// (`Scope::add_document`); this reads it alone, for the tests.
    #[cfg(test)]
    pub(crate) fn read(file: &SourceFile, kinds: &PodTemplateKinds) -> Scope {
        if !may_hold_scope(&file.text) {
            return Scope::default();
        }
        Scope::read_part(file, kinds, crate::versions::NEWEST_MODELLED)
    }

    /// The objects of one file of a larger scope (a directory), budgets or not: its workloads
    /// may be those another file's budgets select. Join the parts with [`Scope::union`].
    pub(crate) fn read_part(
        file: &SourceFile,
        kinds: &PodTemplateKinds,
        kube: KubeVersion,
    ) -> Scope {
        let mut scope = Scope::default();
        let name: Arc<str> = Arc::from(file.path.as_str());
        yaml::for_each_document_with(&file.text, Comments::Skip, |document| {
            scope.add_document(file, &name, &document, &objects(&document), kinds, kube);
        });
        scope.match_objects();
        scope
    }

    /// Adds the objects of one document of `file` (named `name` in places) to this part of a
    /// scope, as the lint reads it: the document is parsed once, for both. Returns whether
    /// the document holds an object whose judgement the scope can change — a workload, a
    /// budget or an autoscaler — so that its rules wait for the whole scope. Match the part
    /// with [`Scope::matched`] or join parts with [`Scope::union`]. An object under a version
    /// that `kube` no longer serves (`policy/v1beta1` budgets from 1.25) is no fact of the
    /// scope: the cluster refuses it (`unserved-api-version` says so), so it protects and
    /// scales nothing.
    pub(crate) fn add_document(
        &mut self,
        file: &SourceFile,
        name: &Arc<str>,
        document: &Document,
        objects: &[AnyObject],
        kinds: &PodTemplateKinds,
        kube: KubeVersion,
    ) -> bool {
        let mut judged = false;
        for object in objects {
            if crate::versions::removed_in(&object.api_version, &object.kind)
                .is_some_and(|removed| kube >= removed)
            {
                continue;
            }
            judged |= self.add(file, name, document, object, kinds);
        }
        judged
    }

    /// A part read document by document ([`Scope::add_document`]), matched as a scope of its
    /// own.
    pub(crate) fn matched(mut self) -> Scope {
        self.match_objects();
        self
    }

    /// The scope of many parts (the files of a directory), matched once.
    pub(crate) fn union(parts: impl IntoIterator<Item = Scope>) -> Scope {
        let mut scope = Scope::default();
        for part in parts {
            scope.append(part);
        }
        scope.match_objects();
        scope
    }

    fn append(&mut self, other: Scope) {
        self.workloads.extend(other.workloads);
        self.budgets.extend(other.budgets);
        self.autoscalers.extend(other.autoscalers);
        self.opaque.extend(other.opaque);
    }

    pub fn workloads(&self) -> &[ScopedWorkload] {
        &self.workloads
    }

    pub(crate) fn budgets(&self) -> &[Budget] {
        &self.budgets
    }

    pub(crate) fn autoscalers(&self) -> &[Autoscaler] {
        &self.autoscalers
    }

    /// Every workload, budget and autoscaler, with where it is.
    pub(crate) fn placed_objects(&self) -> impl Iterator<Item = (&ObjectRef, &Placed)> {
        let workloads = self.workloads.iter().map(|w| (&w.object, &w.at));
        let budgets = self.budgets.iter().map(|b| (&b.object, &b.at));
        let autoscalers = self.autoscalers.iter().map(|a| (&a.object, &a.at));
        workloads.chain(budgets).chain(autoscalers)
    }

    /// Custom resources of kinds podcycle does not know, whose operators may create pods it
    /// cannot see.
    pub(crate) fn opaque(&self) -> &[ObjectRef] {
        &self.opaque
    }

    /// Matches budgets and autoscalers with the workloads, once, as a hash join: budgets
    /// with equal selectors are matched as one group, and a group's selector is read only
    /// against the label sets that hold one of its labels (all of them only for a selector
    /// with no label to look up, which selects most of them anyway).
    fn match_objects(&mut self) {
        self.judged = OnceLock::new();
        // The distinct namespaces and label sets of the workloads' pods, and the workloads of
        // each.
        let mut sets: Vec<(Option<&str>, &Labels, Vec<usize>)> = Vec::new();
        let mut set_of: HashMap<(Option<&str>, &Labels), usize> = HashMap::new();
        for (index, workload) in self.workloads.iter().enumerate() {
            for labels in &workload.pod_labels {
                let key = (workload.object.namespace.as_deref(), labels);
                let set = *set_of.entry(key).or_insert_with(|| {
                    sets.push((key.0, key.1, Vec::new()));
                    sets.len() - 1
                });
                if sets[set].2.last() != Some(&index) {
                    sets[set].2.push(index);
                }
            }
        }
        // The label sets by each label they hold, and by each key.
        let mut by_pair: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
        for (set, (_, labels, _)) in sets.iter().enumerate() {
            for (key, value) in labels.iter() {
                by_pair.entry((key, value)).or_default().push(set);
                by_key.entry(key).or_default().push(set);
            }
        }
        // Budgets with equal selectors, in one group.
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of = Vec::with_capacity(self.budgets.len());
        let mut group_by_key: HashMap<String, usize> = HashMap::new();
        for (b, budget) in self.budgets.iter().enumerate() {
            let key = budget.match_key();
            let g = *group_by_key.entry(key).or_insert_with(|| {
                groups.push(Group::default());
                groups.len() - 1
            });
            groups[g].members.push(b);
            group_of.push(g);
        }
        let all_sets: Vec<usize> = (0..sets.len()).collect();
        let mut covering: Vec<Vec<usize>> = vec![Vec::new(); self.workloads.len()];
        let mut sets_covered_by: Vec<Vec<usize>> = vec![Vec::new(); sets.len()];
        for (g, group) in groups.iter_mut().enumerate() {
            let budget = &self.budgets[group.members[0]];
            let candidates = budget.candidates(&by_pair, &by_key, &all_sets);
            let mut covered = Vec::new();
            for &set in candidates {
                let (namespace, labels, workloads) = &sets[set];
                if budget.selects(*namespace, labels) {
                    covered.extend_from_slice(workloads);
                    sets_covered_by[set].push(g);
                }
            }
            covered.sort_unstable();
            covered.dedup();
            for &w in &covered {
                covering[w].push(g);
            }
            group.covered = covered;
        }
        let by_labels = sets
            .iter()
            .zip(sets_covered_by)
            .map(|((namespace, labels, _), groups)| {
                ((namespace.map(str::to_owned), (*labels).clone()), groups)
            })
            .collect();
        let mut autoscalers_by_target: BTreeMap<(String, String, String), Vec<usize>> =
            BTreeMap::new();
        for (a, autoscaler) in self.autoscalers.iter().enumerate() {
            if let Ok(spec) = &autoscaler.spec {
                let target = &spec.scale_target_ref;
                let group = target_group(target.api_version.as_deref().unwrap_or_default());
                autoscalers_by_target
                    .entry((group.to_owned(), target.kind.clone(), target.name.clone()))
                    .or_default()
                    .push(a);
            }
        }
        let mut by_document: HashMap<(Arc<str>, usize), Vec<ScopeMember>> = HashMap::new();
        let placed = self
            .budgets
            .iter()
            .enumerate()
            .map(|(b, budget)| (&budget.at, ScopeMember::Budget(b)))
            .chain(
                self.autoscalers
                    .iter()
                    .enumerate()
                    .map(|(a, autoscaler)| (&autoscaler.at, ScopeMember::Autoscaler(a))),
            );
        for (at, member) in placed {
            by_document
                .entry((Arc::clone(&at.file), at.document))
                .or_default()
                .push(member);
        }
        self.index = Index {
            groups,
            group_of,
            covering,
            by_labels,
            autoscaler: Vec::new(),
            autoscalers_by_target,
            by_document,
        };
        self.index.autoscaler = self
            .workloads
            .iter()
            .map(|workload| {
                // An autoscaler disables itself on a target of 0 replicas (`ScalingDisabled`).
                let zero = matches!(
                    workload.pods,
                    PodCount::Replicas {
                        replicas: 0,
                        written: true
                    }
                );
                if zero {
                    None
                } else {
                    self.autoscaler_index(&workload.object)
                }
            })
            .collect();
    }

    /// The position of a budget of this scope, from its address.
    fn position(&self, budget: &Budget) -> Option<usize> {
        let size = std::mem::size_of::<Budget>();
        let offset =
            (budget as *const Budget as usize).checked_sub(self.budgets.as_ptr() as usize)?;
        let index = offset / size;
        (offset % size == 0 && index < self.budgets.len()).then_some(index)
    }

    /// Every budget judged, and every group's budgets, once.
    fn judged(&self) -> &Judged {
        self.judged.get_or_init(|| {
            let selections: Vec<Selection> = self
                .index
                .groups
                .iter()
                .map(|group| {
                    let selected: Vec<(&ScopedWorkload, Option<(i32, i32)>)> = group
                        .covered
                        .iter()
                        .map(|&w| {
                            let autoscaler = self.index.autoscaler[w]
                                .and_then(|a| self.autoscalers[a].replicas());
                            (&self.workloads[w], autoscaler)
                        })
                        .collect();
                    Selection::of(&selected)
                })
                .collect();
            let budgets: Vec<Arc<BudgetJudgement>> = self
                .budgets
                .iter()
                .zip(&self.index.group_of)
                .map(|(budget, &g)| Arc::new(judge_budget(budget, &selections[g])))
                .collect();
            let groups = self
                .index
                .groups
                .iter()
                .map(|group| {
                    group
                        .members
                        .iter()
                        .map(|&b| CoveringBudget {
                            object: self.budgets[b].object.clone(),
                            at: self.budgets[b].at.clone(),
                            judgement: Arc::clone(&budgets[b]),
                        })
                        .collect()
                })
                .collect();
            Judged { budgets, groups }
        })
    }

    /// What `budget` allows once its pods are healthy, judged once for the scope.
    pub(crate) fn judgement(&self, budget: &Budget) -> &Arc<BudgetJudgement> {
        static UNKNOWN: OnceLock<Arc<BudgetJudgement>> = OnceLock::new();
        self.position(budget)
            .and_then(|b| self.judged().budgets.get(b))
            .unwrap_or_else(|| UNKNOWN.get_or_init(|| Arc::new(BudgetJudgement::unknown())))
    }

    /// The budgets that cover a pod with `labels` in `namespace`, judged, in groups of equal
    /// selectors: a workload's rollout holds its groups, not a copy of every budget.
    pub(crate) fn budget_groups_selecting(
        &self,
        namespace: Option<&str>,
        labels: &Labels,
    ) -> Vec<Arc<[CoveringBudget]>> {
        if self.budgets.is_empty() {
            return Vec::new();
        }
        let judged = self.judged();
        let key = (namespace.map(str::to_owned), labels.clone());
        match self.index.by_labels.get(&key) {
            Some(groups) => groups
                .iter()
                .map(|&g| Arc::clone(&judged.groups[g]))
                .collect(),
            // Labels no workload of the scope has: each group's selector is read.
            None => self
                .index
                .groups
                .iter()
                .enumerate()
                .filter(|(_, group)| self.budgets[group.members[0]].selects(namespace, labels))
                .map(|(g, _)| Arc::clone(&judged.groups[g]))
                .collect(),
        }
    }

    /// The budgets and autoscalers of document `document` of `file`.
    pub(crate) fn members_in(&self, file: &str, document: usize) -> &[ScopeMember] {
        self.index
            .by_document
            .get(&(Arc::from(file), document))
            .map_or(&[], Vec::as_slice)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.budgets.is_empty() && self.autoscalers.is_empty()
    }

    /// Adds one object; returns whether its judgement depends on the scope (see
    /// [`Scope::add_document`]).
    fn add(
        &mut self,
        file: &SourceFile,
        name: &Arc<str>,
        document: &Document,
        object: &AnyObject,
        kinds: &PodTemplateKinds,
    ) -> bool {
        let judged = matches!(
            (group(&object.api_version), object.kind.as_str()),
            ("policy", "PodDisruptionBudget") | ("autoscaling", "HorizontalPodAutoscaler")
        ) || WorkloadKind::from_type(&object.api_version, &object.kind).is_some()
            || kinds.find(&object.api_version, &object.kind).is_some();
        self.add_object(file, name, document, object, kinds);
        judged
    }

    fn add_object(
        &mut self,
        file: &SourceFile,
        name: &Arc<str>,
        document: &Document,
        object: &AnyObject,
        kinds: &PodTemplateKinds,
    ) {
        let at = placed(file, name, document, object);
        let reference = object_ref(document, object);
        let tree = || ObjectTree::new(document, object.root).ok();
        match (group(&object.api_version), object.kind.as_str()) {
            ("policy", "PodDisruptionBudget") => {
                let Some(tree) = tree() else { return };
                self.budgets.push(Budget {
                    beta: object.api_version == "policy/v1beta1",
                    spec: podcycle_k8s::decode_disruption_budget(&tree, tree.root_index()),
                    object: reference,
                    at,
                });
            }
            ("autoscaling", "HorizontalPodAutoscaler") => {
                let Some(tree) = tree() else { return };
                self.autoscalers.push(Autoscaler {
                    spec: podcycle_k8s::decode_autoscaler(&tree, tree.root_index()),
                    object: reference,
                    at,
                });
            }
            _ => {
                if let Some(kind) = WorkloadKind::from_type(&object.api_version, &object.kind) {
                    let Some(tree) = tree() else { return };
                    let decoded = podcycle_k8s::decode(kind, &tree, tree.root_index());
                    let Some(workload) = decoded.workload else {
                        return;
                    };
                    let (pods, scale) = counts(kind, &workload.controller);
                    self.workloads.push(ScopedWorkload {
                        object: reference,
                        kind,
                        custom: false,
                        pod_labels: vec![workload.pod_labels],
                        pods,
                        scale,
                        at,
                    });
                } else if let Some(kind) = kinds.find(&object.api_version, &object.kind) {
                    let Ok(value) = yaml::to_json(document, object.root) else {
                        return;
                    };
                    let pod_labels = custom::templates(&kind, &value)
                        .iter()
                        .map(|template| labels_of(&template.object["template"]))
                        .collect();
                    let pods = value
                        .pointer("/spec/replicas")
                        .and_then(serde_json::Value::as_i64)
                        .and_then(|n| i32::try_from(n).ok())
                        .map_or(PodCount::Unknown, |replicas| PodCount::Replicas {
                            replicas,
                            written: true,
                        });
                    self.workloads.push(ScopedWorkload {
                        object: reference,
                        kind: kind.like,
                        custom: true,
                        pod_labels,
                        pods,
                        scale: ScaleLookup::Custom,
                        at,
                    });
                } else if !creates_no_pods(group(&object.api_version), &object.kind) {
                    self.opaque.push(reference);
                }
            }
        }
    }

    /// The budgets that cover a pod with `labels` in `namespace`.
    #[cfg(test)]
    pub(crate) fn budgets_selecting<'s>(
        &'s self,
        namespace: Option<&'s str>,
        labels: &'s BTreeMap<String, String>,
    ) -> impl Iterator<Item = &'s Budget> + 's {
        self.budgets
            .iter()
            .filter(move |budget| budget.selects(namespace, labels))
    }

    /// The workloads whose pods `budget` covers.
    pub(crate) fn selected_by<'s>(
        &'s self,
        budget: &'s Budget,
    ) -> impl Iterator<Item = &'s ScopedWorkload> + 's {
        self.covered(budget).iter().map(|&w| &self.workloads[w])
    }

    /// How many workloads' pods `budget` covers.
    pub(crate) fn selected_count(&self, budget: &Budget) -> usize {
        self.covered(budget).len()
    }

    fn covered(&self, budget: &Budget) -> &[usize] {
        self.position(budget)
            .map(|b| self.index.groups[self.index.group_of[b]].covered.as_slice())
            .unwrap_or_default()
    }

    /// Another budget that covers the pods of a workload `budget` covers, with that workload:
    /// the first such workload only. A budget with the same selector covers all of them.
    pub(crate) fn overlapping<'s>(
        &'s self,
        budget: &'s Budget,
    ) -> Option<(&'s ScopedWorkload, &'s Budget)> {
        let b = self.position(budget)?;
        let g = self.index.group_of[b];
        let group = &self.index.groups[g];
        let first = *group.covered.first()?;
        if let Some(&other) = group.members.iter().find(|&&other| other != b) {
            return Some((&self.workloads[first], &self.budgets[other]));
        }
        group.covered.iter().find_map(|&w| {
            let other = self.index.covering[w].iter().find(|&&other| other != g)?;
            let member = self.index.groups[*other].members[0];
            Some((&self.workloads[w], &self.budgets[member]))
        })
    }

    /// The autoscaler that scales `object`, if exactly one in the scope names it: where more
    /// do, none scales it (`AmbiguousSelector`).
    pub(crate) fn autoscaler_of(&self, object: &ObjectRef) -> Option<&Autoscaler> {
        self.autoscaler_index(object).map(|a| &self.autoscalers[a])
    }

    fn autoscaler_index(&self, object: &ObjectRef) -> Option<usize> {
        let name = object.name.as_deref()?;
        let mut naming = self.autoscalers_naming(
            target_group(&object.api_version),
            &object.kind,
            name,
            object.namespace.as_deref(),
        );
        let first = naming.next()?;
        naming.next().is_none().then_some(first)
    }

    /// The other autoscalers of the scope that name the target `autoscaler` names, in its
    /// namespace.
    pub(crate) fn autoscalers_beside<'s>(
        &'s self,
        autoscaler: &'s Autoscaler,
    ) -> impl Iterator<Item = &'s Autoscaler> + 's {
        let target = autoscaler.spec.as_ref().ok().map(|spec| {
            let target = &spec.scale_target_ref;
            (
                target_group(target.api_version.as_deref().unwrap_or_default()),
                target.kind.as_str(),
                target.name.as_str(),
            )
        });
        target
            .into_iter()
            .flat_map(move |(group, kind, name)| {
                self.autoscalers_naming(group, kind, name, autoscaler.object.namespace.as_deref())
            })
            .map(|a| &self.autoscalers[a])
            .filter(move |other| !std::ptr::eq(*other, autoscaler))
    }

    /// The autoscalers that name a target, by their positions.
    fn autoscalers_naming<'s>(
        &'s self,
        group: &str,
        kind: &str,
        name: &str,
        namespace: Option<&'s str>,
    ) -> impl Iterator<Item = usize> + 's {
        self.index
            .autoscalers_by_target
            .get(&(group.to_owned(), kind.to_owned(), name.to_owned()))
            .into_iter()
            .flatten()
            .copied()
            .filter(move |&a| {
                same_namespace(self.autoscalers[a].object.namespace.as_deref(), namespace)
            })
    }
}

impl Budget {
    /// What two budgets must share to select the same pods: the namespace, the selector, and
    /// whether an empty selector selects nothing (`policy/v1beta1`, or a spec that could not
    /// be read).
    fn match_key(&self) -> String {
        match &self.spec {
            Ok(spec) => format!(
                "{:?}\u{0}{}\u{0}{:?}",
                self.object.namespace, self.beta, spec.selector
            ),
            Err(_) => String::new(),
        }
    }

    /// The label sets (by position in `all`) the budget's selector may select: those holding
    /// one of its `matchLabels`, else one of an `In` expression's values, else the key of an
    /// `Exists` expression, else every one.
    fn candidates<'i>(
        &'i self,
        by_pair: &'i HashMap<(&str, &str), Vec<usize>>,
        by_key: &'i HashMap<&str, Vec<usize>>,
        all: &'i [usize],
    ) -> Box<dyn Iterator<Item = &'i usize> + 'i> {
        let Ok(spec) = &self.spec else {
            return Box::new(std::iter::empty());
        };
        let Some(selector) = &spec.selector else {
            return Box::new(std::iter::empty());
        };
        let empty: &'i [usize] = &[];
        if let Some(labels) = selector.match_labels.as_ref().filter(|l| !l.is_empty()) {
            // Every label must hold: the rarest one names every candidate.
            let rarest = labels
                .iter()
                .map(|(k, v)| {
                    by_pair
                        .get(&(k.as_str(), v.as_str()))
                        .map_or(empty, Vec::as_slice)
                })
                .min_by_key(|sets| sets.len())
                .unwrap_or(empty);
            return Box::new(rarest.iter());
        }
        for expression in selector.match_expressions.iter().flatten() {
            match expression.operator.as_str() {
                "In" => {
                    let mut sets: Vec<usize> = expression
                        .values
                        .iter()
                        .flatten()
                        .flat_map(|v| {
                            by_pair
                                .get(&(expression.key.as_str(), v.as_str()))
                                .map_or(empty, Vec::as_slice)
                        })
                        .copied()
                        .collect();
                    sets.sort_unstable();
                    sets.dedup();
                    return Box::new(sets.into_iter().map(move |set| &all[set]));
                }
                "Exists" => {
                    return Box::new(
                        by_key
                            .get(expression.key.as_str())
                            .map_or(empty, Vec::as_slice)
                            .iter(),
                    );
                }
                _ => {}
            }
        }
        Box::new(all.iter())
    }

    /// Whether the budget covers a pod with `labels` in `namespace`.
    pub(crate) fn selects(
        &self,
        namespace: Option<&str>,
        labels: &BTreeMap<String, String>,
    ) -> bool {
        let Ok(spec) = &self.spec else {
            return false;
        };
        if !same_namespace(self.object.namespace.as_deref(), namespace) {
            return false;
        }
        let empty = spec.selector.as_ref().is_some_and(|s| {
            s.match_labels.as_ref().is_none_or(BTreeMap::is_empty)
                && s.match_expressions.as_ref().is_none_or(Vec::is_empty)
        });
        if self.beta && empty {
            return false;
        }
        selector::matches(spec.selector.as_ref(), labels)
    }
}

/// How many pods a built-in workload keeps, and how the disruption controller finds its scale.
fn counts(kind: WorkloadKind, controller: &Controller) -> (PodCount, ScaleLookup) {
    let replicas = |written: Option<i32>| PodCount::Replicas {
        replicas: written.unwrap_or(1),
        written: written.is_some(),
    };
    match (kind, controller) {
        (_, Controller::Deployment(spec)) => (replicas(spec.replicas), ScaleLookup::Replicas),
        (_, Controller::ReplicaSet(spec)) => (replicas(spec.replicas), ScaleLookup::Replicas),
        (_, Controller::ReplicationController(spec)) => {
            (replicas(spec.replicas), ScaleLookup::Replicas)
        }
        (_, Controller::StatefulSet(spec)) => (replicas(spec.replicas), ScaleLookup::Replicas),
        (_, Controller::DaemonSet(_)) => (PodCount::PerNode, ScaleLookup::NoScale),
        (_, Controller::Job(_) | Controller::CronJob(_)) => {
            (PodCount::Unknown, ScaleLookup::NoScale)
        }
        (WorkloadKind::Pod, Controller::None) => (PodCount::One, ScaleLookup::Unmanaged),
        (_, Controller::None) => (PodCount::Unknown, ScaleLookup::Unmanaged),
    }
}

/// The labels of a pod template built from a custom kind (`template.metadata.labels`).
fn labels_of(template: &serde_json::Value) -> BTreeMap<String, String> {
    template
        .pointer("/metadata/labels")
        .and_then(serde_json::Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
        .collect()
}

/// Where an object is: the value of its `metadata.name`, else the object.
fn placed(file: &SourceFile, name: &Arc<str>, document: &Document, object: &AnyObject) -> Placed {
    let located = lookup(
        document,
        object.root,
        &[
            PathSegment::Key("metadata".to_owned()),
            PathSegment::Key("name".to_owned()),
        ],
    );
    let span = if located.complete {
        located.value
    } else {
        document.node(object.root).span
    };
    Placed {
        file: Arc::clone(name),
        document: document.index,
        prefix: object.prefix.clone(),
        span,
        line: file.line_col(span.start).line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope_of(text: &str) -> Scope {
        Scope::read(
            &SourceFile::new("s.yaml".to_owned(), text.to_owned()),
            &PodTemplateKinds::default(),
        )
    }

    const FILE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: other, namespace: other}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
";

    #[test]
    fn budgets_and_autoscalers_are_matched_by_namespace_selector_and_reference() {
        let scope = scope_of(FILE);
        assert_eq!(scope.workloads().len(), 2);
        assert_eq!(scope.budgets().len(), 2);
        let web = &scope.workloads()[0];
        assert_eq!(
            web.pods,
            PodCount::Replicas {
                replicas: 3,
                written: true
            }
        );
        assert_eq!(scope.workloads()[1].scale, ScaleLookup::NoScale);
        let covering: Vec<String> = scope
            .budget_groups_selecting(web.object.namespace.as_deref(), &web.pod_labels[0])
            .iter()
            .flat_map(|group| group.iter())
            .filter_map(|b| b.object.name.clone())
            .collect();
        assert_eq!(covering, ["web"]);
        let selected: Vec<&str> = scope
            .selected_by(&scope.budgets()[0])
            .filter_map(|w| w.object.name.as_deref())
            .collect();
        assert_eq!(selected, ["web"]);
        assert_eq!(scope.selected_by(&scope.budgets()[1]).count(), 0);
        let autoscaler = scope
            .autoscaler_of(&web.object)
            .expect("the HPA targets web");
        assert_eq!(autoscaler.replicas(), Some((1, 10)));
        assert!(scope.autoscaler_of(&scope.workloads()[1].object).is_none());
        assert_eq!(web.at.line, 3);
    }

    #[test]
    fn files_without_budgets_or_autoscalers_are_not_read() {
        let scope =
            scope_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n");
        assert!(scope.workloads().is_empty());
        assert!(scope.is_empty());
    }

    #[test]
    fn a_beta_budget_with_an_empty_selector_selects_nothing() {
        let scope = scope_of(
            "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1, selector: {}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: a}\nspec: {minAvailable: 1, selector: {}}\n",
        );
        let labels: BTreeMap<String, String> = [("app".to_owned(), "x".to_owned())].into();
        let names: Vec<&str> = scope
            .budgets_selecting(None, &labels)
            .filter_map(|b| b.object.name.as_deref())
            .collect();
        assert_eq!(names, ["a"]);
    }

    #[test]
    fn budgets_with_equal_selectors_are_matched_once() {
        let mut text = String::from(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web, tier: front}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
        );
        for i in 0..50 {
            text.push_str(&format!(
                "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: same-{i}}}\nspec: {{maxUnavailable: 1, selector: {{matchLabels: {{app: web}}}}}}\n"
            ));
        }
        text.push_str("---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: tier}\nspec: {maxUnavailable: 1, selector: {matchExpressions: [{key: tier, operator: In, values: [front, back]}]}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: none}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: db}}}\n");
        let scope = scope_of(&text);
        // Fifty budgets of one selector, one of another, one over nothing: three groups.
        assert_eq!(scope.index.groups.len(), 3);
        assert_eq!(scope.index.covering[0].len(), 2);
        let web = &scope.workloads()[0];
        let groups = scope.budget_groups_selecting(None, &web.pod_labels[0]);
        assert_eq!(groups.iter().map(|g| g.len()).sum::<usize>(), 51);
        // The groups are shared, not copied for each workload.
        let again = scope.budget_groups_selecting(None, &web.pod_labels[0]);
        assert!(Arc::ptr_eq(&groups[0], &again[0]));
        let (workload, other) = scope.overlapping(&scope.budgets()[0]).expect("overlap");
        assert_eq!(workload.object.name.as_deref(), Some("web"));
        assert_eq!(other.object.name.as_deref(), Some("same-1"));
        let tier = &scope.budgets()[50];
        assert_eq!(scope.selected_count(tier), 1);
        let (_, other) = scope.overlapping(tier).expect("overlap");
        assert_eq!(other.object.name.as_deref(), Some("same-0"));
        assert_eq!(scope.selected_count(&scope.budgets()[51]), 0);
        assert!(scope.overlapping(&scope.budgets()[51]).is_none());
    }
}
