//! Renders kept between runs, keyed by everything the renderer reads, so that a second run and
//! pre-commit reuse them.
//!
//! A key is a hash of every byte a renderer can read for an input — each file of the chart's
//! private copy and the values files, or each kustomization and every file it loads — with the
//! renderer (its resolved path, size, modification time and inode, so that an upgrade changes
//! it), the arguments it gets (release, namespace, values, Kubernetes version, the wrapper
//! kustomization, with or without build metadata, and load options) and podcycle's version. What a
//! renderer's run decides from what it reads is kept: its output, or its refusal (it exited
//! with an error: a template's `fail`, a kustomization that lists a missing file), which is
//! judged again from its standard error on every run exactly as the first time. A limit, the
//! budget, a renderer that could not start, a sandbox that stopped it or an error of the
//! environment's (a missing plugin, the network) is not kept: that input renders again next
//! time.
//!
//! The cache is a trust boundary like the renders themselves: by default it lives in the
//! checkout (`.podcycle_cache/` at the repository's root, like ruff's), where a pull request can
//! write files. So an entry is trusted only when it proves it was written by podcycle on this
//! machine:
//!
//! - keys and entries are hashed with a secret key (BLAKE3's keyed mode) kept outside the
//!   checkout, in the user's cache directory (`$XDG_CACHE_HOME/podcycle/cache-key`, else
//!   `~/.cache/podcycle/cache-key`), created with mode 0600 from the system's random source. A
//!   pull request can neither name the entry of a chart nor forge one: an entry whose hash does
//!   not match, that was written for another key, or that is malformed is a miss, and the chart
//!   is rendered again — a poisoned cache costs time, never a finding;
//! - entries are read without following links, only as regular files, and at most
//!   [`MAX_ENTRY_BYTES`] (the output a renderer may write, and the warnings);
//! - the cache directory is not used when it, or a directory on the way to it below the
//!   repository's root, is a link; files are written to a new temporary file and renamed into
//!   place, so nothing is written through a link either.
//!
//! The directory is safe to delete at any time. It holds a `CACHEDIR.TAG` (backup tools skip it)
//! and a `.gitignore` of `*`.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::failure::Verdict;
use super::process::{Failure, Outcome};

/// The default cache directory's name, at the repository's root.
pub(crate) const DEFAULT_DIR: &str = ".podcycle_cache";

/// Bumped when what an entry holds, or what a renderer is asked, changes meaning.
const FORMAT: &str = "podcycle-render-cache-2";

/// The most an entry may hold: a renderer's output cap and its warnings, with room for the
/// encoding.
pub(crate) const MAX_ENTRY_BYTES: u64 = 2 * super::process::MAX_OUTPUT + (1 << 20);

/// The most the entries may hold together: past it, the least recently used are removed when
/// a run opens the cache, down to three quarters of it. A run may go past it by what it keeps.
pub(crate) const MAX_CACHE_BYTES: u64 = 1 << 30;
/// The most entries the cache holds, likewise.
pub(crate) const MAX_CACHE_ENTRIES: usize = 20_000;

const CACHEDIR_TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by podcycle.\n# For information about cache directory tags see https://bford.info/cachedir/\n";

/// Why the render cache is not used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheError {
    #[error("neither XDG_CACHE_HOME nor HOME is set, so there is no place for its key")]
    NoPlaceForKey,
    #[error("no random source: {0}")]
    NoRandomSource(getrandom::Error),
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write in {}: {source}", dir.display())]
    WriteIn {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {}", path.display())]
    ReadKey { path: PathBuf },
    /// The cache directory, or one on the way to it below the repository's root, is a link.
    #[error(
        "{} is a symbolic link; podcycle writes its cache only to a directory of its own",
        path.display()
    )]
    Link { path: PathBuf },
    #[error("{} leaves the repository", dir.display())]
    LeavesRepository { dir: PathBuf },
    #[error("{} is not a directory", path.display())]
    NotDirectory { path: PathBuf },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A render cache: its directory and the key that signs its entries.
#[derive(Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
    secret: [u8; 32],
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// What a render left: the output and the warnings, as shown to users, or the renderer's
/// refusal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) text: String,
    pub(crate) warnings: Vec<String>,
    /// The temporary directory the renderer worked in, which its output and its errors name:
    /// Kustomize's wrapper kustomization's (the output's build metadata is relative to it),
    /// Helm's copy of the chart.
    pub(crate) wrapper: Option<PathBuf>,
    /// The renderer exited with an error: its standard error as it wrote it, naming `wrapper`
    /// (`text` and `warnings` are then empty).
    pub(crate) refused: Option<String>,
}

