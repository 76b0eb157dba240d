//! Both source maps on arbitrary rendered output: `# Source:` headers, origin and
//! transformation annotations, paths of every spelling (`@ROOT@` stands for the repository's
//! absolute path, `@OUT@` for a file outside it). A finding at each node of the output is placed
//! through the Helm and the Kustomize map, over a chart and an overlay staged beside files the
//! stages do not copy: none lands in, or quotes, a file the stage did not copy as a template,
//! base or patch, and no staged file is read more than once (`-rss_limit_mb` bounds the memory).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(problem) =
        podcycle::render::map_fuzzing::place_everywhere(&String::from_utf8_lossy(data))
    {
        panic!("{problem}");
    }
});
