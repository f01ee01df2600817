package openapi_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/actions"
	"github.com/tonql/tonql/openapi"
	"github.com/tonql/tonql/openapi/internal/yamljson"
)

func TestDocumentIsValid(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
}

// The served JSON is generated from the YAML source; a change to one
// without the other fails here.
func TestJSONIsGeneratedFromYAML(t *testing.T) {
	src, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	want, err := yamljson.Convert(src)
	require.NoError(t, err)
	require.True(t, string(want) == string(openapi.JSON), "openapi.json is stale: run go generate ./openapi")
}

// The ActionType enum lists exactly the types the decoder makes.
func TestActionTypesAreTheDecodersTypes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				ActionType struct {
					Enum []string `json:"enum"`
				} `json:"ActionType"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.JSON, &doc))
	got := slices.Sorted(slices.Values(doc.Components.Schemas.ActionType.Enum))
	require.Equal(t, slices.Sorted(slices.Values(actions.TypeNames())), got)
}

func TestConvertRefusesSplitDescriptions(t *testing.T) {
	_, err := yamljson.Convert([]byte("a: {description: one, two}\n"))
	require.ErrorContains(t, err, `key "two" has no value`)
}