impl Entry {
    /// A renderer's refusal: its standard error as it wrote it, in the temporary directory
    /// `wrapper`.
    fn refusal(stderr: &str, wrapper: &Path) -> Entry {
        Entry {
            text: String::new(),
            warnings: Vec::new(),
            wrapper: Some(wrapper.to_owned()),
            refused: Some(stderr.to_owned()),
        }
    }

    /// The standard error of a refusal kept in this entry, with the temporary directory of the
    /// run that kept it (`wrapper`) renamed to `now`'s, so that it is judged as if this run's
    /// renderer had written it.
    fn refusal_in(&self, now: &Path) -> Option<String> {
        let stderr = self.refused.as_ref()?;
        Some(match &self.wrapper {
            Some(then) => stderr.replace(&*then.to_string_lossy(), &now.to_string_lossy()),
            None => stderr.clone(),
        })
    }
}

/// Renders through the cache: the entry kept under the key of `kept` when there is a valid one,
/// else what `render` gives in the temporary directory `workdir`, its warnings cleaned with
/// `clean`, then kept. A failure is judged with `judge`; only a refusal that the renderer
/// exited with is kept (what the input decides), as the renderer wrote it, and judged again on
/// every later run as if that run's renderer had written it in that run's `workdir`. Without
/// `kept`, this is `render` alone.
pub(crate) fn through(
    kept: Option<(&Cache, &Key)>,
    workdir: &Path,
    render: impl FnOnce() -> Outcome,
    clean: &dyn Fn(&str) -> String,
    judge: &dyn Fn(&Failure) -> Verdict,
) -> Result<Entry, Verdict> {
    if let Some((cache, key)) = kept
        && let Some(entry) = cache.get(key)
    {
        if let Some(stderr) = entry.refusal_in(workdir) {
            return Err(judge(&Failure::Exited { stderr }));
        }
        return Ok(entry);
    }
    match render() {
        Outcome::Output { text, warnings } => {
            let entry = Entry {
                text,
                warnings: warnings.iter().map(|w| clean(w)).collect(),
                wrapper: Some(workdir.to_owned()),
                refused: None,
            };
            if let Some((cache, key)) = kept {
                cache.put(key, &entry);
            }
            Ok(entry)
        }
        Outcome::Failed(failed) => {
            let verdict = judge(&failed);
            // Only what the input decides is kept: a refusal, not what the environment did.
            if let (Some((cache, key)), Failure::Exited { stderr }, Verdict::Refused(_)) =
                (kept, &failed, &verdict)
            {
                cache.put(key, &Entry::refusal(stderr, workdir));
            }
            Err(verdict)
        }
    }
}

/// The key of one render, built from everything the renderer reads.
pub(crate) struct KeyBuilder {
    hasher: blake3::Hasher,
}

/// A finished key: secret, so that the entry's name says nothing a pull request can predict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key([u8; 32]);

