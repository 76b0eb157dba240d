//! A deterministic corpus of Kubernetes manifests for the benchmarks, generated in memory.
//!
//! Workloads are Deployments, StatefulSets, Jobs and CronJobs shaped like production ones:
//! an init container that runs migrations, a native sidecar (`restartPolicy: Always`) with a
//! startup probe and a `preStop.sleep` hook, two app containers with liveness, readiness and
//! startup probes (httpGet, tcpSocket, exec, grpc), `postStart`/`preStop` hooks (exec and
//! sleep), env vars, resources, volumes with octal modes, affinity, tolerations, topology
//! spread, block scalars and non-ASCII annotations. A few workloads carry mistakes the rules
//! report, so the diagnostic path is measured too. A Service or ConfigMap sits between them,
//! as in real repositories.
//!
//! Also holds what both benchmark binaries share: the corpus as source files, the small file,
//! the rayon pools and the process runs.

use std::fmt::Write;
use std::num::NonZeroUsize;
use std::process::{Command, Stdio};
use std::sync::LazyLock;

use podcycle::diagnostics::Diagnostic;
use podcycle::lint::{FileRole, Within, lint_file};
use podcycle::report::FileReport;
use podcycle::run::{FilePlan, lint_bytes};
use podcycle::settings::Settings;
use podcycle::source::SourceFile;
use rayon::prelude::*;

/// 1,000 files of 5 workloads (and a Service or ConfigMap after each): about 45 MB.
pub const FILES: usize = 1_000;
pub const WORKLOADS_PER_FILE: usize = 5;

/// The realistic small file: six documents, anchors, 3.5 KB.
pub const SMALL_FILE: &str = include_str!("../testdata/small-app.yaml");
pub const SMALL_FILE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/small-app.yaml");

/// The generated corpus, ready to lint: the line index is built here, not in the timed part.
pub static CORPUS: LazyLock<Corpus> = LazyLock::new(|| {
    let files: Vec<SourceFile> = generate(FILES, WORKLOADS_PER_FILE)
        .into_iter()
        .map(|file| SourceFile::new(file.name, file.text))
        .collect();
    let bytes = files.iter().map(|f| f.text.len()).sum();
    Corpus { files, bytes }
});

pub struct Corpus {
    pub files: Vec<SourceFile>,
    pub bytes: usize,
}

impl Corpus {
    pub fn describe(&self) -> String {
        let documents: usize = self
            .files
            .iter()
            .map(|f| f.text.matches("\n---\n").count() + 1)
            .sum();
        let diagnostics: usize = lint_all(&self.files, &Settings::default())
            .iter()
            .map(Vec::len)
            .sum();
        format!(
            "corpus: {} files, {} workloads, {documents} documents, {:.1} MB, {diagnostics} diagnostics",
            self.files.len(),
            self.files.len() * WORKLOADS_PER_FILE,
            self.bytes as f64 / 1e6,
        )
    }
}

/// Lints every file on the current thread.
pub fn lint_all(files: &[SourceFile], settings: &Settings) -> Vec<Vec<Diagnostic>> {
    files.iter().map(|file| lint_one(file, settings)).collect()
}

/// Lints one file of manifests, its own scope, as `podcycle check` lints a file named alone
/// once it is read: the whole pipeline, `lint_file`.
pub fn lint_one(file: &SourceFile, settings: &Settings) -> Vec<Diagnostic> {
    lint_file(
        file,
        settings,
        FileRole::Manifest,
        Within::Itself,
        &mut |_| {},
    )
    .diagnostics
}

/// The files as `podcycle check` has them once read: a path and bytes.
pub fn contents(files: &[SourceFile]) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .map(|file| (file.path.clone(), file.text.clone().into_bytes()))
        .collect()
}

/// What `podcycle check` does once files are read: `par_iter` over them with `lint_bytes`
/// (UTF-8 check, line index, lint), on the current rayon pool.
pub fn check_all(contents: Vec<(String, Vec<u8>)>, settings: &Settings) -> Vec<FileReport> {
    let plan = FilePlan::new(settings.clone(), FileRole::Manifest);
    contents
        .into_par_iter()
        .map(|(path, bytes)| lint_bytes(path, bytes, &plan, &mut |_| {}))
        .collect()
}

/// One thread, and every core this process may use.
pub fn thread_counts() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    if all > 1 { vec![1, all] } else { vec![1] }
}

pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

/// `podcycle check testdata/small-app.yaml` from process start to exit, output discarded.
pub fn run_small_file_check() {
    let status = Command::new(env!("CARGO_BIN_EXE_podcycle"))
        .args(["check", SMALL_FILE_PATH])
        .stdout(Stdio::null())
        .status()
        .expect("podcycle runs");
    assert!(
        status.success(),
        "podcycle check found problems in {SMALL_FILE_PATH}"
    );
}

