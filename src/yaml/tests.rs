//! Tests of the tree builder that need the whole module.

use super::parse_stream;

fn comments(text: &str) -> Vec<Vec<String>> {
    parse_stream(text)
        .iter()
        .map(|d| {
            d.comments
                .iter()
                .map(|c| {
                    assert_eq!(&text[c.span.range()], format!("#{}", c.text));
                    c.text.to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn comments_belong_to_their_document() {
    let text =
        "# header\napiVersion: v1 # right\n# above\nkind: Pod\n---\n# second\nb: 1\n# trailing\n";
    assert_eq!(
        comments(text),
        [
            vec![" header", " right", " above"],
            vec![" second", " trailing"]
        ]
    );
}

#[test]
fn comments_in_block_scalars_are_text() {
    let text = "a: |\n  # not a comment\nb: 1 # one\n";
    assert_eq!(comments(text), [vec![" one"]]);
}

#[test]
fn long_runs_of_comments_are_not_errors() {
    let mut text = String::from("items:\n");
    for i in 0..500 {
        text.push_str(&format!("# {i}\n"));
    }
    text.push_str("- a\n---\n");
    for i in 0..500 {
        text.push_str(&format!("  # {i}\n"));
    }
    text.push_str("b: [\n# x\n]\n");
    let documents = parse_stream(&text);
    assert!(
        documents.iter().all(|d| d.errors.is_empty()),
        "{:?}",
        documents[0].errors
    );
    assert_eq!(documents[0].comments.len(), 500);
    assert_eq!(documents[1].comments.len(), 501);
}

#[test]
fn comments_survive_a_syntax_error() {
    let text = "# podcycle: ignore-file[yaml-syntax] generated\na: [\n---\nb: 1\n";
    let documents = parse_stream(text);
    assert!(!documents[0].errors.is_empty());
    assert_eq!(documents[0].comments.len(), 1);
}

#[test]
fn block_scalars_end_with_their_last_line() {
    let text = "a: |\n  one\n  two\n\nb: >-\n  three\n";
    let document = &parse_stream(text)[0];
    let spans: Vec<&str> = document
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, super::node::NodeKind::Scalar(_)))
        .map(|n| &text[n.span.range()])
        .collect();
    assert_eq!(spans, ["a", "one\n  two", "b", "three"]);
}

#[test]
fn quoted_scalars_continued_at_the_keys_indent_are_read_as_kubectl_reads_them() {
    // go-yaml v2 and v3 (kubectl, kustomize) accept a quoted scalar whose continuation lines
    // sit at the indentation of its key, and fold the line break into a space; YAML 1.2 calls
    // it an error. A plain scalar there is an error in go-yaml too.
    let text = "metadata:\n  annotations:\n    note: \"first line\n    continued\"\n    list: '[\n        1\n    ]'\n";
    let documents = parse_stream(text);
    assert!(documents[0].errors.is_empty(), "{:?}", documents[0].errors);
    let root = documents[0].root.unwrap();
    let value = crate::yaml::to_json(&documents[0], root).unwrap();
    assert_eq!(
        value["metadata"]["annotations"]["note"],
        "first line continued"
    );
    assert_eq!(value["metadata"]["annotations"]["list"], "[ 1 ]");
    let plain = parse_stream("metadata:\n  annotations:\n    note: first line\n    continued\n");
    assert!(!plain[0].errors.is_empty());
}

#[test]
fn nodes_stay_small() {
    // Every scalar of a long flow sequence is a node: their size is most of a tree's memory.
    assert!(std::mem::size_of::<super::node::Node>() <= 24);
}

#[test]
fn a_json_stream_is_read_object_by_object_as_kubectl_reads_it() {
    let text = "{\"kind\": \"Pod\",\n \"a\": [1]}\n{\"kind\": \"Service\"}{\"kind\": \"Job\"}\n";
    let documents = parse_stream(text);
    let kinds: Vec<&str> = documents
        .iter()
        .map(|d| {
            assert!(d.errors.is_empty(), "{:?}", d.errors);
            let root = d.root.expect("an object");
            let (_, kind) = d.mapping(root).unwrap()[0];
            &text[d.node(kind).span.range()]
        })
        .collect();
    assert_eq!(kinds, ["\"Pod\"", "\"Service\"", "\"Job\""]);
    // What follows the objects and is not one is an error where it is.
    let text = "{\"a\": 1}\n{\"b\": 2}\nc: [\n";
    let errors: Vec<usize> = parse_stream(text)
        .iter()
        .flat_map(|d| d.errors.iter().map(|e| e.span.start as usize))
        .collect();
    assert!(!errors.is_empty());
    assert!(errors.iter().all(|at| *at >= text.find("c:").unwrap()));
    // One object followed by YAML is YAML, as kubectl reads it.
    assert_eq!(parse_stream("{\"a\": 1}\n---\nb: 2\n").len(), 2);
}
