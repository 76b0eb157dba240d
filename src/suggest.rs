//! "Did you mean ...?" for misspelt names.

/// The candidate closest to `name`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
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

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
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
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