impl KeyBuilder {
    /// Adds one field, length-prefixed, so that no two sequences of fields hash alike.
    pub(crate) fn field(&mut self, bytes: impl AsRef<[u8]>) -> &mut KeyBuilder {
        let bytes = bytes.as_ref();
        self.hasher.update(&(bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
        self
    }

    /// Adds a path, as bytes.
    pub(crate) fn path(&mut self, path: &Path) -> &mut KeyBuilder {
        self.field(path.as_os_str().as_encoded_bytes())
    }

    /// Adds an executable: its resolved path, size, modification time and inode. A renderer
    /// installed again, upgraded or replaced changes at least one of them.
    pub(crate) fn program(&mut self, program: &Path) -> &mut KeyBuilder {
        let resolved = program
            .canonicalize()
            .unwrap_or_else(|_| program.to_owned());
        self.path(&resolved);
        match std::fs::metadata(&resolved) {
            Ok(metadata) => {
                self.field(metadata.len().to_le_bytes());
                let modified = metadata
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .unwrap_or_default();
                self.field(modified.as_nanos().to_le_bytes());
                #[cfg(unix)]
                {
                    use std::os::unix::fs::MetadataExt;
                    self.field(metadata.ino().to_le_bytes());
                    self.field(metadata.dev().to_le_bytes());
                }
            }
            Err(_) => {
                self.field("missing");
            }
        }
        self
    }

    pub(crate) fn finish(&self) -> Key {
        Key(*self.hasher.finalize().as_bytes())
    }
}

impl Cache {
    /// Opens (creating it when needed) the cache at `dir`. `root` is the repository's root when
    /// the directory is inside it: no directory between them may be a link. Errors say why the
    /// cache is not used.
    pub(crate) fn open(dir: &Path, root: Option<&Path>) -> Result<Cache, CacheError> {
        let secret = secret()?;
        let dir = std::path::absolute(dir)?;
        if let Some(root) = root {
            check_no_links(&dir, root)?;
        }
        let existed = dir.exists();
        std::fs::create_dir_all(&dir).map_err(|source| CacheError::CreateDir {
            dir: dir.clone(),
            source,
        })?;
        let metadata = std::fs::symlink_metadata(&dir)?;
        if !metadata.is_dir() {
            return Err(CacheError::NotDirectory { path: dir });
        }
        if let Some(root) = root {
            check_no_links(&dir, root)?;
        }
        let cache = Cache { dir, secret };
        if !existed || !cache.dir.join("CACHEDIR.TAG").exists() {
            cache.write_new("CACHEDIR.TAG", CACHEDIR_TAG.as_bytes());
            cache.write_new(".gitignore", b"# Created by podcycle: safe to delete.\n*\n");
        }
        cache.evict(MAX_CACHE_BYTES, MAX_CACHE_ENTRIES);
        Ok(cache)
    }

    /// A key for one render of `tool`, with podcycle's version and the cache format in it.
    pub(crate) fn key(&self, tool: &str) -> KeyBuilder {
        let mut builder = KeyBuilder {
            hasher: blake3::Hasher::new_keyed(&self.secret),
        };
        builder
            .field(FORMAT)
            .field(env!("CARGO_PKG_VERSION"))
            .field(tool);
        builder
    }

    /// Removes the least recently used entries while they hold more than `bytes` or number
    /// more than `entries`, down to three quarters of each. Only files named as entries are
    /// counted and removed, links never followed (removing one removes the link).
    fn evict(&self, bytes: u64, entries: usize) {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut found: Vec<(std::time::SystemTime, u64, PathBuf)> = listing
            .filter_map(Result::ok)
            .filter(|entry| is_entry_name(&entry.file_name()))
            .filter_map(|entry| {
                let metadata = std::fs::symlink_metadata(entry.path()).ok()?;
                // Larger than any entry podcycle writes: planted, never valid. It goes first,
                // and does not count, so that it cannot push real entries out.
                if metadata.len() > MAX_ENTRY_BYTES {
                    let _ = std::fs::remove_file(entry.path());
                    return None;
                }
                let used = metadata.modified().unwrap_or(std::time::UNIX_EPOCH);
                Some((used, metadata.len(), entry.path()))
            })
            .collect();
        let mut total: u64 = found.iter().map(|(_, size, _)| size).sum();
        if total <= bytes && found.len() <= entries {
            return;
        }
        // Oldest first.
        found.sort();
        let mut left = found.len();
        for (_, size, path) in found {
            if total <= bytes / 4 * 3 && left <= entries / 4 * 3 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(size);
                left -= 1;
            }
        }
    }

    /// The entry for `key`, when there is a valid one. Anything else is a miss. A hit is marked
    /// as used now, for eviction.
    pub(crate) fn get(&self, key: &Key) -> Option<Entry> {
        let path = self.dir.join(name(key));
        let bytes = read_entry(&path)?;
        mark_used(&path);
        let (header, rest) = split_line(&bytes)?;
        if header != FORMAT.as_bytes() {
            return None;
        }
        let (mac, payload) = split_line(rest)?;
        let expected = self.mac(key, payload);
        // `blake3::Hash` compares in constant time.
        if blake3::Hash::from_hex(mac).ok()? != expected {
            return None;
        }
        serde_json::from_slice(payload).ok()
    }

    /// Keeps `entry` under `key`. A cache that cannot be written is not an error: the next run
    /// renders again.
    pub(crate) fn put(&self, key: &Key, entry: &Entry) {
        let Ok(payload) = serde_json::to_vec(entry) else {
            return;
        };
        let mut bytes = Vec::with_capacity(payload.len() + 100);
        bytes.extend_from_slice(FORMAT.as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(self.mac(key, &payload).to_hex().as_bytes());
        bytes.push(b'\n');
        bytes.extend_from_slice(&payload);
        if bytes.len() as u64 <= MAX_ENTRY_BYTES {
            self.replace(&name(key), &bytes);
        }
    }

    /// Keeps a short text under `key`, what podcycle learnt of what the key names.
    pub(crate) fn note(&self, key: &Key, text: &str) {
        self.put(
            key,
            &Entry {
                text: text.to_owned(),
                warnings: Vec::new(),
                wrapper: None,
                refused: None,
            },
        );
    }

    /// The text [`Cache::note`] kept under `key`, in a valid entry.
    pub(crate) fn noted(&self, key: &Key) -> Option<String> {
        self.get(key).map(|entry| entry.text)
    }

    /// The hash that proves an entry was written for `key` by a holder of the secret.
    fn mac(&self, key: &Key, payload: &[u8]) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new_keyed(&self.secret);
        hasher.update(b"entry");
        hasher.update(&key.0);
        hasher.update(payload);
        hasher.finalize()
    }

    /// Writes `name` in the directory through a new temporary file renamed into place: a link
    /// at `name` is replaced, never followed.
    fn replace(&self, name: &str, bytes: &[u8]) {
        let Ok(mut file) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return;
        };
        if file.write_all(bytes).is_ok() {
            let _ = file.persist(self.dir.join(name));
        }
    }

