package openapi_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
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

// OpenAPI 3.0 reads `nullable` only beside a `type` in the same schema
// object (3.0.3, "nullable"); one without it declares nothing, and
// validators differ on it (kin-openapi accepts it, Redocly's linter,
// .ci/run's second validator, refuses it). Every schema object of the
// document is checked.
func TestNullableHasType(t *testing.T) {
	var doc any
	require.NoError(t, json.Unmarshal(openapi.JSON, &doc))
	var bad []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["nullable"] == true && v["type"] == nil {
				bad = append(bad, path)
			}
			for k, c := range v {
				walk(path+"/"+k, c)
			}
		case []any:
			for i, c := range v {
				walk(path+"/"+strconv.Itoa(i), c)
			}
		}
	}
	walk("#", doc)
	require.Empty(t, bad, "nullable without type")
}

// The document names the licence of the LICENSE file at the top of the
// repository.
func TestLicenseIsNamed(t *testing.T) {
	text, err := os.ReadFile("../LICENSE")
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON)
	require.NoError(t, err)
	require.NotNil(t, doc.Info.License)
	require.Equal(t, "MIT", doc.Info.License.Name)
	require.True(t, strings.HasPrefix(string(text), doc.Info.License.Name+" License\n"), "LICENSE is the licence the document names")
	require.NotEmpty(t, doc.Info.License.URL)
}
