package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// Document is one document of a file as `kubectl apply -f` reads it.
type Document struct {
	// Index is the 0-based index of the document in the YAML stream (see DocumentIndex).
	Index int
	// JSON is the document converted to JSON, when it could be read.
	JSON []byte
	// Err is why it could not be read.
	Err error
}

// KubectlDocuments reads a file the way `kubectl apply -f` does (k8s.io/cli-runtime
// `StreamVisitor`): k8s.io/apimachinery's YAML-or-JSON decoder splits it into documents and
// sigs.k8s.io/yaml turns each into JSON. Empty and `null` documents are skipped. Unlike kubectl,
// which stops at the first unreadable document, every document is read, so each gets its own
// verdict.
func KubectlDocuments(data []byte) []Document {
	if utilyaml.IsJSONBuffer(data) {
		return jsonDocuments(data)
	}
	var documents []Document
	for _, chunk := range yamlChunks(data) {
		if chunk.err != nil {
			documents = append(documents, Document{Index: chunk.index, Err: chunk.err})
			continue
		}
		// What YAMLToJSONDecoder.Decode does with each chunk: sigs.k8s.io/yaml.Unmarshal into a
		// runtime.RawExtension, whose UnmarshalJSON keeps the bytes.
		converted, err := sigsyaml.YAMLToJSON(chunk.text)
		if err != nil {
			documents = append(documents, Document{Index: chunk.index, Err: utilyamlSyntaxError(err)})
			continue
		}
		converted = bytes.TrimSpace(converted)
		if len(converted) == 0 || bytes.Equal(converted, []byte("null")) {
			continue
		}
		documents = append(documents, Document{Index: chunk.index, JSON: converted})
	}
	return documents
}

// utilyamlSyntaxError words the error as kubectl prints it.
func utilyamlSyntaxError(err error) error {
	return fmt.Errorf("error converting YAML to JSON: %w", err)
}

// jsonDocuments reads a JSON stream (a file whose first non-space character is `{`) as
// YAMLOrJSONDecoder does.
func jsonDocuments(data []byte) []Document {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var documents []Document
	for index := 0; ; index++ {
		var raw rawMessage
		err := decoder.Decode(&raw)
		if err == io.EOF {
			return documents
		}
		if err != nil {
			return append(documents, Document{Index: index, Err: err})
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
			continue
		}
		documents = append(documents, Document{Index: index, JSON: trimmed})
	}
}

// rawMessage keeps a document's JSON as it was read.
type rawMessage []byte

func (m *rawMessage) UnmarshalJSON(data []byte) error {
	*m = append((*m)[:0], data...)
	return nil
}

type chunk struct {
	index int
	text  []byte
	err   error
}

// yamlChunks splits a YAML stream exactly as k8s.io/apimachinery's YAMLReader does (lines read
// with bufio's ReadLine, so `\r\n` becomes `\n`; a line starting with `---` ends a non-empty
// chunk and is dropped, but opens an empty one and is kept; only spaces or a comment may follow
// it; the last line read with the end of input is dropped), and numbers each chunk by its index
// in the YAML stream. TestChunksMatchYAMLReader checks the chunks against YAMLReader itself.
func yamlChunks(data []byte) []chunk {
	indexer := NewDocumentIndexer(string(data))
	var chunks []chunk
	var buffer bytes.Buffer
	index := 0
	offset := 0
	for {
		line, consumed, err := readLine(data, offset)
		lineEnd := offset + consumed
		if err != nil && err != io.EOF {
			return append(chunks, chunk{index: indexer.At(offset), err: err})
		}
		if bytes.HasPrefix(line, []byte("---")) {
			trimmed := strings.TrimSpace(string(line[3:]))
			if len(trimmed) > 0 && trimmed[0] != '#' {
				// YAMLReader fails here, and kubectl with it; the rest of the file is not read.
				return append(chunks, chunk{
					index: indexer.At(lineEnd),
					err:   fmt.Errorf("invalid Yaml document separator: %s", trimmed),
				})
			}
			if buffer.Len() != 0 {
				chunks = append(chunks, chunk{index: index, text: append([]byte(nil), buffer.Bytes()...)})
				buffer.Reset()
				offset = lineEnd
				continue
			}
			if err == io.EOF {
				return chunks
			}
		}
		if err == io.EOF {
			if buffer.Len() != 0 {
				chunks = append(chunks, chunk{index: index, text: append([]byte(nil), buffer.Bytes()...)})
			}
			return chunks
		}
		if buffer.Len() == 0 {
			// The chunk's document: the one this line is in (a separator opens its own).
			index = indexer.At(offset)
			if bytes.HasPrefix(line, []byte("---")) {
				index = indexer.At(lineEnd)
			}
		}
		buffer.Write(line)
		offset = lineEnd
	}
}

// readLine is apimachinery's LineReader.Read over data from pos: one line without its
// end-of-line bytes (`\n` or `\r\n`, as bufio's ReadLine drops them), plus `\n`; at the end of
// the input, just `\n` with io.EOF. It also returns how many bytes of input the line took.
func readLine(data []byte, pos int) ([]byte, int, error) {
	if pos >= len(data) {
		return []byte("\n"), 0, io.EOF
	}
	rest := data[pos:]
	end := bytes.IndexByte(rest, '\n')
	if end < 0 {
		return append(append([]byte(nil), rest...), '\n'), len(rest), nil
	}
	line := rest[:end]
	line = bytes.TrimSuffix(line, []byte("\r"))
	return append(append([]byte(nil), line...), '\n'), end + 1, nil
}

// hasContent tells whether a line before the first separator makes a document of its own in
// the YAML stream: anything but blanks, comments and directives.
func hasContent(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	return len(trimmed) > 0 && trimmed[0] != '#' && trimmed[0] != '%'
}

// DocumentIndexer numbers documents in the YAML stream: a document starting at byte `offset`
// of a text with `\n` line ends has the index of the number of separator lines (lines starting
// with `---`) before it, less one when nothing but blanks, comments and directives precedes the
// first separator (that separator then opens the first document).
type DocumentIndexer struct {
	separators []int
	content    bool
}

// NewDocumentIndexer reads the separator lines of a text once.
func NewDocumentIndexer(text string) DocumentIndexer {
	var indexer DocumentIndexer
	for lineStart := 0; lineStart < len(text); {
		end := strings.IndexByte(text[lineStart:], '\n')
		if end < 0 {
			end = len(text) - lineStart
		}
		line := text[lineStart : lineStart+end]
		if strings.HasPrefix(line, "---") {
			indexer.separators = append(indexer.separators, lineStart)
		} else if len(indexer.separators) == 0 && hasContent([]byte(line)) {
			indexer.content = true
		}
		lineStart += end + 1
	}
	return indexer
}

// At returns the index of the document that starts at byte `offset`.
func (d DocumentIndexer) At(offset int) int {
	separators := sort.SearchInts(d.separators, offset)
	if separators > 0 && !d.content {
		return separators - 1
	}
	return separators
}

// DocumentIndex is NewDocumentIndexer(text).At(offset), for one look-up.
func DocumentIndex(text string, offset int) int {
	return NewDocumentIndexer(text).At(offset)
}