    /// Writes `name` unless something is there already.
    fn write_new(&self, name: &str, bytes: &[u8]) {
        let Ok(mut file) = tempfile::NamedTempFile::new_in(&self.dir) else {
            return;
        };
        if file.write_all(bytes).is_ok() {
            let _ = file.persist_noclobber(self.dir.join(name));
        }
    }
}

/// Sets an entry's modification time to now (opened without following a link), so that
/// eviction removes the least recently used first.
fn mark_used(path: &Path) {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    if let Ok(file) = options.open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// Whether a file name is an entry's: a key's 64 hexadecimal digits.
fn is_entry_name(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|name| name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The file name of an entry.
fn name(key: &Key) -> String {
    blake3::Hash::from_bytes(key.0).to_hex().to_string()
}

fn split_line(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    Some((&bytes[..end], &bytes[end + 1..]))
}

/// Reads an entry: a regular file, opened without following a link and without blocking, of
/// at most [`MAX_ENTRY_BYTES`].
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > MAX_ENTRY_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).ok()?);
    file.take(MAX_ENTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_ENTRY_BYTES).then_some(bytes)
}

/// Refuses a cache directory under `root` reached through a link: each existing directory from
/// `root` down to `dir` must be a directory, not a link to one.
fn check_no_links(dir: &Path, root: &Path) -> Result<(), CacheError> {
    let Ok(relative) = dir.strip_prefix(root) else {
        return Ok(());
    };
    let mut path = root.to_owned();
    for component in relative.components() {
        match component {
            Component::Normal(part) => path.push(part),
            _ => {
                return Err(CacheError::LeavesRepository {
                    dir: dir.to_owned(),
                });
            }
        }
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(CacheError::Link { path });
            }
            Ok(metadata) if !metadata.is_dir() => {
                return Err(CacheError::NotDirectory { path });
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Where the secret key lives: the user's cache directory, never the checkout.
fn secret_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".cache"))
        })?;
    Some(base.join("podcycle").join("cache-key"))
}

/// The secret key, created on first use.
fn secret() -> Result<[u8; 32], CacheError> {
    let path = secret_path().ok_or(CacheError::NoPlaceForKey)?;
    if let Some(secret) = read_secret(&path) {
        return Ok(secret);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| CacheError::CreateDir {
        dir: dir.to_owned(),
        source,
    })?;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(CacheError::NoRandomSource)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|source| CacheError::WriteIn {
        dir: dir.to_owned(),
        source,
    })?;
    file.write_all(blake3::Hash::from_bytes(secret).to_hex().as_bytes())?;
    // Another podcycle may have created it meanwhile: keep the first.
    match file.persist_noclobber(&path) {
        Ok(_) => Ok(secret),
        Err(_) => read_secret(&path).ok_or(CacheError::ReadKey { path }),
    }
}

