package main

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomizeSeparator is kyaml's document separator (kio/byteio_reader.go splitDocuments).
var kustomizeSeparator = regexp.MustCompile(`\n---.*\n`)

// KustomizeProblems reads a file the way `kustomize build` (and `kubectl apply -k`) reads a
// resource: kyaml's ByteReader splits it and decodes each document with go-yaml v3 into a node
// tree (api/resource/factory.go RNodesFromBytes → kio.FromBytes), and the resource is turned
// into JSON when it is written out (RNode.MarshalJSON, which decodes the tree into a map: this
// is where a key written twice fails). Each document is read on its own, so one problem does
// not hide the next; kustomize itself stops at the first.
func KustomizeProblems(data []byte) []Problem {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var problems []Problem
	for _, document := range kustomizeDocuments(text) {
		problem := Problem{Document: document.index, Stage: StageKustomizeDecode}
		if document.err != nil {
			problem.Type, problem.Detail = "DocumentSeparator", document.err.Error()
			problems = append(problems, problem)
			continue
		}
		if size := expandedSize(document.text); size > aliasExpansionLimit {
			problem.Type = "ExcessiveAliasing"
			problem.Detail = fmt.Sprintf("aliases expand to %d nodes: kyaml copies every alias (yaml.CopyYNode) and runs out of memory", size)
			problems = append(problems, problem)
			continue
		}
		nodes, err := kio.FromBytes([]byte(document.text))
		if err != nil {
			problem.Type, problem.Detail = "YAMLSyntax", err.Error()
			problems = append(problems, problem)
			continue
		}
		for _, node := range nodes {
			problem.Kind, problem.Name = node.GetKind(), node.GetName()
			if _, err := node.MarshalJSON(); err != nil {
				problem.Detail = err.Error()
				paths := duplicateKeyPaths(node.YNode(), "", nil)
				if len(paths) == 0 {
					problem.Type = "YAMLSyntax"
					problems = append(problems, problem)
				}
				// go-yaml v3 reports every key written twice in the document.
				for _, path := range paths {
					problem.Type, problem.Field = "DuplicateKey", path
					problems = append(problems, problem)
				}
			}
		}
	}
	return problems
}

type kustomizeDocument struct {
	index int
	text  string
	err   error
}

// kustomizeDocuments is kyaml's splitDocuments, with each document's index in the YAML stream.
func kustomizeDocuments(text string) []kustomizeDocument {
	if text == "" {
		return nil
	}
	indexer := NewDocumentIndexer(text)
	var documents []kustomizeDocument
	previous := 0
	locations := kustomizeSeparator.FindAllStringIndex(text, -1)
	for _, location := range locations {
		separator := text[location[0]:location[1]]
		after := strings.TrimSpace(separator[4:])
		if after != "" && after[0] != '#' {
			// kyaml refuses the whole file.
			return []kustomizeDocument{{
				index: indexer.At(location[1]),
				err:   fmt.Errorf("invalid document separator: %s", strings.TrimSpace(separator)),
			}}
		}
		// kyaml adds back the line end the split ate.
		value := text[previous:location[0]] + "\n"
		documents = append(documents, kustomizeDocument{index: indexer.At(previous), text: value})
		previous = location[1]
	}
	return append(documents, kustomizeDocument{index: indexer.At(previous), text: text[previous:]})
}

// duplicateKeyPaths finds every key written twice in one mapping, as go-yaml v3's decoder
// compares keys (same node kind, same text), and returns their field paths in document order.
func duplicateKeyPaths(node *yaml.Node, path string, found []string) []string {
	switch node.Kind {
	case yaml.DocumentNode:
		for _, child := range node.Content {
			found = duplicateKeyPaths(child, path, found)
		}
	case yaml.SequenceNode:
		for i, child := range node.Content {
			found = duplicateKeyPaths(child, fmt.Sprintf("%s[%d]", path, i), found)
		}
	case yaml.MappingNode:
		content := node.Content
		for j := 2; j+1 < len(content); j += 2 {
			for i := 0; i < j; i += 2 {
				if content[i].Kind == content[j].Kind && content[i].Value == content[j].Value {
					found = append(found, join(path, content[j].Value))
					break
				}
			}
		}
		for i := 0; i+1 < len(content); i += 2 {
			found = duplicateKeyPaths(content[i+1], join(path, content[i].Value), found)
		}
	}
	return found
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// aliasExpansionLimit is the size past which kyaml's copies of aliased nodes exhaust memory
// (a "billion laughs" document); go-yaml's own guard only applies when it decodes, after kyaml
// has copied the tree.
const aliasExpansionLimit = 1_000_000

// expandedSize counts the nodes of a document with every alias expanded, without expanding
// them: each anchored node's size is computed once.
func expandedSize(text string) int {
	var node yaml.Node
	if yaml.Unmarshal([]byte(text), &node) != nil {
		return 0
	}
	sizes := map[*yaml.Node]int{}
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if n == nil || depth > 10_000 {
			return 0
		}
		if known, ok := sizes[n]; ok {
			return known
		}
		total := 1
		if n.Kind == yaml.AliasNode {
			total += size(n.Alias, depth+1)
		}
		for _, child := range n.Content {
			total += size(child, depth+1)
			if total > aliasExpansionLimit {
				break
			}
		}
		sizes[n] = total
		return total
	}
	return size(&node, 0)
}
