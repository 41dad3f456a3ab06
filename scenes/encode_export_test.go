package scenes

import "strings"

// EncodeUnchecked decodes a scene file and writes its SceneSpec back
// without Validate (which Marshal and ReadSpec apply), so that the key
// agreement tests (keys_test.go) can run the encoder on a file holding
// every key, physical or not. Decoding errors are returned.
func EncodeUnchecked(data []byte) ([]byte, error) {
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	var p problems
	s := decodeScene(n, &p)
	if err := p.err(); err != nil {
		return nil, err
	}
	var b strings.Builder
	writeJSON(&b, s.node(), "")
	return []byte(b.String()), nil
}