fn read_secret(path: &Path) -> Option<[u8; 32]> {
    let bytes = read_entry(path)?;
    let text = std::str::from_utf8(&bytes).ok()?;
    blake3::Hash::from_hex(text.trim())
        .ok()
        .map(|hash| *hash.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_owned(),
            secret: [7; 32],
        }
    }

    fn entry() -> Entry {
        Entry {
            text: "kind: Pod\n".to_owned(),
            warnings: vec!["careful".to_owned()],
            wrapper: None,
            refused: None,
        }
    }

    #[test]
    fn a_kept_refusal_names_this_runs_temporary_directory() {
        let kept = Entry::refusal(
            "Error: accumulating resources from '/tmp/podcycle-kustomize-AAAA/x': nope",
            Path::new("/tmp/podcycle-kustomize-AAAA"),
        );
        assert_eq!(
            kept.refusal_in(Path::new("/tmp/podcycle-kustomize-BBBB"))
                .as_deref(),
            Some("Error: accumulating resources from '/tmp/podcycle-kustomize-BBBB/x': nope")
        );
        assert_eq!(entry().refusal_in(Path::new("/tmp/x")), None);
    }

    /// Past its caps the cache keeps the entries used last, and leaves alone what is not an
    /// entry.
    #[test]
    fn the_least_recently_used_entries_are_evicted() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let keys: Vec<Key> = (0..8)
            .map(|i| cache.key("helm").field(format!("chart {i}")).finish())
            .collect();
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, key) in keys.iter().enumerate() {
            cache.put(key, &entry());
            let file = std::fs::File::options()
                .write(true)
                .open(dir.path().join(name(key)))
                .unwrap();
            file.set_modified(long_ago + std::time::Duration::from_secs(i as u64))
                .unwrap();
        }
        std::fs::write(dir.path().join("CACHEDIR.TAG"), CACHEDIR_TAG).unwrap();
        // The oldest, used again, is now the newest.
        assert!(cache.get(&keys[0]).is_some());
        cache.evict(u64::MAX, 4);
        let kept: Vec<usize> = (0..8).filter(|&i| cache.get(&keys[i]).is_some()).collect();
        assert_eq!(kept, [0, 6, 7]);
        assert!(dir.path().join("CACHEDIR.TAG").exists());
        // Under its caps, nothing goes.
        cache.evict(u64::MAX, 4);
        assert_eq!((0..8).filter(|&i| cache.get(&keys[i]).is_some()).count(), 3);
    }

    #[test]
    fn an_entry_is_read_back_only_under_its_key_and_secret() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let key = cache.key("helm").field("chart").finish();
        let other = cache.key("helm").field("other chart").finish();
        cache.put(&key, &entry());
        assert_eq!(cache.get(&key), Some(entry()));
        assert_eq!(cache.get(&other), None);
        // Copied under another key's name: written for another key, so refused.
        std::fs::copy(dir.path().join(name(&key)), dir.path().join(name(&other))).unwrap();
        assert_eq!(cache.get(&other), None);
        // Another secret neither finds nor trusts it.
        let stranger = Cache {
            dir: dir.path().to_owned(),
            secret: [8; 32],
        };
        assert_eq!(stranger.get(&key), None);
    }

    #[test]
    fn fields_are_length_prefixed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let ab = cache.key("helm").field("a").field("bc").finish();
        let a_b = cache.key("helm").field("ab").field("c").finish();
        assert_ne!(ab, a_b);
    }

    #[test]
    fn a_changed_payload_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let key = cache.key("kustomize").finish();
        cache.put(&key, &entry());
        let path = dir.path().join(name(&key));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("kind: Pod", "kind: Poe")).unwrap();
        assert_eq!(cache.get(&key), None);
        std::fs::write(&path, "").unwrap();
        assert_eq!(cache.get(&key), None);
        std::fs::write(&path, format!("{FORMAT}\nnot hex\n{{}}")).unwrap();
        assert_eq!(cache.get(&key), None);
    }

    #[cfg(unix)]
    #[test]
    fn links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let key = cache.key("helm").field("x").finish();
        let other = cache.key("helm").field("y").finish();
        cache.put(&key, &entry());
        std::os::unix::fs::symlink(dir.path().join(name(&key)), dir.path().join(name(&other)))
            .unwrap();
        assert_eq!(cache.get(&other), None);
        // Writing replaces the link instead of writing through it.
        cache.put(&other, &entry());
        assert!(
            !std::fs::symlink_metadata(dir.path().join(name(&other)))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(cache.get(&key), Some(entry()));
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_directory_behind_a_link_in_the_repository_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.join(DEFAULT_DIR)).unwrap();
        let refused = check_no_links(&root.join(DEFAULT_DIR), &root).unwrap_err();
        assert!(matches!(refused, CacheError::Link { .. }), "{refused}");
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
        std::fs::create_dir(root.join("real")).unwrap();
        assert!(check_no_links(&root.join("real/cache"), &root).is_ok());
    }
}
