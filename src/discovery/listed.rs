//! Which of the files discovery looks for in a directory its listing showed, so that a file a
//! listing did not show is not probed for.

use std::ffi::OsStr;

/// The files discovery looks for in every walked directory: a chart's metadata, a
/// kustomization, a Chainsaw test.
const LOOKED_FOR: [&str; 7] = [
    "Chart.yaml",
    "kustomization.yaml",
    "kustomization.yml",
    "Kustomization",
    "chainsaw-test.yaml",
    "chainsaw-test.yml",
    "chainsaw-test.json",
];

/// Which of the files discovery looks for ([`LOOKED_FOR`]) a walked directory's listing
/// showed: one it did not show is not there, and is not probed for again. One it showed is
/// still checked as before (a link, a directory of that name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Listed(u8);

impl Listed {
    /// A directory that could not be listed: any of the files may be there.
    pub(crate) const UNKNOWN: Listed = Listed(u8::MAX);

    pub(crate) fn see(&mut self, name: &OsStr) {
        if let Some(at) = LOOKED_FOR
            .iter()
            .position(|looked| name == OsStr::new(looked))
        {
            self.0 |= 1 << at;
        }
    }

    /// Whether the directory may hold a file `name`: it was listed, or is not one of those
    /// looked for.
    pub(crate) fn may_hold(self, name: &str) -> bool {
        LOOKED_FOR
            .iter()
            .position(|looked| *looked == name)
            .is_none_or(|at| self.0 & (1 << at) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_listing_showed_is_probed_for() {
        let mut listed = Listed::default();
        for name in ["kustomization.yaml", "deploy.yaml", "chainsaw-test.yml"] {
            listed.see(OsStr::new(name));
        }
        assert!(listed.may_hold("kustomization.yaml"));
        assert!(listed.may_hold("chainsaw-test.yml"));
        assert!(!listed.may_hold("Chart.yaml"));
        assert!(!listed.may_hold("Kustomization"));
        assert!(!listed.may_hold("chainsaw-test.yaml"));
        // Names it does not look for are not its to rule out.
        assert!(listed.may_hold("values.yaml"));
        assert!(LOOKED_FOR.iter().all(|name| Listed::UNKNOWN.may_hold(name)));
    }
}
