package schemas

import (
	"encoding/json"
	"errors"
)

// jsonDecoder reads JSON Schema values: the payload is JSON text, taken as
// it is (checked against nothing but JSON's grammar).
type jsonDecoder struct{}

var errNotJSON = errors.New("payload is not JSON")

func (jsonDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	if !json.Valid(payload) {
		return nil, errNotJSON
	}
	return append(buf, payload...), nil
}