/// The floor for any process: `/bin/true` from start to exit.
pub fn run_bin_true() {
    let status = Command::new("/bin/true").status().expect("/bin/true runs");
    assert!(status.success());
}

/// One generated manifest file.
pub struct File {
    pub name: String,
    pub text: String,
}

/// Generates `files` files of `workloads_per_file` workloads each, the same bytes every time.
pub fn generate(files: usize, workloads_per_file: usize) -> Vec<File> {
    let mut rng = Rng(0x5eed_f00d_cafe_0042);
    (0..files)
        .map(|f| {
            let mut text = String::with_capacity(workloads_per_file * 7_500);
            for w in 0..workloads_per_file {
                let index = f * workloads_per_file + w;
                if w > 0 {
                    text.push_str("---\n");
                }
                workload(&mut text, index, &mut rng);
                text.push_str("---\n");
                if index.is_multiple_of(2) {
                    service(&mut text, index);
                } else {
                    config_map(&mut text, index);
                }
            }
            File {
                name: format!("corpus/team-{:02}/app-{f:04}.yaml", f % 40),
                text,
            }
        })
        .collect()
}

/// SplitMix64: tiny, deterministic and good enough to vary the manifests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const TEAMS: &[&str] = &[
    "payments", "orders", "search", "identity", "billing", "catalog", "shipping", "ledger",
];
const IMAGES: &[&str] = &[
    "registry.example.com/platform/api",
    "ghcr.io/example/worker",
    "docker.io/library/nginx",
    "quay.io/example/exporter",
];
/// Annotations in the languages of the teams that write them.
const DESCRIPTIONS: &[&str] = &[
    "注文サービスのバックエンド。停止前に接続をドレインする。",
    "支付网关：在停止前等待连接耗尽。",
    "Servicio de facturación — réplica de lectura",
    "Κατάλογος προϊόντων (ανάγνωση)",
    "Dienst für Versand und Rücksendungen",
];

#[derive(Clone, Copy)]
enum Kind {
    Deployment,
    StatefulSet,
    Job,
    CronJob,
}

fn workload(out: &mut String, index: usize, rng: &mut Rng) {
    let kind = match index % 10 {
        0..=3 => Kind::Deployment,
        4 | 5 => Kind::StatefulSet,
        6 | 7 => Kind::Job,
        _ => Kind::CronJob,
    };
    let team = rng.pick(TEAMS);
    let name = format!("{team}-{index:05}");
    let (api_version, kind_name) = match kind {
        Kind::Deployment => ("apps/v1", "Deployment"),
        Kind::StatefulSet => ("apps/v1", "StatefulSet"),
        Kind::Job => ("batch/v1", "Job"),
        Kind::CronJob => ("batch/v1", "CronJob"),
    };
    let description = rng.pick(DESCRIPTIONS);
    let revision = rng.below(400);
    let _ = write!(
        out,
        "\
# Source: {team}/templates/{kind_lower}.yaml
apiVersion: {api_version}
kind: {kind_name}
metadata:
  name: {name}
  namespace: {team}
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: {team}
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: {team}-1.{revision}.0
  annotations:
    description: \"{description}\"
    owner: \"équipe-{team}@example.com\"
    deployment.kubernetes.io/revision: \"{revision}\"
spec:
",
        kind_lower = kind_name.to_lowercase(),
    );
    // The indentation of the pod template's `spec:` contents.
    let pod_indent = match kind {
        Kind::Deployment | Kind::StatefulSet => {
            let _ = write!(
                out,
                "  replicas: {replicas}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: {name}
",
                replicas = 2 + rng.below(4)
            );
            match kind {
                Kind::StatefulSet => {
                    let _ = write!(
                        out,
                        "  serviceName: {name}\n  podManagementPolicy: Parallel\n"
                    );
                }
                _ => out.push_str(
                    "  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 25%\n      maxUnavailable: 0\n",
                ),
            }
            out.push_str("  template:\n");
            4
        }
        Kind::Job => {
            out.push_str("  backoffLimit: 4\n  ttlSecondsAfterFinished: 3600\n  template:\n");
            4
        }
        Kind::CronJob => {
            let _ = write!(
                out,
                "  schedule: \"{minute} */{hours} * * *\"
  concurrencyPolicy: Forbid
  successfulJobsHistoryLimit: 3
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
",
                minute = rng.below(60),
                hours = 1 + rng.below(6)
            );
            8
        }
    };
    let batch = matches!(kind, Kind::Job | Kind::CronJob);
    pod_template(out, pod_indent, &name, team, index, batch, rng);
}

