//! "Did you mean ...?" for misspelt names.

/// The candidate closest to `name`, if it is close enough to be a likely typo.
fn did_you_mean<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lowered = name.to_ascii_lowercase();
    if let Some(exact) = candidates
        .iter()
        .find(|c| c.to_ascii_lowercase() == lowered)
    {
        return Some(exact);
    }
    let threshold = (name.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|&candidate| {
            (
                edit_distance(&lowered, &candidate.to_ascii_lowercase()),
                candidate,
            )
        })
        .filter(|&(distance, _)| distance <= threshold)
        .min_by_key(|&(distance, candidate)| (distance, candidate))
        .map(|(_, candidate)| candidate)
}

/// "did you mean `x`?", the help for a misspelt name, when a candidate is close enough.
pub(crate) fn did_you_mean_help(name: &str, candidates: &[&str]) -> Option<String> {
    did_you_mean(name, candidates).map(|suggestion| format!("did you mean `{suggestion}`?"))
}

/// Edit distance over characters where swapping two neighbours counts as one edit
/// (optimal string alignment), since transposed letters are the commonest typo.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for i in 0..=a.len() {
        rows[at(i, 0)] = i;
    }
    for j in 0..=b.len() {
        rows[at(0, j)] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[at(i - 1, j)] + 1)
                .min(rows[at(i, j - 1)] + 1)
                .min(rows[at(i - 1, j - 1)] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[at(i - 2, j - 2)] + 1);
            }
            rows[at(i, j)] = best;
        }
    }
    rows[at(a.len(), b.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let fields = [
            "imagePullPolicy",
            "image",
            "readinessProbe",
            "livenessProbe",
            "name",
        ];
        assert_eq!(
            did_you_mean("imagePullPolice", &fields),
            Some("imagePullPolicy")
        );
        assert_eq!(
            did_you_mean("readinesProbe", &fields),
            Some("readinessProbe")
        );
        assert_eq!(
            did_you_mean("ImagePullPolicy", &fields),
            Some("imagePullPolicy")
        );
        assert_eq!(did_you_mean("nmae", &fields), Some("name"));
        assert_eq!(did_you_mean("replicas", &fields), None);
        assert_eq!(did_you_mean("x", &fields), None);
    }

    #[test]
    fn the_help_says_did_you_mean() {
        assert_eq!(
            did_you_mean_help("nmae", &["name", "image"]).as_deref(),
            Some("did you mean `name`?")
        );
        assert_eq!(did_you_mean_help("replicas", &["name"]), None);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("nmae", "name"), 1);
    }
}
