//! Words shared by rule messages and `podcycle explain`: lists of names and lengths of time,
//! written one way everywhere, so that a time reads the same in a finding and in a timeline.

/// How many names a list spells out before it says how many more there are.
const LISTED: usize = 3;

/// `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``.
pub(crate) fn name_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    phrase_list(names.into_iter().map(|n| format!("`{n}`")))
}

/// Phrases joined as a sentence lists them: `a`, `a and b`, `a, b and c`.
pub(crate) fn phrase_list(phrases: impl IntoIterator<Item = String>) -> String {
    let phrases: Vec<String> = phrases.into_iter().collect();
    match phrases.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether `needle` occurs in `haystack`: the searches of a whole file's text for a word it
/// rarely holds (a suppression comment, a patch directive, a kind), made with `memchr`'s
/// vectorised substring search, several times faster over a large manifest than `str::contains`.
pub(crate) fn contains(haystack: &str, needle: &str) -> bool {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some()
}

/// `1 file`, `2 files`, `2 policies`, `2 Kustomize overlays`: a count and its noun. A `y`
/// after a consonant becomes `ies`; after a vowel it keeps its `s`.
pub(crate) fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        return format!("{count} {word}");
    }
    match word.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{count} {stem}ies"),
        _ => format!("{count} {word}s"),
    }
}

/// "the 2nd container", "the 1st init container": how to name a container that has no name,
/// by its place in its list (`containers`, `initContainers`, `ephemeralContainers`).
pub(crate) fn ordinal_container(list: &str, index: usize) -> String {
    let n = index + 1;
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    let kind = match list {
        "initContainers" => "init container",
        "ephemeralContainers" => "ephemeral container",
        _ => "container",
    };
    format!("the {n}{suffix} {kind}")
}

/// Like [`name_list`], but names at most three of `total` and counts the rest:
/// `` `a`, `b`, `c` and 5 more ``. Only the names shown are read, so a caller can pass an
/// iterator over a long list and stay linear.
pub(crate) fn short_name_list<'a>(
    names: impl IntoIterator<Item = &'a str>,
    total: usize,
) -> String {
    short_phrase_list(names.into_iter().map(|n| format!("`{n}`")), total)
}

/// Like [`short_name_list`], for phrases written already (a container quoted by name, or named
/// by its place when it has none).
pub(crate) fn short_phrase_list(phrases: impl IntoIterator<Item = String>, total: usize) -> String {
    let shown: Vec<String> = phrases.into_iter().take(LISTED).collect();
    if total <= shown.len() {
        return phrase_list(shown);
    }
    format!("{} and {} more", shown.join(", "), total - shown.len())
}

/// A length of time: `5s`, `0.5s`; `never` when infinite.
pub fn seconds(value: f64) -> String {
    if value.is_finite() {
        format!("{value}s")
    } else {
        "never".to_owned()
    }
}

/// A time between two bounds: `10s` when they agree, `10–30s`, `≥10s` without an upper
/// bound, `never` when even the lower one is infinite.
pub fn range(min: f64, max: f64) -> String {
    if !min.is_finite() {
        "never".to_owned()
    } else if min == max {
        seconds(min)
    } else if max.is_finite() {
        format!("{min}–{}", seconds(max))
    } else {
        format!("≥{}", seconds(min))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "Kustomize overlay"), "1 Kustomize overlay");
        assert_eq!(plural(2, "Kustomize overlay"), "2 Kustomize overlays");
        assert_eq!(plural(2, "baseline entry"), "2 baseline entries");
        assert_eq!(plural(0, "file"), "0 files");
    }

    #[test]
    fn lists_names_and_counts_the_rest() {
        assert_eq!(name_list(["a"]), "`a`");
        assert_eq!(name_list(["a", "b", "c"]), "`a`, `b` and `c`");
        assert_eq!(short_name_list(["a", "b"], 2), "`a` and `b`");
        assert_eq!(
            short_name_list(["a", "b", "c", "d", "e"], 5),
            "`a`, `b`, `c` and 2 more"
        );
    }

    #[test]
    fn names_a_container_by_its_place() {
        assert_eq!(ordinal_container("containers", 1), "the 2nd container");
        assert_eq!(
            ordinal_container("initContainers", 0),
            "the 1st init container"
        );
        assert_eq!(ordinal_container("containers", 10), "the 11th container");
        assert_eq!(ordinal_container("containers", 22), "the 23rd container");
        assert_eq!(phrase_list(["x".to_owned()]), "x");
        assert_eq!(
            phrase_list(["a".to_owned(), "b".to_owned(), "c".to_owned()]),
            "a, b and c"
        );
    }

    #[test]
    fn writes_times_one_way() {
        assert_eq!(seconds(5.0), "5s");
        assert_eq!(seconds(0.5), "0.5s");
        assert_eq!(seconds(f64::INFINITY), "never");
        assert_eq!(range(20.0, 100.0), "20–100s");
        assert_eq!(range(30.0, 30.0), "30s");
        assert_eq!(range(50.0, f64::INFINITY), "≥50s");
        assert_eq!(range(f64::INFINITY, f64::INFINITY), "never");
    }
}