/// Writes a pod template (metadata and spec) indented by `indent` spaces.
fn pod_template(
    out: &mut String,
    indent: usize,
    name: &str,
    team: &str,
    index: usize,
    batch: bool,
    rng: &mut Rng,
) {
    let grace = [30, 45, 60, 90][rng.below(4) as usize];
    // Every 9th workload sleeps in preStop for as long as its grace period: a finding.
    let pre_stop_sleep = if index % 9 == 4 { grace } else { grace / 3 };
    let image = rng.pick(IMAGES);
    let tag = format!("1.{}.{}", rng.below(30), rng.below(10));
    let mut pod = String::with_capacity(7_000);
    let _ = write!(
        pod,
        "\
metadata:
  labels:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: {team}
  annotations:
    prometheus.io/scrape: \"true\"
    prometheus.io/port: \"9090\"
    checksum/config: {checksum:016x}{checksum2:016x}
spec:
  serviceAccountName: {name}
  terminationGracePeriodSeconds: {grace}
  priorityClassName: {priority}
",
        checksum = rng.next(),
        checksum2 = rng.next(),
        priority = if batch {
            "batch-low"
        } else {
            "service-critical"
        },
    );
    if batch {
        pod.push_str("  restartPolicy: OnFailure\n");
    }
    pod.push_str(
        "  securityContext:
    runAsNonRoot: true
    runAsUser: 10001
    fsGroup: 10001
    seccompProfile:
      type: RuntimeDefault
  initContainers:
  - name: migrate
    image: registry.example.com/platform/migrate:2.4.1
    command: [\"/bin/migrate\", \"--database-url=$(DATABASE_URL)\", \"up\"]
    env:
    - name: DATABASE_URL
      valueFrom:
        secretKeyRef:
          name: database
          key: url
    resources:
      requests: {cpu: 50m, memory: 64Mi}
      limits: {memory: 128Mi}
",
    );
    // Every 13th workload probes its one-shot init container: a finding.
    if index % 13 == 7 {
        pod.push_str(
            "    readinessProbe:\n      exec:\n        command: [\"test\", \"-f\", \"/tmp/done\"]\n",
        );
    }
    let _ = write!(
        pod,
        "  - name: proxy
    image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.{minor}.0
    restartPolicy: Always
    args:
    - --port=5432
    - --health-check
    - --http-address=0.0.0.0
    - example:europe-west1:{team}
    ports:
    - name: proxy-health
      containerPort: 9801
    startupProbe:
      httpGet:
        path: /startup
        port: proxy-health
      periodSeconds: 1
      failureThreshold: 60
    livenessProbe:
      httpGet: {{path: /liveness, port: proxy-health}}
      periodSeconds: 10
    lifecycle:
      preStop:
        sleep:
          seconds: {proxy_sleep}
    resources:
      requests:
        cpu: 100m
        memory: 128Mi
      limits:
        memory: 256Mi
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities:
        drop: [ALL]
  containers:
",
        minor = 1 + rng.below(12),
        proxy_sleep = grace / 2,
    );
    for (c, role) in ["app", "worker"].into_iter().enumerate() {
        container(&mut pod, c, role, image, &tag, pre_stop_sleep, index, rng);
    }
    pod.push_str(
        "  volumes:
  - name: config
    configMap:
      name: app-config
      defaultMode: 0644
  - name: tls
    secret:
      secretName: app-tls
      defaultMode: 0400
  - name: tmp
    emptyDir:
      sizeLimit: 256Mi
",
    );
    if !batch {
        let _ = write!(
            pod,
            "  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              app.kubernetes.io/name: {name}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        app.kubernetes.io/name: {name}
"
        );
    }
    pod.push_str(
        "  tolerations:
  - key: dedicated
    operator: Equal
    value: platform
    effect: NoSchedule
  - key: node.kubernetes.io/not-ready
    operator: Exists
    effect: NoExecute
    tolerationSeconds: 300
",
    );
    let pad = " ".repeat(indent);
    for line in pod.lines() {
        out.push_str(&pad);
        out.push_str(line);
        out.push('\n');
    }
}

#[allow(clippy::too_many_arguments)]
fn container(
    out: &mut String,
    c: usize,
    role: &str,
    image: &str,
    tag: &str,
    pre_stop_sleep: u64,
    index: usize,
    rng: &mut Rng,
) {
    let port = 8080 + c;
    let _ = write!(
        out,
        "  - name: {role}
    image: {image}:{tag}
    imagePullPolicy: IfNotPresent
    args: [\"--listen=:{port}\", \"--metrics=:9090\", \"--log-format=json\"]
    ports:
    - name: http
      containerPort: {port}
      protocol: TCP
    - name: metrics
      containerPort: 9090
    env:
"
    );
    for v in 0..12 {
        let _ = write!(
            out,
            "    - name: SETTING_{v:02}\n      value: \"{}\"\n",
            rng.below(100_000)
        );
    }
    out.push_str(
        "    - name: POD_NAME
      valueFrom:
        fieldRef:
          fieldPath: metadata.name
    - name: POD_IP
      valueFrom:
        fieldRef:
          fieldPath: status.podIP
    - name: API_TOKEN
      valueFrom:
        secretKeyRef:
          name: api-token
          key: token
          optional: false
    - name: GOMEMLIMIT
      valueFrom:
        resourceFieldRef:
          resource: limits.memory
    envFrom:
    - configMapRef:
        name: app-env
",
    );
    // Every 17th workload misspells a probe field: a finding with a suggestion.
    let liveness = if index % 17 == 3 && c == 0 {
        "livenesProbe"
    } else {
        "livenessProbe"
    };
    if c == 0 {
        let _ = write!(
            out,
            "    startupProbe:
      httpGet:
        path: /healthz/startup
        port: http
      periodSeconds: 2
      failureThreshold: 90
    {liveness}:
      httpGet:
        path: /healthz/live
        port: http
        httpHeaders:
        - name: X-Probe
          value: liveness
      initialDelaySeconds: 5
      periodSeconds: 10
      timeoutSeconds: 2
      terminationGracePeriodSeconds: 15
    readinessProbe:
      tcpSocket:
        port: {port}
      periodSeconds: 5
"
        );
    } else {
        out.push_str(
            "    livenessProbe:
      grpc:
        port: 9090
        service: liveness
      periodSeconds: 15
    readinessProbe:
      exec:
        command:
        - /bin/sh
        - -c
        - test -f /tmp/ready && ! test -f /tmp/draining
      periodSeconds: 5
      failureThreshold: 3
",
        );
    }
    out.push_str("    lifecycle:\n");
    // Every 11th workload warms a cache in postStart on its first container: an advice.
    if index % 11 == 5 && c == 0 {
        out.push_str(
            "      postStart:\n        exec:\n          command: [\"/bin/sh\", \"-c\", \"/app/warm-cache --timeout=30s\"]\n",
        );
    }
    if c == 0 {
        let _ = write!(
            out,
            "      preStop:\n        exec:\n          command: [\"/bin/sh\", \"-c\", \"sleep {pre_stop_sleep} && kill -TERM 1\"]\n"
        );
    } else {
        let _ = write!(
            out,
            "      preStop:\n        sleep:\n          seconds: {}\n",
            pre_stop_sleep / 2
        );
    }
    let _ = write!(
        out,
        "    resources:
      requests:
        cpu: {cpu}m
        memory: {memory}Mi
      limits:
        memory: {limit}Mi
    volumeMounts:
    - name: config
      mountPath: /etc/app
      readOnly: true
    - name: tls
      mountPath: /etc/tls
      readOnly: true
    - name: tmp
      mountPath: /tmp
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      capabilities:
        drop: [ALL]
",
        cpu = 100 * (1 + rng.below(8)),
        memory = 128 * (1 + rng.below(8)),
        limit = 256 * (1 + rng.below(8)),
    );
}

fn service(out: &mut String, index: usize) {
    let _ = write!(
        out,
        "\
apiVersion: v1
kind: Service
metadata:
  name: svc-{index:05}
  labels:
    app.kubernetes.io/component: api
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/component: api
  ports:
  - name: http
    port: 80
    targetPort: http
  - name: metrics
    port: 9090
    targetPort: metrics
"
    );
}

fn config_map(out: &mut String, index: usize) {
    let _ = write!(
        out,
        "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: config-{index:05}
data:
  LOG_LEVEL: info
  FEATURE_FLAGS: \"checkout-v2,async-refunds\"
  app.yaml: |
    server:
      listen: \":8080\"
      shutdownTimeout: 25s
    database:
      maxOpenConnections: 20
      statementTimeout: 5s
    greeting: \"こんにちは、世界\"
"
    );
}

/// Writes the generated corpus to disk under `dir`; returns its size in bytes.
// For the benchmarks that run `podcycle` on files; the in-process ones do not.
#[allow(dead_code)]
pub fn write(dir: &std::path::Path) -> usize {
    let mut bytes = 0;
    for file in generate(FILES, WORKLOADS_PER_FILE) {
        let path = dir.join(&file.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("creating the corpus directory");
        }
        std::fs::write(&path, &file.text).expect("writing the corpus");
        bytes += file.text.len();
    }
    bytes
}
